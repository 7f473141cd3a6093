import type { Redis } from 'ioredis';
import { type DayTrends, dayTrendsOfText } from '../history/day-trends.js';
import { type MinuteSample, minuteSampleSchema, rollUp } from '../history/minute-sample.js';

/**
 * The watch's minute history: every check of a watched cluster at full resolution for a day, and
 * 5-minute roll-ups for two weeks. The digest's 30-day history (history-store.ts) keeps one
 * diagnosis summary per run; this one keeps what a chart or a "since when" needs.
 */
export interface MinuteHistory {
  record(cluster: string, sample: MinuteSample): Promise<void>;
  /** Full-resolution samples at or after `sinceMs`, oldest first (at most the last day). */
  samples(cluster: string, sinceMs: number, untilMs?: number): Promise<MinuteSample[]>;
  /** 5-minute roll-ups whose period starts at or after `sinceMs`, oldest first. */
  rollups(cluster: string, sinceMs: number, untilMs?: number): Promise<MinuteSample[]>;
  /**
   * One series from `sinceMs` on: roll-ups where full resolution is gone, samples after. What a
   * chart over a week or a "since when" that reaches past a day reads.
   */
  series(cluster: string, sinceMs: number): Promise<MinuteSample[]>;
  /**
   * The day's trends from the roll-ups of periods starting at or after `sinceMs` (the digest's),
   * folded as they are read: no day of parsed samples is held. Undefined without any.
   */
  day(cluster: string, sinceMs: number): Promise<DayTrends | undefined>;
  /** Bytes Redis uses for the cluster's minute history (both keys, MEMORY USAGE). */
  memoryBytes(cluster: string): Promise<number>;
}

export interface MinuteRetention {
  fullMs: number;
  rollupMs: number;
  rollupPeriodMs: number;
  /** Caps per cluster whatever the rate: a day at the smallest interval (5 s), two weeks of 5 min. */
  maxSamples: number;
  maxRollups: number;
}

const HOUR = 3600_000;
export const MINUTE_RETENTION: MinuteRetention = {
  fullMs: 24 * HOUR,
  rollupMs: 14 * 24 * HOUR,
  rollupPeriodMs: 5 * 60_000,
  maxSamples: (24 * HOUR) / 5000,
  maxRollups: (14 * 24 * HOUR) / (5 * 60_000) + 1,
};

/**
 * Two sorted sets per cluster, scored by time: `<prefix>:minutes:<cluster>` (samples) and
 * `<prefix>:minutes5:<cluster>` (roll-ups, one member per period). Every write folds the sample
 * into its period's roll-up, trims both sets by age and by count and sets their expiry, so memory
 * stays bounded and a cluster no longer watched leaves nothing behind. A cluster's checks run one
 * at a time (one job scheduler, one cluster lock), so the roll-up's read-fold-write has one writer.
 */
export function createMinuteHistory(
  redis: Redis,
  prefix: string,
  now: () => number,
  retention: MinuteRetention = MINUTE_RETENTION,
): MinuteHistory {
  const full = (cluster: string) => `${prefix}:minutes:${cluster}`;
  const five = (cluster: string) => `${prefix}:minutes5:${cluster}`;
  const read = async (key: string, since: number, until: number | string | undefined) =>
    parseAll(await redis.zrangebyscore(key, since, until ?? '+inf'));
  const history: MinuteHistory = {
    async record(cluster, sample) {
      const period = sample.t - (sample.t % retention.rollupPeriodMs);
      const [previous] = await read(five(cluster), period, period);
      const rollup = rollUp(previous, sample, period);
      const at = now();
      await redis
        .multi()
        .zadd(full(cluster), sample.t, JSON.stringify(sample))
        .zremrangebyscore(full(cluster), '-inf', `(${at - retention.fullMs}`)
        .zremrangebyrank(full(cluster), 0, -(retention.maxSamples + 1))
        .pexpire(full(cluster), retention.fullMs)
        .zremrangebyscore(five(cluster), period, period)
        .zadd(five(cluster), period, JSON.stringify(rollup))
        .zremrangebyscore(five(cluster), '-inf', `(${at - retention.rollupMs}`)
        .zremrangebyrank(five(cluster), 0, -(retention.maxRollups + 1))
        .pexpire(five(cluster), retention.rollupMs)
        .exec();
    },
    samples: (cluster, since, until) => read(full(cluster), since, until),
    rollups: (cluster, since, until) => read(five(cluster), since, until),
    async series(cluster, sinceMs) {
      const samples = await history.samples(cluster, sinceMs);
      const firstFull = samples[0]?.t ?? Number.POSITIVE_INFINITY;
      if (firstFull <= sinceMs + retention.rollupPeriodMs) return samples;
      // Roll-ups of the periods that ended before the first sample we still have.
      const older = await read(five(cluster), sinceMs, `(${firstFull - retention.rollupPeriodMs}`);
      return [...older, ...samples];
    },
    day: async (cluster, sinceMs) =>
      dayTrendsOfText(await redis.zrangebyscore(five(cluster), sinceMs, '+inf')),
    async memoryBytes(cluster) {
      let total = 0;
      for (const key of [full(cluster), five(cluster)]) {
        const bytes = await redis.call('MEMORY', 'USAGE', key, 'SAMPLES', '0');
        if (typeof bytes === 'number') total += bytes;
      }
      return total;
    },
  };
  return history;
}

function parseAll(raw: string[]): MinuteSample[] {
  return raw.flatMap((text) => {
    try {
      const parsed = minuteSampleSchema.safeParse(JSON.parse(text));
      return parsed.success ? [parsed.data] : [];
    } catch {
      return [];
    }
  });
}
