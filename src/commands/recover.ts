import { oneCluster } from './args.js';
import { defineCommand } from './command.js';
import { textView } from '../report/chat-view.js';

/** `/etcd recover <cluster>`: after quorum loss, the plan to get it back; etcd-doctor runs none of it. */
export default defineCommand({
  name: 'recover',
  usage: 'recover <cluster>',
  summary:
    'after quorum loss: which member to restore from, what each choice loses, the steps (you run them)',
  args: oneCluster,
  defaultsToOnlyCluster: true,
  async run({ cluster }, ctx) {
    ctx.clusters.get(cluster, ctx);
    const reply = await ctx.jobs.lifecycle({
      task: 'recover',
      cluster,
      channel: ctx.channel,
      user: ctx.user,
    });
    return textView(
      reply.joined
        ? `The recovery plan of *${cluster}* is already being worked out here; it follows in this channel.`
        : `Working out the recovery plan of *${cluster}* (read-only); it follows in this channel.`,
    );
  },
});
