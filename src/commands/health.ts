import { oneCluster } from './args.js';
import { defineCommand } from './command.js';
import { checkQueuedReply } from './check-replies.js';

/** `/etcd health <cluster>`: the fast per-member answer (reachable, leader, took, DB size, alarms). */
export default defineCommand({
  name: 'health',
  usage: 'health <cluster>',
  summary: 'fast per-member health: reachable, leader, took, DB size, alarms',
  args: oneCluster,
  defaultsToOnlyCluster: true,
  async run({ cluster }, ctx) {
    ctx.clusters.get(cluster, ctx);
    const reply = await ctx.jobs.check({ depth: 'health', cluster, channel: ctx.channel, user: ctx.user });
    return checkQueuedReply('health', cluster, reply);
  },
});
