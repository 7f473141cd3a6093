import { CHECK_DEPTHS } from '../../contracts/check-depth.js';
import { z } from 'zod';
import { defineAction, refused } from '../action.js';

/**
 * Run the check again. Read-only: open to everyone in the channel. The entry gives the button its
 * label, access and arguments; the click itself never becomes a remediation job: bot/handle-action.ts
 * queues the check at once, with the presser's channel and the bot's rate limits. A rerun plan that
 * reached the job path anyway is refused rather than queued a second way.
 */
export const rerun = defineAction({
  id: 'rerun',
  label: 'Re-run diagnosis',
  access: 'anyone',
  sideEffects: [],
  needsConfirmation: false,
  argsSchema: z.object({ depth: z.enum(CHECK_DEPTHS).optional() }),
  describe(args, s) {
    return [`Run the ${args.depth === 'health' ? 'health check' : 'diagnosis'} of ${s.cluster} again.`];
  },
  async run() {
    return refused('a re-run is queued by the bot when the button is pressed, not by a remediation job');
  },
});
