import { oneCluster } from './args.js';
import { defineCommand } from './command.js';
import { checkQueuedReply } from './check-replies.js';

/** `/etcd diagnose <cluster>`: every probe, then the rules; the ranked answer goes in a thread. */
export default defineCommand({
  name: 'diagnose',
  usage: 'diagnose <cluster>',
  summary: 'every probe, then the rules: the root cause first, with evidence and remediation',
  args: oneCluster,
  defaultsToOnlyCluster: true,
  async run({ cluster }, ctx) {
    ctx.clusters.get(cluster, ctx);
    const reply = await ctx.jobs.check({ depth: 'diagnose', cluster, channel: ctx.channel, user: ctx.user });
    return checkQueuedReply('diagnose', cluster, reply);
  },
});
