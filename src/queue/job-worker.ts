import { Worker } from 'bullmq';
import type { RedisConnections } from '../clients/redis.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics/metrics.js';
import { relayFinalFailures } from './failure-relay.js';
import type { JobHandlers } from './job-handlers.js';
import { DEFAULT_QUEUE_NAME } from './job-queue.js';
import { jobDataSchema } from './job-schemas.js';
import { type AttemptLocks, type AttemptMetrics, createAttemptRunner, LET_GO } from './run-attempt.js';

export interface JobWorkerOptions {
  redis: RedisConnections;
  prefix: string;
  name?: string;
  /** Recorded on every job this worker runs (BullMQ `processedBy`). */
  workerName?: string;
  handlers: JobHandlers;
  clusterLocks: AttemptLocks;
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
  metrics?: AttemptMetrics & Pick<Metrics, 'watchQueue'>;
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

export function createJobWorker(opts: JobWorkerOptions): JobWorker {
  const name = opts.name ?? DEFAULT_QUEUE_NAME;
  const connection = opts.redis.bullOptions();
  const jobTimeoutMs = opts.jobTimeoutMs ?? DEFAULT_JOB_TIMEOUT_MS;
  // Attempts running in this process. A forced close lets them go: each run is aborted (it stops
  // touching the chat) and its job goes straight back to the queue for another worker. Without
  // this, a graceful close already waiting on the run would record it as completed, unanswered.
  const attempts = new Set<AbortController>();
  const logOnce = createErrorLogOnce(opts.logger);

  const relay = relayFinalFailures({
    name,
    prefix: opts.prefix,
    redis: opts.redis,
    failed: (jobId, data, reason, how) => opts.handlers.failed(jobId, data, reason, how),
    logger: opts.logger,
    logOnce,
  });
  opts.metrics?.watchQueue(name, relay.counts);
  const processJob = createAttemptRunner({ ...opts, name, jobTimeoutMs, attempts, queue: relay.queue });

  const worker = new Worker(name, processJob, {
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

  return {
    async ready() {
      await Promise.all([worker.waitUntilReady(), relay.ready()]);
    },
    pendingFailures: () => relay.pending(),
    counts: relay.counts,
    async close(force = false) {
      if (force) {
        for (const attempt of attempts) attempt.abort(LET_GO);
        void worker.close(true).catch(() => undefined);
        relay.drop();
        return;
      }
      await worker.close();
      await relay.close();
    },
  };
}

/** Several queues' workers in one process, as one: ready, closed and counted together (counts: the first's). */
export function joinWorkers(workers: readonly [JobWorker, ...JobWorker[]]): JobWorker {
  const [first] = workers;
  return {
    async ready() {
      await Promise.all(workers.map((w) => w.ready()));
    },
    pendingFailures: () => workers.reduce((n, w) => n + w.pendingFailures(), 0),
    counts: () => first.counts(),
    async close(force) {
      await Promise.all(workers.map((w) => w.close(force)));
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
