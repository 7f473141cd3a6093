import type { Redis } from '../clients/redis.js';
import { type DayTrends, foldDayText } from './day-trends.js';
import { type MinuteSample, minuteSampleSchema, rollUp } from './minute-sample.js';

/**
 * The watch's minute history: every check of a watched cluster at full resolution for a day, and
 * 5-minute roll-ups for two weeks (and hourly ones for a day, which the digest's day reads). The digest's 30-day history (history-store.ts) keeps one
 * diagnosis summary per run; this one keeps what a chart or a "since when" needs.
 */
/** Commands another store adds to a MULTI of this one, so a watch check writes in one round trip. */
export type RedisWrites = (multi: ReturnType<Redis['multi']>) => void;

export interface MinuteHistory {
  /** `also`: another store's writes, in the same MULTI. */
  record(cluster: string, sample: MinuteSample, also?: RedisWrites): Promise<void>;
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
  /** Bytes Redis uses for the cluster's minute history (its three keys, MEMORY USAGE). */
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
 * Hourly roll-ups are kept a day and an hour: the digest's day is 23 of them plus the 5-minute
 * roll-ups of its first, partial hour (24 JSON parses instead of 288 a cluster; a thousand-cluster
 * digest spent a tenth of its CPU parsing roll-ups).
 */
const HOURLY_KEEP_MS = 25 * HOUR;
const MAX_HOURLY = 26;

/**
 * Three sorted sets per cluster, scored by time: `<prefix>:minutes:<cluster>` (samples),
 * `<prefix>:minutes5:<cluster>` (5-minute roll-ups, one member per period) and
 * `<prefix>:minutes60:<cluster>` (hourly roll-ups, the same fold over an hour). Every write folds the
 * sample into its period's and its hour's roll-up; the first write of each period also trims the sets
 * by age and by count and sets their expiry, so memory stays bounded and a cluster no longer watched leaves nothing behind. A cluster's
 * checks run one at a time (one job scheduler, one cluster lock), so each read-fold-write has one writer.
 */
export function createMinuteHistory(
  redis: Redis,
  prefix: string,
  now: () => number,
  retention: MinuteRetention = MINUTE_RETENTION,
): MinuteHistory {
  const full = (cluster: string) => `${prefix}:minutes:${cluster}`;
  const five = (cluster: string) => `${prefix}:minutes5:${cluster}`;
  const hourly = (cluster: string) => `${prefix}:minutes60:${cluster}`;
  const read = async (key: string, since: number, until: number | string | undefined) =>
    parseAll(await redis.zrangebyscore(key, since, until ?? '+inf'));
  // The hour's roll-up so far: a new one starts from the hour's 5-minute roll-ups already stored
  // (none, except in the first hour after an upgrade that added hourly ones): every check is in it.
  const hourSoFar = async (cluster: string, hour: number, period: number, kept: MinuteSample | undefined) => {
    if (kept) return kept;
    let folded: MinuteSample | undefined;
    for (const r of await read(five(cluster), hour, period)) folded = rollUp(folded, r, hour);
    return folded;
  };
  const history: MinuteHistory = {
    async record(cluster, sample, also) {
      const period = sample.t - (sample.t % retention.rollupPeriodMs);
      const hour = sample.t - (sample.t % HOUR);
      const keys: [string, string] = [five(cluster), hourly(cluster)];
      const { previous, hourKept } = await storedRollups(redis, keys, period, hour);
      const hourBefore = await hourSoFar(cluster, hour, period, hourKept);
      const rollup = rollUp(previous, sample, period);
      const hourRollup = rollUp(hourBefore, sample, hour);
      const at = now();
      const multi = redis.multi();
      also?.(multi);
      multi
        .zadd(full(cluster), sample.t, JSON.stringify(sample))
        .zremrangebyscore(five(cluster), period, period)
        .zadd(five(cluster), period, JSON.stringify(rollup))
        .zremrangebyscore(hourly(cluster), hour, hour)
        .zadd(hourly(cluster), hour, JSON.stringify(hourRollup));
      // The trims and expiries go with the first check of each 5-minute period, not with every
      // check: 5 commands a check instead of 15 (a watch writes every interval for every cluster),
      // and a set holds at most one period's checks past its caps.
      if (previous === undefined)
        trimAndExpire(multi, [full(cluster), five(cluster), hourly(cluster)], at, retention);
      await multi.exec();
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
    day: (cluster, sinceMs) => readDay(redis, { five: five(cluster), hourly: hourly(cluster) }, sinceMs),
    async memoryBytes(cluster) {
      let total = 0;
      for (const key of [full(cluster), five(cluster), hourly(cluster)]) {
        const bytes = await redis.call('MEMORY', 'USAGE', key, 'SAMPLES', '0');
        if (typeof bytes === 'number') total += bytes;
      }
      return total;
    },
  };
  return history;
}

/** The trims by age and by count, and the expiries, of a cluster's three sets (full, 5-minute, hourly). */
function trimAndExpire(
  multi: ReturnType<Redis['multi']>,
  [full, five, hourly]: [string, string, string],
  at: number,
  retention: MinuteRetention,
): void {
  multi
    .zremrangebyscore(full, '-inf', `(${at - retention.fullMs}`)
    .zremrangebyrank(full, 0, -(retention.maxSamples + 1))
    .pexpire(full, retention.fullMs)
    .zremrangebyscore(five, '-inf', `(${at - retention.rollupMs}`)
    .zremrangebyrank(five, 0, -(retention.maxRollups + 1))
    .pexpire(five, retention.rollupMs)
    .zremrangebyscore(hourly, '-inf', `(${at - HOURLY_KEEP_MS}`)
    .zremrangebyrank(hourly, 0, -(MAX_HOURLY + 1))
    .pexpire(hourly, HOURLY_KEEP_MS);
}

/**
 * A day of a cluster's minute history: the hours that start inside it, then the 5-minute roll-ups
 * before the first of them (the day's partial first hour, or hours from before hourly roll-ups
 * existed), and the latest 5-minute roll-up for the day's end and DB size: the same day as all its
 * 288 5-minute roll-ups folded, from about 24 entries.
 */
async function readDay(
  redis: Redis,
  keys: { five: string; hourly: string },
  sinceMs: number,
): Promise<DayTrends | undefined> {
  const firstHour = Math.ceil(sinceMs / HOUR) * HOUR;
  const [withScores, latest] = await Promise.all([
    redis.zrangebyscore(keys.hourly, firstHour, '+inf', 'WITHSCORES'),
    redis.zrange(keys.five, '-1', '-1'),
  ]);
  const hours = withScores.filter((_, i) => i % 2 === 0);
  const coveredFrom = withScores.length ? `(${withScores[1]}` : '+inf';
  const head = await redis.zrangebyscore(keys.five, sinceMs, coveredFrom);
  return foldDayText([...head, ...hours], latest[0], sinceMs);
}

/**
 * The period's roll-up and the hour's, as stored: one pipeline, so a check's history costs two
 * round trips (this and its MULTI) and two socket writes, not three (a watch writes every
 * interval for every cluster).
 */
async function storedRollups(
  redis: Redis,
  [fiveKey, hourlyKey]: [string, string],
  period: number,
  hour: number,
): Promise<{ previous: MinuteSample | undefined; hourKept: MinuteSample | undefined }> {
  const replies = await redis
    .pipeline()
    .zrangebyscore(fiveKey, period, period)
    .zrangebyscore(hourlyKey, hour, hour)
    .exec();
  const [fiveReply, hourReply] = (replies ?? []).map(([err, value]) => {
    if (err) throw err;
    return parseAll(value as string[]);
  });
  return { previous: fiveReply?.[0], hourKept: hourReply?.[0] };
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
