import { noArgs } from './args.js';
import { defineCommand } from './command.js';
import { textView } from '../report/chat-view.js';

/** `/etcd status`: a health check of every cluster this channel may see, one line each. */
export default defineCommand({
  name: 'status',
  usage: 'status',
  summary: 'every cluster, one line each',
  args: noArgs,
  async run(_args, ctx) {
    const clusters = ctx.clusters.names().filter((name) => ctx.clusters.allowedIn(name, ctx));
    if (clusters.length === 0) {
      return textView(
        'No cluster may be used from this channel (see slack.allowedChannels in the config).',
        'warning',
      );
    }
    const reply = await ctx.jobs.status({ clusters, channel: ctx.channel, user: ctx.user });
    const count = `${clusters.length} cluster${clusters.length === 1 ? '' : 's'}`;
    return textView(
      reply.joined
        ? `A status check is already running here; its answer covers ${count}.`
        : `Checking ${count}; the answer follows in this channel.`,
    );
  },
});
