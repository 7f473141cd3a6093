import { CHECK_DEPTHS } from '../../contracts/check-depth.js';
import { z } from 'zod';
import { done, defineAction } from '../action.js';

/** Queue the diagnosis again. Read-only: open to everyone in the channel. */
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
  async run(args, ctx) {
    await ctx.clients.rerun(args.depth ?? 'diagnose');
    return done(
      `queued the ${args.depth === 'health' ? 'health check' : 'diagnosis'} of ${ctx.cluster.name} again`,
    );
  },
});
