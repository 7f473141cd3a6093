import type { Redis } from '../clients/redis.js';
import { openSchedulerQueue } from './job-queue.js';
import type { DigestJob } from './job-schemas.js';

/** How a channel's digest repeats: a daily cron in a time zone, or (tests, demos) every N ms. */
export type DigestRepeat = { pattern: string; tz: string } | { everyMs: number };

/**
 * BullMQ job schedulers for digests, one per channel (`digest-<channel>`). A scheduler lives in Redis,
 * so it survives restarts; upserting the same one again (every replica does at startup) changes
 * nothing, and each slot is one job with a fixed id (`repeat:<scheduler>:<slot ms>`).
 */
export interface DigestSchedules {
  upsert(channel: string, repeat: DigestRepeat, template: DigestJob): Promise<void>;
  remove(channel: string): Promise<boolean>;
  /** A missed slot, sent late; replicas that find the same slot add the same job id, so it is added once. */
  addCatchUp(job: DigestJob & { slotMs: number }): Promise<void>;
  /** Now, outside any schedule (`etcd-doctor digest --now`). */
  addNow(job: DigestJob): Promise<string>;
  close(): Promise<void>;
}

export function schedulerId(channel: string): string {
  return `digest-${channel}`;
}

/** The slot of a job a scheduler made, from its id `repeat:<scheduler id>:<slot ms>`. */
export function slotOfSchedulerJob(jobId: string): number | undefined {
  const match = /^repeat:digest-[^:]+:(\d+)$/.exec(jobId);
  return match ? Number(match[1]) : undefined;
}

export function createDigestSchedules(opts: {
  connection: Redis;
  prefix: string;
  name?: string;
}): DigestSchedules {
  const queue = openSchedulerQueue(opts);
  const jobOptions = {
    attempts: 3,
    backoff: { type: 'exponential', delay: 2000 },
    removeOnComplete: { age: 7 * 24 * 3600, count: 1000 },
    removeOnFail: { age: 7 * 24 * 3600, count: 1000 },
  };
  return {
    async upsert(channel, repeat, template) {
      const repeatOpts =
        'everyMs' in repeat ? { every: repeat.everyMs } : { pattern: repeat.pattern, tz: repeat.tz };
      await queue.upsertJobScheduler(schedulerId(channel), repeatOpts, {
        name: 'digest',
        data: template,
        opts: jobOptions,
      });
    },
    remove: (channel) => queue.removeJobScheduler(schedulerId(channel)),
    async addCatchUp(job) {
      // Custom job ids may not contain ':'; channel ids are [A-Z0-9].
      await queue.add('digest', job, { ...jobOptions, jobId: `digest-late-${job.channel}-${job.slotMs}` });
    },
    async addNow(job) {
      const added = await queue.add('digest', job, jobOptions);
      return added.id ?? '';
    },
    close: () => queue.close(),
  };
}
