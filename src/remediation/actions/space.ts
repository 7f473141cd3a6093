import { z } from 'zod';
import { done, defineAction } from '../action.js';

/**
 * "What fills it?" on a db-quota or db-fragmentation finding: queue a scan of what fills the
 * cluster's etcd (src/space/), answered in the diagnosis's thread. Read-only: open to everyone. The
 * bot queues it straight from the click (bot/handle-action.ts); this is the same, for the job path.
 */
export const whatFillsIt = defineAction({
  id: 'space',
  label: 'What fills it?',
  access: 'anyone',
  sideEffects: [],
  needsConfirmation: false,
  argsSchema: z.object({}),
  describe(_args, s) {
    return [
      `Measure what fills ${s.cluster}'s etcd: keys and bytes per resource, read from a follower at a limited rate.`,
    ];
  },
  async run(_args, ctx) {
    // Without the click's thread (the bot's path has it), the answer goes to the cluster's channel.
    await ctx.clients.space(undefined);
    return done(`queued a scan of what fills ${ctx.cluster.name}'s etcd`);
  },
});
