import {
  DelayedError,
  type Job,
  Queue,
  QueueEvents,
  UnrecoverableError,
  WaitingChildrenError,
  WaitingError,
  Worker,
} from 'bullmq';
import type { RedisConnections } from '../clients/redis.js';
import { formatZodError } from '../config/load-config.js';
import { type Logger, withFields } from '../logger.js';
import type { Metrics } from '../metrics/metrics.js';
import type { JobState } from '../state/job-state.js';
import { DEFAULT_QUEUE_NAME } from './job-queue.js';
import { type JobData, jobDataSchema } from './job-schemas.js';
import { isTransient, withTimeout } from './retry-policy.js';

/**
 * A job that hands work out to other workers as child jobs (BullMQ parent/child), and is run again
 * once they have all finished.
 */
export interface ChildJobs {
  /**
   * Adds `parts` as this job's children (their ids are fixed, so adding them again after a crash
   * adds nothing), saves `next` as this job's data, and parks the job until the children finish:
   * it throws, and the handler must let that through (see `isParked`). Resolves instead when every
   * child has already finished, and the handler goes straight on to `results()`.
   */
  fanOut(parts: JobData[], next: JobData): Promise<void>;
  /** What the finished children returned, and why the failed ones failed. */
  results(): Promise<{ values: unknown[]; failures: string[] }>;
}

/** The job was parked to wait for its children (ChildJobs.fanOut): not a failure, do not clean up. */
export function isParked(err: unknown): boolean {
  return err instanceof WaitingChildrenError;
}

export interface JobHandlers {
  /**
   * `signal` aborts when this attempt is over for the queue (timed out, or failed): a run still
   * going after that is abandoned and must not touch the chat any more.
   */
  run(
    data: JobData,
    info: { jobId: string; attempt: number; signal: AbortSignal; logger?: Logger; children?: ChildJobs },
  ): Promise<unknown>;
  /**
   * The job failed for good (unrecoverable, out of tries, or stalled too often). Called in every
   * worker process that sees the event, so it must answer at most once (JobState.claimAnswer).
   */
  failed(jobId: string, data: JobData | undefined, reason: string): Promise<void>;
}

export interface JobWorkerOptions {
  redis: RedisConnections;
  prefix: string;
  name?: string;
  /** Recorded on every job this worker runs (BullMQ `processedBy`). */
  workerName?: string;
  handlers: JobHandlers;
  clusterLocks: Pick<JobState, 'holdClusterLock'>;
  logger: Logger;
  /** Jobs at once in this process (different clusters; one per cluster across all workers). Default 4. */
  concurrency?: number;
  /** Overall time for one job. Default 120 s. */
  jobTimeoutMs?: number;
  /** Overall time for one remediation (a defragmentation pauses between members). Default 30 min. */
  remediationTimeoutMs?: number;
  /** A worker that stops renewing its job lock for this long is taken for dead. Default 15 s. */
  lockDurationMs?: number;
  /** How often to look for jobs whose worker died. Default 5 s. */
  stalledIntervalMs?: number;
  /** Recoveries after a dead worker before the job fails. Default 2. */
  maxStalledCount?: number;
  /** Jobs by outcome, job durations, errors and the queue depth on /metrics. */
  metrics?: Pick<Metrics, 'jobFinished' | 'error' | 'watchQueue'>;
}

export interface JobWorker {
  /** Resolves once the worker and its failure listener are connected. */
  ready(): Promise<void>;
  /** Final-failure answers still being sent. */
  pendingFailures(): number;
  /**
   * Waits for running jobs, unless `force`: then their read-only runs are aborted (they stop touching
   * the chat) and their jobs go back to the queue for another worker; with Redis gone, the stalled
   * check hands them over once it is back.
   */
  close(force?: boolean): Promise<void>;
  /** Jobs by state (waiting, active, delayed, ...); throws when Redis is unreachable. */
  counts(): Promise<Record<string, number>>;
}

/** How long one check, diagnosis, digest or alert job may run (remediation has its own). */
export const DEFAULT_JOB_TIMEOUT_MS = 120_000;
/** A cluster busy with another job: look again after this long. */
const CLUSTER_BUSY_RETRY_MS = 500;
/** Why a forced close aborts a running attempt. */
const LET_GO = new Error('the worker is shutting down: the job goes back to the queue');
/** Finished child jobs stay this long (their parent reads their results from its own keys). */
const CHILD_RETENTION_SECONDS = 24 * 3600;
/** The per-cluster lock expires this long after a worker stops renewing it (e.g. it died). */
const CLUSTER_LOCK_TTL_MS = 15_000;

export function createJobWorker(opts: JobWorkerOptions): JobWorker {
  const name = opts.name ?? DEFAULT_QUEUE_NAME;
  const connection = opts.redis.bullOptions();
  const jobTimeoutMs = opts.jobTimeoutMs ?? DEFAULT_JOB_TIMEOUT_MS;
  const failing = new Set<Promise<void>>();
  // Attempts running in this process. A forced close lets them go: each run is aborted (it stops
  // touching the chat) and its job goes straight back to the queue for another worker. Without
  // this, a graceful close already waiting on the run would record it as completed, unanswered.
  const attempts = new Set<AbortController>();
  const logOnce = createErrorLogOnce(opts.logger);

  const process = async (job: Job, token?: string): Promise<unknown> => {
    const parsed = jobDataSchema.safeParse(job.data);
    if (!parsed.success) throw new UnrecoverableError(`invalid job payload: ${formatZodError(parsed.error)}`);
    const data = parsed.data;
    const jobId = job.id ?? '';
    const started = performance.now();
    const finished = (outcome: string) =>
      opts.metrics?.jobFinished(name, data.kind, outcome, (performance.now() - started) / 1000);
    // Alert triage holds the cluster lock too, so a resolved notification waits for its firing one;
    // a watch check too, so its kept scrapes and incident have one writer.
    const cluster =
      data.kind === 'check' || data.kind === 'alert' || data.kind === 'watch' ? data.cluster : undefined;
    // Every line logged while handling this job names it and its cluster.
    const logger = withFields(opts.logger, { jobId, kind: data.kind, ...(cluster ? { cluster } : {}) });
    const lock = cluster
      ? await opts.clusterLocks.holdClusterLock(cluster, jobId, {
          ttlMs: CLUSTER_LOCK_TTL_MS,
          // Read-only work goes on (a second diagnosis at worst); the lapse is logged, never swallowed.
          onLost: (reason) => logger.warn({ reason }, 'the per-cluster job lock lapsed while the job ran'),
        })
      : undefined;
    if (cluster && !lock) {
      await job.moveToDelayed(Date.now() + CLUSTER_BUSY_RETRY_MS, token);
      finished('delayed');
      throw new DelayedError();
    }
    const attempt = new AbortController();
    // Read-only work can be handed over. A remediation is never run twice at once: it keeps its job
    // until it ends (or the process dies, and the stalled check hands it over then).
    if (data.kind !== 'remediate') attempts.add(attempt);
    const letGo = new Promise<never>((_, reject) =>
      attempt.signal.addEventListener('abort', () => reject(attempt.signal.reason), { once: true }),
    );
    letGo.catch(() => undefined);
    try {
      const work = opts.handlers.run(data, {
        jobId,
        attempt: job.attemptsMade + 1,
        signal: attempt.signal,
        logger,
        children: childJobs(job, token),
      });
      const limitMs = data.kind === 'remediate' ? (opts.remediationTimeoutMs ?? 30 * 60_000) : jobTimeoutMs;
      const result = await withTimeout(
        Promise.race([work, letGo]),
        limitMs,
        `it did not finish within ${Math.round(limitMs / 1000)} s`,
      );
      finished('completed');
      return result;
    } catch (err) {
      if (err === LET_GO) {
        // Back to waiting at once, attempts unchanged: another worker takes it now, not after the
        // lock expires. With Redis gone this fails, and the job is recovered as stalled later.
        await job.moveToWait(token).catch(() => undefined);
        finished('let-go');
        throw new WaitingError();
      }
      if (isParked(err)) {
        finished('waiting-children');
        throw err;
      }
      finished('failed');
      opts.metrics?.error('job');
      if (isTransient(err)) throw err;
      throw new UnrecoverableError(err instanceof Error ? err.message : String(err));
    } finally {
      attempt.abort();
      attempts.delete(attempt);
      await lock?.release();
    }
  };

  const childJobs = (job: Job, token: string | undefined): ChildJobs => ({
    async fanOut(parts, next) {
      const parent = { id: job.id ?? '', queue: job.queueQualifiedName };
      await queue.addBulk(
        parts.map((data, i) => ({
          name: data.kind,
          data,
          opts: {
            jobId: `${parent.id}-part-${i}`,
            parent,
            // A part that fails for good is recorded, and the parent still runs: its clusters are
            // reported as not checked instead of the whole digest waiting forever.
            ignoreDependencyOnFailure: true,
            attempts: 2,
            backoff: { type: 'fixed', delay: 1000 },
            removeOnComplete: { age: CHILD_RETENTION_SECONDS },
            removeOnFail: { age: CHILD_RETENTION_SECONDS },
          },
        })),
      );
      await job.updateData(next);
      if (await job.moveToWaitingChildren(token ?? '')) throw new WaitingChildrenError();
    },
    async results() {
      const [values, failures] = await Promise.all([
        job.getChildrenValues(),
        job.getIgnoredChildrenFailures(),
      ]);
      return { values: Object.values(values), failures: Object.values(failures) };
    },
  });

  const worker = new Worker(name, process, {
    connection,
    prefix: opts.prefix,
    ...(opts.workerName ? { name: opts.workerName } : {}),
    concurrency: opts.concurrency ?? 4,
    // A dead worker's job is recovered within lock + stall check (~20 s): the user is waiting.
    // The lock is renewed every lockDuration / 2, far more often than a diagnosis blocks the loop.
    lockDuration: opts.lockDurationMs ?? 15_000,
    stalledInterval: opts.stalledIntervalMs ?? 5_000,
    maxStalledCount: opts.maxStalledCount ?? 2,
  });
  worker.on('error', (err) => {
    opts.metrics?.error('redis');
    logOnce('worker', err);
  });
  worker.on('failed', (job, err) => {
    const cluster = jobDataSchema.safeParse(job?.data);
    opts.logger.warn(
      {
        jobId: job?.id,
        ...(cluster.success && 'cluster' in cluster.data ? { cluster: cluster.data.cluster } : {}),
        attempt: job?.attemptsMade,
        err: err.message,
      },
      'job attempt failed',
    );
  });

  // Final failures arrive as events so that a job failed by another process (a stalled job that
  // ran out of recoveries) still gets its answer. These two use connections we own: BullMQ cannot
  // close a QueueEvents while Redis is down (it waits for the connection first), but we can.
  const queueRedis = opts.redis.connect('etcd-doctor-worker-queue');
  const eventsRedis = opts.redis.connect('etcd-doctor-worker-events');
  for (const redis of [queueRedis, eventsRedis]) redis.on('error', (err: Error) => logOnce('redis', err));
  const queue = new Queue(name, { connection: queueRedis, prefix: opts.prefix });
  queue.on('error', (err) => logOnce('queue', err));
  const counts = () =>
    queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'waiting-children', 'failed');
  opts.metrics?.watchQueue(name, counts);
  const events = new QueueEvents(name, {
    connection: eventsRedis,
    prefix: opts.prefix,
    blockingTimeout: 2000,
  });
  events.on('error', (err) => logOnce('events', err));
  events.on('failed', ({ jobId, failedReason }) => {
    const answering = (async () => {
      const job = await queue.getJob(jobId);
      const parsed = jobDataSchema.safeParse(job?.data);
      await opts.handlers.failed(jobId, parsed.success ? parsed.data : undefined, failedReason);
    })()
      .catch((err: unknown) =>
        opts.logger.error({ jobId, err: String(err) }, 'could not answer a failed job'),
      )
      .finally(() => failing.delete(answering));
    failing.add(answering);
  });

  return {
    async ready() {
      await Promise.all([worker.waitUntilReady(), events.waitUntilReady(), queue.waitUntilReady()]);
    },
    pendingFailures: () => failing.size,
    counts,
    async close(force = false) {
      if (force) {
        for (const attempt of attempts) attempt.abort(LET_GO);
        void worker.close(true).catch(() => undefined);
        void events.close().catch(() => undefined);
        void queue.close().catch(() => undefined);
        queueRedis.disconnect();
        eventsRedis.disconnect();
        return;
      }
      await worker.close();
      await Promise.allSettled([...failing]);
      await events.close();
      await queue.close();
      await Promise.allSettled([queueRedis.quit(), eventsRedis.quit()]);
    },
  };
}

/** Redis down means an error event per reconnect attempt; log the first of each kind per outage. */
function createErrorLogOnce(logger: Logger): (source: string, err: Error) => void {
  const seen = new Set<string>();
  return (source, err) => {
    const key = `${source}:${err.message}`;
    if (seen.has(key)) return;
    seen.add(key);
    logger.warn({ source, err: err.message }, 'queue connection problem (logged once)');
  };
}
