import { DelayedError, type Job, type Queue, UnrecoverableError, WaitingError } from 'bullmq';
import { formatZodError } from '../config/load-config.js';
import { type Logger, withFields } from '../logger.js';
import type { Metrics } from '../metrics/metrics.js';
import type { JobState } from '../state/job-state.js';
import type { HeldLock } from '../state/owned-lock.js';
import { childJobs, isParked } from './child-jobs.js';
import { changesCluster, type JobHandlers, lockedCluster, minTimeoutMs } from './job-handlers.js';
import { jobDataSchema } from './job-schemas.js';
import { isTransient, withTimeout } from './retry-policy.js';

/** Why a forced close aborts a running attempt. */
export const LET_GO = new Error('the worker is shutting down: the job goes back to the queue');
/** A cluster busy with another job: look again after this long. */
const CLUSTER_BUSY_RETRY_MS = 500;
/** The per-cluster lock expires this long after a worker stops renewing it (e.g. it died). */
const CLUSTER_LOCK_TTL_MS = 15_000;
/** Overall time for one remediation (a defragmentation pauses between members). */
const DEFAULT_REMEDIATION_TIMEOUT_MS = 30 * 60_000;

export type AttemptLocks = Pick<JobState, 'holdClusterLock'>;
export type AttemptMetrics = Pick<Metrics, 'jobFinished' | 'error'>;

export interface AttemptOptions {
  handlers: JobHandlers;
  clusterLocks: AttemptLocks;
  logger: Logger;
  metrics?: AttemptMetrics;
  remediationTimeoutMs?: number;
  name: string;
  jobTimeoutMs: number;
  /** Attempts running in this process that a forced close may let go (read-only ones). */
  attempts: Set<AbortController>;
  /** The worker's queue, for child jobs. */
  queue: Queue;
}

/**
 * BullMQ's processor: one attempt at one job. The payload is checked; a check or alert holds its
 * cluster's lock (or the job waits 500 ms for it); the handler runs under the job's timeout and can
 * be let go by a forced close; the outcome is counted, and the error says whether to retry.
 */
export function createAttemptRunner(opts: AttemptOptions): (job: Job, token?: string) => Promise<unknown> {
  return async (job, token) => {
    const parsed = jobDataSchema.safeParse(job.data);
    if (!parsed.success) throw new UnrecoverableError(`invalid job payload: ${formatZodError(parsed.error)}`);
    const data = parsed.data;
    const jobId = job.id ?? '';
    const started = performance.now();
    const finished = (outcome: string) =>
      opts.metrics?.jobFinished(opts.name, data.kind, outcome, (performance.now() - started) / 1000);
    // Checks, alert triage and watch checks hold their cluster's lock (job-handlers.ts says which).
    const cluster = lockedCluster(data);
    // Every line logged while handling this job names it and its cluster.
    const logger = withFields(opts.logger, { jobId, kind: data.kind, ...(cluster ? { cluster } : {}) });
    const lock = cluster ? await holdCluster(opts, cluster, jobId, logger) : undefined;
    if (cluster && !lock) {
      await job.moveToDelayed(Date.now() + CLUSTER_BUSY_RETRY_MS, token);
      finished('delayed');
      throw new DelayedError();
    }
    const attempt = new AbortController();
    // Read-only work can be handed over. A remediation is never run twice at once: it keeps its job
    // until it ends (or the process dies, and the stalled check hands it over then).
    if (!changesCluster(data)) opts.attempts.add(attempt);
    const letGo = new Promise<never>((_, reject) =>
      attempt.signal.addEventListener('abort', () => reject(attempt.signal.reason), { once: true }),
    );
    letGo.catch(() => undefined);
    let run: RunWatch | undefined;
    try {
      const work = opts.handlers.run(data, {
        jobId,
        attempt: job.attemptsMade + 1,
        signal: attempt.signal,
        logger,
        children: childJobs(job, token, opts.queue),
        // Only while this job is still the one requests join (BullMQ checks the key's owner).
        answered: () =>
          job.removeDeduplicationKey().then(
            () => undefined,
            () => undefined,
          ),
      });
      run = watchRun(work, attempt.signal, logger);
      const limitMs = changesCluster(data)
        ? (opts.remediationTimeoutMs ?? DEFAULT_REMEDIATION_TIMEOUT_MS)
        : Math.max(opts.jobTimeoutMs, minTimeoutMs(data));
      const result = await withTimeout(
        Promise.race([work, letGo]),
        limitMs,
        `it did not finish within ${Math.round(limitMs / 1000)} s`,
      );
      finished('completed');
      return result;
    } catch (err) {
      throw await settleFailure(err, job, token, finished, opts);
    } finally {
      run?.attemptOver();
      attempt.abort();
      opts.attempts.delete(attempt);
      await lock?.release();
    }
  };
}

/** The per-cluster lock: one job per cluster across every worker. */
function holdCluster(
  opts: AttemptOptions,
  cluster: string,
  jobId: string,
  logger: Logger,
): Promise<HeldLock | undefined> {
  return opts.clusterLocks.holdClusterLock(cluster, jobId, {
    ttlMs: CLUSTER_LOCK_TTL_MS,
    // Read-only work goes on (a second diagnosis at worst); the lapse is logged, never swallowed.
    onLost: (reason) => logger.warn({ reason }, 'the per-cluster job lock lapsed while the job ran'),
  });
}

/** What BullMQ is told when an attempt ends in an error: back to the queue, parked, retry, or fail. */
async function settleFailure(
  err: unknown,
  job: Job,
  token: string | undefined,
  finished: (outcome: string) => void,
  opts: Pick<AttemptOptions, 'metrics'>,
): Promise<unknown> {
  if (err === LET_GO) {
    // Back to waiting at once, attempts unchanged: another worker takes it now, not after the
    // lock expires. With Redis gone this fails, and the job is recovered as stalled later.
    await job.moveToWait(token).catch(() => undefined);
    finished('let-go');
    return new WaitingError();
  }
  if (isParked(err)) {
    finished('waiting-children');
    return err;
  }
  finished('failed');
  opts.metrics?.error('job');
  if (isTransient(err)) return err;
  return new UnrecoverableError(err instanceof Error ? err.message : String(err));
}

interface RunWatch {
  /** The attempt has ended: if the run has not, it is abandoned, and its end is logged. */
  attemptOver(): void;
}

/**
 * A run its attempt gave up on (timed out, let go at shutdown) is told by the attempt's signal and
 * stops its probes (a run that ignores the signal goes on until they end). The log says when and
 * how, so an operator (or a test) knows it is over. Watch `work` before racing it: for a run that
 * ends normally, this sees the end before the attempt does.
 */
function watchRun(work: Promise<unknown>, signal: AbortSignal, logger: Logger): RunWatch {
  let runOver = false;
  let abandoned = false;
  // `ended`: the run came to its end anyway; `stopped`: it gave up when its attempt's signal aborted
  // (which can be before the attempt itself is over: a let-go run stops at once).
  const ended = (how: 'ended' | 'stopped') => {
    runOver = true;
    if (abandoned || (how === 'stopped' && signal.aborted))
      logger.info({ how }, 'an abandoned run has ended');
  };
  work.then(
    () => ended('ended'),
    () => ended('stopped'),
  );
  return {
    attemptOver() {
      abandoned = !runOver;
    },
  };
}
