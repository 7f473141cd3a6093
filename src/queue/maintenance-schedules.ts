import type { Redis } from '../clients/redis.js';
import { clusterSchedulers, openSchedulerQueue } from './job-queue.js';
import type { MaintenanceJob } from './job-schemas.js';

const PREFIX = 'maintenance-defrag-';

/** When a cluster's window opens: a cron pattern in UTC, or (tests, demos) every N ms. */
export type MaintenanceRepeat = { pattern: string } | { everyMs: number };

/**
 * One BullMQ job scheduler per cluster with a defragmentation window (`maintenance-defrag-<cluster>`),
 * firing when the window opens. A scheduler lives in Redis, so it survives restarts; upserting the
 * same one again (every worker does at startup) changes nothing, and a slot is one job with a fixed
 * id, run once whichever worker takes it. The handler checks the window itself: a job that waited
 * past the window's close does nothing.
 */
export interface MaintenanceSchedules {
  /** Upserts the schedulers of `windows` and removes those of clusters without one any more. */
  reconcile(windows: Array<{ cluster: string; repeat: MaintenanceRepeat }>): Promise<{ removed: string[] }>;
  list(): Promise<Array<{ cluster: string; pattern: string | undefined; nextMs: number | undefined }>>;
  close(): Promise<void>;
}

export function maintenanceSchedulerId(cluster: string): string {
  return `${PREFIX}${cluster}`;
}

export function createMaintenanceSchedules(opts: {
  connection: Redis;
  prefix: string;
  name?: string;
}): MaintenanceSchedules {
  const queue = openSchedulerQueue(opts);
  const jobOptions = {
    // A window that failed is not retried into the day: the next window comes.
    attempts: 1,
    removeOnComplete: { age: 30 * 24 * 3600, count: 1000 },
    removeOnFail: { age: 30 * 24 * 3600, count: 1000 },
  };
  const schedulers = clusterSchedulers(queue, PREFIX);
  return {
    async reconcile(windows) {
      for (const { cluster, repeat } of windows) {
        const data: MaintenanceJob = { v: 1, kind: 'maintenance', cluster, task: 'defrag' };
        const repeatOpts =
          'everyMs' in repeat ? { every: repeat.everyMs } : { pattern: repeat.pattern, tz: 'UTC' };
        await queue.upsertJobScheduler(maintenanceSchedulerId(cluster), repeatOpts, {
          name: 'maintenance',
          data,
          opts: jobOptions,
        });
      }
      const removed = await schedulers.removeAllBut(windows.map((w) => w.cluster));
      return { removed };
    },
    async list() {
      return (await schedulers.all()).map((s) => ({
        cluster: schedulers.clusterOf(s.key),
        pattern: s.pattern ?? undefined,
        nextMs: s.next ?? undefined,
      }));
    },
    close: () => queue.close(),
  };
}
