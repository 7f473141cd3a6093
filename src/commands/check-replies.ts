import type { CheckDepth } from '../contracts/check-depth.js';
import type { EnqueueReply } from '../queue/job-requests.js';
import { type TextView, textView } from '../report/chat-view.js';

/** The private reply once a check is queued or joined. */
export function checkQueuedReply(depth: CheckDepth, cluster: string, reply: EnqueueReply): TextView {
  const what = depth === 'diagnose' ? 'diagnosis' : 'health check';
  if (!reply.joined) {
    const verb = depth === 'diagnose' ? `Diagnosing *${cluster}*` : `Checking the health of *${cluster}*`;
    return textView(`${verb}: progress follows in this channel, the answer in a thread.`);
  }
  if (!reply.thread) {
    return textView(
      `A ${what} of *${cluster}* is already queued; this request joins it. Its answer goes to the channel it was asked in.`,
    );
  }
  const lines = [
    `A ${what} of *${cluster}* is already running; this request joins it instead of probing twice.`,
  ];
  return textView(
    lines,
    'info',
    reply.thread.link ? { link: { label: 'Open the running thread', url: reply.thread.link } } : {},
  );
}

/** The private reply once a space scan is queued, or joined (one scan of a cluster at a time). */
export function spaceQueuedReply(cluster: string, reply: EnqueueReply): TextView {
  if (!reply.joined)
    return textView(
      `Measuring what fills *${cluster}*: it reads from a follower, rate-limited; progress and the answer follow in a thread.`,
    );
  const lines = [`What fills *${cluster}* is already being measured; this request joins that scan.`];
  return textView(
    lines,
    'info',
    reply.thread?.link ? { link: { label: 'Open the running thread', url: reply.thread.link } } : {},
  );
}

/** The private reply once the recovery plan of a cluster is asked for, or joined (read-only; it follows in the thread). */
export function recoveryQueuedReply(cluster: string, reply: EnqueueReply): TextView {
  return textView(
    reply.joined
      ? `The recovery plan of *${cluster}* is already being worked out; it follows in the thread.`
      : `Working out the recovery plan of *${cluster}* (read-only); it follows in the thread.`,
  );
}
