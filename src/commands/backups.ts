import { oneCluster } from './args.js';
import { defineCommand } from './command.js';
import { textView } from '../report/chat-view.js';

/** `/etcd backups <cluster>`: its snapshots, newest first, each read (age, size, revision, behind by, hash). */
export default defineCommand({
  name: 'backups',
  usage: 'backups <cluster>',
  summary: 'the backup snapshots, newest first: age, size, revision, how far behind, hash ok',
  args: oneCluster,
  defaultsToOnlyCluster: true,
  async run({ cluster }, ctx) {
    const config = ctx.clusters.get(cluster, ctx);
    if (!config.backups)
      return textView(
        `*${cluster}* has no backups configured: add \`backups: { dir: /path/to/snapshots }\` to it in the config (docs/configuration.md).`,
        'warning',
      );
    const reply = await ctx.jobs.backups({ cluster, channel: ctx.channel, user: ctx.user });
    return textView(
      reply.joined
        ? `Backups of *${cluster}* are already being read here; the answer follows in this channel.`
        : `Reading the backups of *${cluster}*; the answer follows in this channel.`,
    );
  },
});
