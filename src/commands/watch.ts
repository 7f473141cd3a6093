import { formatDuration } from '../format.js';
import { z } from 'zod';
import { defineCommand } from './command.js';
import { type ChatView, textView } from '../report/chat-view.js';
import type { WatchedCluster } from '../watch/watch-status.js';

const clock = (ms: number) => new Date(ms).toISOString().slice(11, 19);

function line(w: WatchedCluster, now: number): string {
  const every = `every ${w.intervalSeconds} s`;
  if (!w.last) return `• *${w.cluster}* ${every}: not checked yet`;
  const causes = w.last.causes.map(
    ([cause, members]) => `${cause}${members.length ? ` on ${members.join(', ')}` : ''}`,
  );
  const incident = w.incident
    ? `; incident open for ${formatDuration(now - w.incident.openedAt)} (${w.incident.cause})`
    : '';
  return `• *${w.cluster}* ${every}: ${w.last.status}${causes.length ? ` (${causes.join('; ')})` : ''} at ${clock(w.last.t)} UTC${incident}`;
}

/** `/etcd watch`: the watched clusters this channel may see, with their last check and incident. */
export default defineCommand({
  name: 'watch',
  usage: 'watch',
  summary: 'the watched clusters: last check, state, open incident',
  args: z.tuple([]),
  async run(_args, ctx): Promise<ChatView> {
    if (!ctx.watch)
      return textView('The watch is not available in this process (it has no Redis).', 'warning');
    const now = Date.now();
    const mine = (await ctx.watch.list()).filter((w) => ctx.clusters.allowedIn(w.cluster, ctx));
    if (mine.length === 0)
      return textView(
        'No cluster this channel may see is watched. Set `watch.intervalSeconds` (or `clusters[].watch.intervalSeconds`) in the config.',
      );
    return textView(
      mine.map((w) => line(w, now)),
      'info',
      { title: 'Watched clusters' },
    );
  },
});
