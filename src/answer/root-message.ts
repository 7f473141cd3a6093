import type { ChatAdapter, Destination, MessageRef } from '../chat/adapter.js';
import { describeError } from '../errors.js';
import { type Logger, withFields } from '../logger.js';
import type { CheckJob } from '../queue/job-schemas.js';
import { progressView, textView, type VerdictView } from '../report/chat-view.js';
import type { JobState } from '../state/job-state.js';

/** A check job's root message: the one progress updates and the verdict replace. */
export interface RootDeps {
  chat: Pick<ChatAdapter, 'post' | 'update'>;
  state: Pick<JobState, 'root' | 'saveRoot' | 'verdict' | 'saveVerdict'>;
}

/**
 * Sets the root to the verdict of the job's answer: the one this run gave (`view`), or the one
 * another run gave. Two runs of one job can meet after a stall; whichever ends last writes the
 * same verdict, so its progress ticks never stay on screen.
 */
export async function settleRootMessage(
  deps: RootDeps,
  jobId: string,
  root: MessageRef,
  view: VerdictView | undefined,
  logger: Logger,
): Promise<void> {
  if (view) await deps.state.saveVerdict(jobId, view);
  const verdict = view ?? (await deps.state.verdict(jobId));
  if (!verdict) return;
  await deps.chat.update(root, verdict).catch((err: unknown) => {
    logger.warn({ err: describeError(err) }, 'could not update the root message to the verdict');
  });
}

/**
 * A retried or recovered job keeps the root message of its first attempt. Known window: a worker
 * that dies after Slack stored the root but before saveRoot leaves that root at "starting", and
 * the recovered job posts another. Slack has no idempotency key for chat.postMessage, and finding
 * the orphan again would need channels:history, which the bot does not ask for.
 */
export async function rootMessageFor(deps: RootDeps, jobId: string, job: CheckJob): Promise<MessageRef> {
  const known = await deps.state.root(jobId);
  if (known) return known;
  // "starting" until the run's first progress says how many probes it runs: only the run knows
  // (endpoints discovered through Kubernetes; a member list read moments ago is reused, not probed),
  // and a count posted here went from "0 of 7" to "1 of 6" (issue 42).
  const ref = await deps.chat.post({ channel: job.channel }, progressView(job.depth, job.cluster, 0, 0));
  await deps.state.saveRoot(jobId, ref);
  return ref;
}

/** What a job that failed for good says, and where. */
export interface Failure {
  /** Its channel, when it has no root message. */
  channel: string;
  cluster?: string;
  /** `Could not finish <what>: <reason>`. */
  what: string;
  /** A job with a root message (a check): the root's verdict once the failure is said in its thread. */
  rootVerdict?: VerdictView;
}

/**
 * A job failed for good: log it, say so once, in its root's thread (else its channel), and set
 * the root's verdict.
 */
export async function answerFailure(
  deps: RootDeps & { logger: Logger },
  once: (jobId: string, deliver: () => Promise<MessageRef>) => Promise<boolean>,
  jobId: string,
  failure: Failure,
  reason: string,
): Promise<void> {
  const logger = withFields(deps.logger, { jobId, ...(failure.cluster ? { cluster: failure.cluster } : {}) });
  logger.warn({ reason }, 'job failed for good');
  const root = failure.rootVerdict ? await deps.state.root(jobId) : undefined;
  const to: Destination = root ? { channel: root.channel, thread: root } : { channel: failure.channel };
  const posted = await once(jobId, () =>
    deps.chat.post(to, textView(`Could not finish ${failure.what}: ${reason}`, 'error')),
  );
  if (posted && root && failure.rootVerdict)
    await settleRootMessage(deps, jobId, root, failure.rootVerdict, logger);
}
