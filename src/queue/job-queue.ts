import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import type { Redis } from '../clients/redis.js';
import { EtcdDoctorError } from '../errors.js';
import { deduplicationId, jobIdFor, onAnalyzeQueue } from './job-handlers.js';
import type { JobData } from './job-schemas.js';

export const DEFAULT_QUEUE_NAME = 'jobs';
/**
 * Files shared in chat are analysed on a queue of their own, with its own workers' concurrency and
 * no stalled-job recovery: untrusted input never takes a slot beside a remediation, and an analysis
 * whose process died is answered, not handed to the next worker to kill it too.
 */
export const ANALYZE_QUEUE_NAME = 'analyze';

/** The queue a job goes to. */
export function queueNameFor(data: Pick<JobData, 'kind'>, main = DEFAULT_QUEUE_NAME): string {
  return onAnalyzeQueue(data) ? ANALYZE_QUEUE_NAME : main;
}

export interface JobQueueOptions {
  connection: Redis;
  /** Redis key prefix; tests isolate by it. */
  prefix: string;
  name?: string;
  /** A human is waiting for the ack (Slack allows 3 s in all). Default 1500 ms. */
  enqueueTimeoutMs?: number;
  /** Tries per job, for transient errors only. Default 3. */
  attempts?: number;
  /** First retry delay, doubling. Default 2000 ms. */
  backoffMs?: number;
}

export interface EnqueueOutcome {
  jobId: string;
  /** An equal job was already waiting or running: this request joined it. */
  joined: boolean;
}

export interface JobQueue {
  readonly name: string;
  /** Every queue jobs go to (the jobs queue, the analyze queue), for their depths on /metrics. */
  readonly queues: ReadonlyArray<{ name: string; counts(): Promise<Record<string, number>> }>;
  /** Throws `queue_unavailable` when Redis does not take the job in time. */
  enqueue(data: JobData): Promise<EnqueueOutcome>;
  /** Whether Redis still holds the job (waiting, running, or kept after its end). */
  exists(jobId: string): Promise<boolean>;
  /** Jobs waiting, delayed or running; throws when Redis is unreachable. */
  unfinishedCount(): Promise<number>;
  /** Jobs by state (waiting, active, delayed, ...), for the queue depth on /metrics. */
  counts(): Promise<Record<string, number>>;
  close(): Promise<void>;
}

export const QUEUE_UNAVAILABLE = 'the queue is unavailable (Redis does not answer), try again in a minute';

/** The jobs queue as the schedulers use it (digest, watch): no default job options, errors left to the connection's log. */
export function openSchedulerQueue(opts: { connection: Redis; prefix: string; name?: string }): Queue {
  const queue = new Queue(opts.name ?? DEFAULT_QUEUE_NAME, {
    connection: opts.connection,
    prefix: opts.prefix,
  });
  queue.on('error', () => undefined); // the connection logs its own errors
  return queue;
}

/**
 * The job schedulers of one kind, one per cluster (`<idPrefix><cluster>`, the watch's and the
 * maintenance windows'): the ones there are, and removing those of clusters no longer in the config.
 */
export function clusterSchedulers(queue: Queue, idPrefix: string) {
  const all = async () => (await queue.getJobSchedulers(0, -1)).filter((s) => s.key.startsWith(idPrefix));
  return {
    all,
    clusterOf: (key: string) => key.slice(idPrefix.length),
    /** Removes every scheduler of this kind whose cluster is not in `keep`; the clusters removed. */
    async removeAllBut(keep: ReadonlyArray<string>): Promise<string[]> {
      const kept = new Set(keep.map((cluster) => `${idPrefix}${cluster}`));
      const removed: string[] = [];
      for (const s of await all()) {
        if (kept.has(s.key)) continue;
        await queue.removeJobScheduler(s.key);
        removed.push(s.key.slice(idPrefix.length));
      }
      return removed;
    },
  };
}

export function createJobQueue(opts: JobQueueOptions): JobQueue {
  const main = opts.name ?? DEFAULT_QUEUE_NAME;
  const byName = new Map([main, ANALYZE_QUEUE_NAME].map((name) => [name, openJobQueue(name, opts)]));
  const all = [...byName.values()];
  const queueFor = (data: JobData) => byName.get(queueNameFor(data, main)) as Queue;
  const timeoutMs = opts.enqueueTimeoutMs ?? 1500;
  const counts = (queue: Queue) => () =>
    queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'waiting-children', 'failed');
  return {
    name: main,
    queues: all.map((queue) => ({ name: queue.name, counts: counts(queue) })),
    counts: counts(byName.get(main) as Queue),
    async enqueue(data) {
      const started = Date.now();
      if (!(await connected(opts.connection, timeoutMs)))
        throw new EtcdDoctorError('queue_unavailable', QUEUE_UNAVAILABLE);
      return addInTime(queueFor(data), data, jobIdFor(data, randomUUID()), started, timeoutMs);
    },
    async exists(jobId) {
      for (const queue of all) if ((await queue.getJob(jobId)) !== undefined) return true;
      return false;
    },
    async unfinishedCount() {
      let total = 0;
      for (const queue of all) {
        const counts = await queue.getJobCounts(
          'waiting',
          'active',
          'delayed',
          'prioritized',
          'waiting-children',
        );
        total += Object.values(counts).reduce((a, b) => a + b, 0);
      }
      return total;
    },
    close: async () => {
      await Promise.all(all.map((queue) => queue.close()));
    },
  };
}

/** A queue jobs go to, with the jobs' retries and how long finished jobs are kept. */
function openJobQueue(name: string, opts: JobQueueOptions): Queue {
  const queue = new Queue(name, {
    connection: opts.connection,
    prefix: opts.prefix,
    defaultJobOptions: {
      attempts: opts.attempts ?? 3,
      backoff: { type: 'exponential', delay: opts.backoffMs ?? 2000 },
      removeOnComplete: { age: 3600, count: 1000 },
      removeOnFail: { age: 7 * 24 * 3600, count: 1000 },
    },
  });
  queue.on('error', () => undefined); // connection errors surface as failed adds; the connection logs them
  return queue;
}

/**
 * Adds the job, or throws `queue_unavailable` when Redis has not taken it `timeoutMs` after
 * `started`; a job that lands later is removed.
 */
async function addInTime(
  queue: Queue,
  data: JobData,
  jobId: string,
  started: number,
  timeoutMs: number,
): Promise<EnqueueOutcome> {
  const adding = queue.add(data.kind, data, {
    jobId,
    deduplication: { id: deduplicationId(data) },
  });
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), Math.max(0, timeoutMs - (Date.now() - started)));
  });
  try {
    const job = await Promise.race([adding, timedOut]);
    if (job === 'timeout') {
      // The user is told it failed, so a job that lands late must not run.
      adding.then((late) => (late.id === jobId ? late.remove() : undefined)).catch(() => undefined);
      throw new EtcdDoctorError('queue_unavailable', QUEUE_UNAVAILABLE);
    }
    return { jobId: job.id ?? jobId, joined: job.id !== jobId };
  } catch (err) {
    if (err instanceof EtcdDoctorError) throw err;
    throw new EtcdDoctorError('queue_unavailable', QUEUE_UNAVAILABLE, { cause: err });
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Waits (at most `timeoutMs`) for the connection to be up: at startup, or while it reconnects after a
 * blip. A connection that is down answers the user within the same bound.
 */
function connected(redis: Redis, timeoutMs: number): Promise<boolean> {
  if (redis.status === 'ready') return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      clearTimeout(timer);
      redis.off('ready', onReady);
      resolve(ok);
    };
    const onReady = () => done(true);
    const timer = setTimeout(() => done(false), timeoutMs);
    redis.on('ready', onReady);
  });
}
