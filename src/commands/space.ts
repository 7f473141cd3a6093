import { oneCluster } from './args.js';
import { defineCommand } from './command.js';
import { spaceQueuedReply } from './check-replies.js';

/** `/etcd space <cluster>`: what fills its etcd, scanned from a follower by a worker; the answer in a thread. */
export default defineCommand({
  name: 'space',
  usage: 'space <cluster>',
  summary: 'what fills etcd: keys and bytes per resource and namespace, the largest objects, writes/s',
  args: oneCluster,
  defaultsToOnlyCluster: true,
  async run({ cluster }, ctx) {
    ctx.clusters.get(cluster, ctx);
    const reply = await ctx.jobs.space({ cluster, channel: ctx.channel, user: ctx.user });
    return spaceQueuedReply(cluster, reply);
  },
});
