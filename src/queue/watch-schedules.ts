import { createHash } from 'node:crypto';
import type { Redis } from '../clients/redis.js';
import { clusterSchedulers, openSchedulerQueue } from './job-queue.js';
import type { WatchJob } from './job-schemas.js';

const PREFIX = 'watch-';

/**
 * One BullMQ job scheduler per watched cluster (`watch-<cluster>`), repeating every interval. A
 * scheduler lives in Redis, so it survives restarts, and upserting the same one again (every worker
 * does at startup) changes nothing. Each is offset within its interval by a hash of the cluster's
 * name, so 200 clusters at 60 s fire about 0.3 s apart instead of all at once, and every replica
 * computes the same offset.
 */
export interface WatchSchedules {
  /** Upserts the schedulers of `watched` and removes those of clusters no longer watched. */
  reconcile(watched: Array<{ cluster: string; intervalSeconds: number }>): Promise<{ removed: string[] }>;
  /** The watched clusters' scheduler ids with their next run (epoch ms). */
  list(): Promise<Array<{ cluster: string; everyMs: number; nextMs: number | undefined }>>;
  close(): Promise<void>;
}

export function watchSchedulerId(cluster: string): string {
  return `${PREFIX}${cluster}`;
}

/** A stable offset within `everyMs` for this cluster: the first 4 bytes of its name's SHA-1. */
export function watchOffsetMs(cluster: string, everyMs: number): number {
  return createHash('sha1').update(cluster).digest().readUInt32BE(0) % everyMs;
}

export function createWatchSchedules(opts: {
  connection: Redis;
  prefix: string;
  name?: string;
}): WatchSchedules {
  const queue = openSchedulerQueue(opts);
  const jobOptions = {
    // A check that fails is not retried: the next one comes within an interval.
    attempts: 1,
    removeOnComplete: { age: 3600, count: 500 },
    removeOnFail: { age: 24 * 3600, count: 500 },
  };
  const schedulers = clusterSchedulers(queue, PREFIX);
  return {
    async reconcile(watched) {
      for (const { cluster, intervalSeconds } of watched) {
        const everyMs = intervalSeconds * 1000;
        const data: WatchJob = { v: 1, kind: 'watch', cluster, intervalSeconds };
        await queue.upsertJobScheduler(
          watchSchedulerId(cluster),
          { every: everyMs, offset: watchOffsetMs(cluster, everyMs) },
          { name: 'watch', data, opts: jobOptions },
        );
      }
      const removed = await schedulers.removeAllBut(watched.map((w) => w.cluster));
      return { removed };
    },
    async list() {
      return (await schedulers.all()).map((s) => ({
        cluster: schedulers.clusterOf(s.key),
        everyMs: Number(s.every ?? 0),
        nextMs: s.next ?? undefined,
      }));
    },
    close: () => queue.close(),
  };
}
