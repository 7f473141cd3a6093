import { Queue, QueueEvents } from 'bullmq';
import { disconnectUnlessEnded, type RedisConnections } from '../clients/redis.js';
import type { Logger } from '../logger.js';
import type { FailureHow } from './job-handlers.js';
import { type JobData, jobDataSchema } from './job-schemas.js';

/** BullMQ's reason for a job that stalled more often than maxStalledCount (moveStalledJobsToWait.lua). */
const STALLED_REASON = 'job stalled more than allowable limit';
/** The same, as a person reads it. */
export const WORKER_DIED =
  'the worker process running it stopped before it finished (killed, or out of memory)';

export interface FailureRelay {
  /** The worker's own handle on its queue (job lookups, child jobs, counts). */
  queue: Queue;
  counts(): Promise<Record<string, number>>;
  /** Final-failure answers still being sent. */
  pending(): number;
  ready(): Promise<void>;
  /** Waits for the answers being sent, then closes the listener, the queue and their connections. */
  close(): Promise<void>;
  /** Closes without waiting (a forced close, or Redis gone). */
  drop(): void;
}

/**
 * Final failures arrive as events so that a job failed by another process (a stalled job that ran
 * out of recoveries) still gets its answer: `failed` runs for each, in every worker process
 * that sees it (the handler answers at most once).
 */
export function relayFinalFailures(opts: {
  name: string;
  prefix: string;
  redis: RedisConnections;
  /** JobHandlers.failed: the job failed for good. */
  failed: (jobId: string, data: JobData | undefined, reason: string, how: FailureHow) => Promise<void>;
  logger: Logger;
  logOnce: (source: string, err: Error) => void;
}): FailureRelay {
  const { name, logOnce } = opts;
  const failing = new Set<Promise<void>>();
  // These two use connections we own: BullMQ cannot
  // close a QueueEvents while Redis is down (it waits for the connection first), but we can.
  const queueRedis = opts.redis.connect('etcd-doctor-worker-queue');
  const eventsRedis = opts.redis.connect('etcd-doctor-worker-events');
  for (const redis of [queueRedis, eventsRedis]) redis.on('error', (err: Error) => logOnce('redis', err));
  const queue = new Queue(name, { connection: queueRedis, prefix: opts.prefix });
  queue.on('error', (err) => logOnce('queue', err));
  const counts = () =>
    queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'waiting-children', 'failed');
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
      const workerDied = failedReason === STALLED_REASON;
      await opts.failed(
        jobId,
        parsed.success ? parsed.data : undefined,
        workerDied ? WORKER_DIED : failedReason,
        {
          workerDied,
        },
      );
    })()
      .catch((err: unknown) =>
        opts.logger.error({ jobId, err: String(err) }, 'could not answer a failed job'),
      )
      .finally(() => failing.delete(answering));
    failing.add(answering);
  });
  return {
    queue,
    counts,
    pending: () => failing.size,
    async ready() {
      await Promise.all([events.waitUntilReady(), queue.waitUntilReady()]);
    },
    async close() {
      await Promise.allSettled([...failing]);
      await events.close();
      await queue.close();
      await Promise.allSettled([queueRedis.quit(), eventsRedis.quit()]);
    },
    drop() {
      void events.close().catch(() => undefined);
      void queue.close().catch(() => undefined);
      disconnectUnlessEnded(queueRedis);
      disconnectUnlessEnded(eventsRedis);
    },
  };
}
