import type { ChatAdapter, MessageRef } from '../chat/adapter.js';
import type { Doctor } from '../doctor.js';
import { describeError } from '../errors.js';
import type { StatusJob } from '../queue/job-schemas.js';
import { headline, STATUS_WORD, textView } from '../report/chat-view.js';

/** A `status` job: every cluster's health at once, one line each, answered once. */
export async function runStatus(
  deps: { doctor: Pick<Doctor, 'run'>; chat: Pick<ChatAdapter, 'post'> },
  once: (jobId: string, deliver: () => Promise<MessageRef>) => Promise<boolean>,
  job: StatusJob,
  jobId: string,
): Promise<{ clusters: number }> {
  const lines = await Promise.all(
    job.clusters.map(async (name) => {
      try {
        // Every cluster at once: only the ones someone then looks at keep their connections.
        const report = await deps.doctor.run(name, 'health', { keepClients: false });
        return `• *${name}*: ${STATUS_WORD[report.status]}, ${headline(report)}`;
      } catch (err) {
        return `• *${name}*: could not be checked (${describeError(err)})`;
      }
    }),
  );
  await once(jobId, () =>
    deps.chat.post({ channel: job.channel }, textView(lines, 'info', { title: 'etcd clusters' })),
  );
  return { clusters: job.clusters.length };
}
