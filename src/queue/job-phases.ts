import { QueueEvents } from 'bullmq';
import type { Redis } from '../clients/redis.js';
import { DEFAULT_QUEUE_NAME } from './job-queue.js';

/**
 * Where a job is, as the queue's event stream tells it: `queued` (waiting, delayed, or put back
 * after a failed attempt, a busy cluster, a stall or a let-go), `taken` (a worker runs it and holds
 * it in memory), or `ended` (completed, failed for good, or removed).
 */
export type JobPhase = 'queued' | 'taken' | 'ended';

export interface JobPhaseEvents {
  /** Stops listening without waiting on Redis (which may be gone). */
  close(): void;
}

/**
 * Follows every job of the queue through BullMQ's event stream (QueueEvents: a blocking XREAD on
 * its own duplicate of `connection`). The stream lives in Redis, so after a blip the listener
 * resumes where it was; after a Redis that lost its data, it reads the new stream from its start.
 */
export function watchJobPhases(opts: {
  connection: Redis;
  prefix: string;
  name?: string;
  onPhase: (jobId: string, phase: JobPhase) => void;
  onError: (err: Error) => void;
}): JobPhaseEvents {
  const events = new QueueEvents(opts.name ?? DEFAULT_QUEUE_NAME, {
    connection: opts.connection,
    prefix: opts.prefix,
    blockingTimeout: 2000,
  });
  events.on('error', opts.onError);
  const to = (phase: JobPhase) => (args: { jobId: string }) => opts.onPhase(args.jobId, phase);
  for (const name of ['waiting', 'delayed', 'stalled'] as const) events.on(name, to('queued'));
  events.on('active', to('taken'));
  for (const name of ['completed', 'failed', 'removed'] as const) events.on(name, to('ended'));
  return {
    close() {
      void events.close().catch(() => undefined);
    },
  };
}
