import type { Destination, MessageRef } from '../chat/adapter.js';
import { type RootDeps, settleRootMessage } from '../answer/root-message.js';
import { type Logger, withFields } from '../logger.js';
import type { BackupsJob, CheckJob, StatusJob } from '../queue/job-schemas.js';
import { failedVerdictView, textView } from '../report/chat-view.js';

type Once = (jobId: string, deliver: () => Promise<MessageRef>) => Promise<boolean>;
type FailureDeps = RootDeps & { logger: Logger };

/** Logs the failure, then says so once: `Could not finish <what>: <reason>`. */
async function sayFailed(
  deps: FailureDeps,
  once: Once,
  jobId: string,
  failure: { cluster?: string; to: Destination; what: string },
  reason: string,
): Promise<{ posted: boolean; logger: Logger }> {
  const logger = withFields(deps.logger, { jobId, ...(failure.cluster ? { cluster: failure.cluster } : {}) });
  logger.warn({ reason }, 'job failed for good');
  const posted = await once(jobId, () =>
    deps.chat.post(failure.to, textView(`Could not finish ${failure.what}: ${reason}`, 'error')),
  );
  return { posted, logger };
}

/** A check failed for good: say so, once, in its root's thread, and set the root's verdict. */
export async function answerFailedCheck(
  deps: FailureDeps,
  once: Once,
  jobId: string,
  job: CheckJob,
  reason: string,
): Promise<void> {
  const root = await deps.state.root(jobId);
  const what = `the ${job.depth === 'diagnose' ? 'diagnosis' : 'health check'} of *${job.cluster}*`;
  const to: Destination = root ? { channel: root.channel, thread: root } : { channel: job.channel };
  const { posted, logger } = await sayFailed(deps, once, jobId, { cluster: job.cluster, to, what }, reason);
  if (posted && root)
    await settleRootMessage(deps, jobId, root, failedVerdictView(job.depth, job.cluster, reason), logger);
}

/** A status job failed for good: say so, once, in its channel. */
export async function answerFailedStatus(
  deps: FailureDeps,
  once: Once,
  jobId: string,
  job: StatusJob,
  reason: string,
): Promise<void> {
  await sayFailed(deps, once, jobId, { to: { channel: job.channel }, what: 'the status check' }, reason);
}

/** A backups job failed for good: say so, once, in its channel. */
export async function answerFailedBackups(
  deps: FailureDeps,
  once: Once,
  jobId: string,
  job: BackupsJob,
  reason: string,
): Promise<void> {
  const what = `the backup listing of *${job.cluster}*`;
  await sayFailed(deps, once, jobId, { cluster: job.cluster, to: { channel: job.channel }, what }, reason);
}
