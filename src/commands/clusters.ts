import { noArgs } from './args.js';
import { defineCommand } from './command.js';
import { textView } from '../report/chat-view.js';

/** `/etcd clusters`: the configured clusters, from the config alone (no probing). */
export default defineCommand({
  name: 'clusters',
  usage: 'clusters',
  summary: 'the clusters etcd-doctor knows',
  args: noArgs,
  async run(_args, ctx) {
    const lines = ctx.clusters.names().map((name) => {
      const cluster = ctx.clusters.config(name);
      const count = cluster.etcd.endpoints?.length;
      const endpoints =
        count === undefined ? 'endpoints from the etcd pods' : `${count} endpoint${count === 1 ? '' : 's'}`;
      const allowed = cluster.slack?.allowedChannels ?? [];
      const where =
        allowed.length === 0 || ctx.clusters.allowedIn(name, ctx) ? '' : ` (only in ${allowed.join(', ')})`;
      return `• *${name}*: ${endpoints}${where}`;
    });
    return textView(lines, 'info', { title: 'Clusters' });
  },
});
