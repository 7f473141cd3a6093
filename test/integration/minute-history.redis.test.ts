import { afterAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { dayTrends } from '../../src/state/day-trends.js';
import { COL, type MinuteSample, toHistogram } from '../../src/state/minute-sample.js';
import { histogramQuantile } from '../../src/etcd/histogram.js';
import { createMinuteHistory } from '../../src/state/minute-history.js';
import { purgePrefix, REDIS_URL, testPrefix } from '../support/redis/redis-prefix.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const prefix = testPrefix('minutes');
const redis = new Redis(REDIS_URL);

afterAll(async () => {
  redis.disconnect();
  await purgePrefix(prefix);
});

/** A 3-member check; etcd-2's fsync p99 is `slowMs`, the others' 2-4 ms. */
function check(t: number, slowMs = 3): MinuteSample {
  return {
    v: 1,
    t,
    s: slowMs > 10 ? 'degraded' : 'healthy',
    m: ['etcd-1', 'etcd-2', 'etcd-3'].map((name, i) => [
      name,
      name === 'etcd-2' ? slowMs : 2 + i,
      1.5 + i,
      0.42,
      t % (5 * MIN) === 0 ? 1 : 0,
      104_857_600 + (t % DAY),
      83_886_080,
      3.1,
      -12 + i,
      name === 'etcd-2' && slowMs > 10
        ? [
            [2, 40],
            [16, 55],
          ]
        : [
            [2, 70],
            [4, 25],
          ],
      // Backend commit and (both peers') RTT buckets of the check's window.
      [
        [2, 60],
        [4, 30],
        [8, 5],
      ],
      [
        [0.4, 3],
        [0.8, 1],
      ],
    ]),
    f: slowMs > 10 ? [['slow-disk', 'warning', ['etcd-2']]] : [],
  };
}

describe('the minute history in Redis', () => {
  it('keeps a day of checks, two weeks of 5-minute roll-ups, and drops the rest on write', async () => {
    let now = Date.parse('2024-05-01T00:00:00Z');
    const history = createMinuteHistory(redis, prefix, () => now);
    // 15 days at one check an hour (the clock is injected: what matters is the age of each).
    for (let hour = 0; hour < 15 * 24; hour += 1) {
      now = Date.parse('2024-05-01T00:00:00Z') + hour * HOUR;
      await history.record('retention', check(now));
    }
    const samples = await history.samples('retention', 0);
    expect(samples).toHaveLength(25); // now and the 24 hours before it
    expect(samples[0]?.t).toBe(now - DAY);
    const rollups = await history.rollups('retention', 0);
    expect(rollups).toHaveLength(14 * 24 + 1);
    expect(rollups[0]?.t).toBe(now - 14 * DAY);
    expect(await redis.pttl(`${prefix}:minutes:retention`)).toBeGreaterThan(DAY - MIN);
    expect(await redis.pttl(`${prefix}:minutes5:retention`)).toBeGreaterThan(14 * DAY - MIN);
    // Hourly roll-ups: a day and an hour.
    expect(await redis.zcard(`${prefix}:minutes60:retention`)).toBe(26);
    // The series reads roll-ups where full resolution is gone, then samples.
    const week = await history.series('retention', now - 7 * DAY);
    expect(week[0]?.n).toBe(1);
    expect(week.at(-1)?.n).toBeUndefined();
    expect(week.filter((s) => s.n === undefined)).toHaveLength(25);
    expect(week.map((s) => s.t)).toEqual([...week.map((s) => s.t)].sort((a, b) => a - b));
  });

  it('rolls five minutes of checks into one: worst latency, summed leader changes and fsync buckets', async () => {
    const start = Date.parse('2024-05-02T10:00:00Z');
    let now = start;
    const history = createMinuteHistory(redis, prefix, () => now);
    // One check every 30 s for 10 minutes; etcd-2's disk is slow from 10:02 to 10:03.
    for (let i = 0; i < 20; i += 1) {
      now = start + i * 30_000;
      const slow = now >= start + 2 * MIN && now < start + 3 * MIN;
      await history.record('rollup', check(now, slow ? 48 : 3));
    }
    const [first, second] = await history.rollups('rollup', start);
    expect(first?.t).toBe(start);
    expect(first?.n).toBe(10);
    expect(second?.t).toBe(start + 5 * MIN);
    expect(second?.n).toBe(10);
    expect(first?.s).toBe('degraded');
    expect(second?.s).toBe('healthy');
    const etcd2 = first?.m.find((m) => m[COL.name] === 'etcd-2');
    expect(etcd2?.[COL.fsyncP99Ms]).toBe(48);
    expect(second?.m.find((m) => m[COL.name] === 'etcd-2')?.[COL.fsyncP99Ms]).toBe(3);
    expect(first?.f).toEqual([['slow-disk', 'warning', ['etcd-2']]]);
    // The fixture has one leader change at the start of each 5 minutes.
    expect(first?.m[0]?.[COL.leaderChanges]).toBe(1);
    expect(second?.m[0]?.[COL.leaderChanges]).toBe(1);
    // The p99 of the 5 minutes from the summed buckets: 2 slow checks of 10 put it in the 16 ms bucket.
    const buckets = etcd2?.[COL.fsyncBuckets] ?? [];
    expect(buckets.reduce((n, [, c]) => n + c, 0)).toBe(2 * 95 + 8 * 95);
    const p99 = histogramQuantile(0.99, toHistogram(buckets));
    expect(p99).toBeGreaterThan(0.004);
    expect(p99).toBeLessThanOrEqual(0.016);
  });

  it("reads the digest's day from hourly roll-ups: the same day as every 5-minute roll-up folded, across an upgrade too", async () => {
    const start = Date.parse('2024-05-04T00:00:00Z');
    let now = start;
    const history = createMinuteHistory(redis, prefix, () => now);
    const hourlyKey = `${prefix}:minutes60:day`;
    // A check a minute for 26 hours; etcd-2's disk is slow from 13:00 to 13:40.
    for (let i = 0; i < 26 * 60; i += 1) {
      now = start + i * MIN;
      const slow = now >= start + 13 * HOUR && now < start + 13 * HOUR + 40 * MIN;
      await history.record('day', check(now, slow ? 48 : 3));
      // 10:37 on the first day: as if the hours before were written before hourly roll-ups existed.
      if (i === 10 * 60 + 37) await redis.del(hourlyKey);
    }
    const since = now - DAY + 7 * MIN; // not on an hour
    const everyRollup = dayTrends(await history.rollups('day', since));
    const day = await history.day('day', since);
    expect(day).toEqual(everyRollup);
    // Every check from the first 5 minutes that start inside the day (02:10) to the last (01:59 next day).
    expect(day?.checks).toBe((now - (start + 2 * HOUR + 10 * MIN)) / MIN + 1);
    // The 40 slow minutes lift etcd-2's day p99 into the 16 ms bucket (healthy days stay in the 4 ms one).
    expect(day?.fsyncP99Ms).toBeGreaterThan(4);
    // Hourly roll-ups from 10:00 (the hour of the upgrade, seeded from its 5-minute roll-ups) on:
    // the day's 02:10-09:55 came from 5-minute roll-ups. They expire with the watch.
    expect(await redis.zcard(hourlyKey)).toBe(16);
    expect(await redis.pttl(hourlyKey)).toBeGreaterThan(24 * HOUR);
    // The day really comes from the hourly roll-ups: without the 5-minute ones of 13:00-13:55,
    // folding 5-minute roll-ups loses that hour (and the slow disk), the day does not.
    await redis.zremrangebyscore(`${prefix}:minutes5:day`, start + 13 * HOUR, start + 13 * HOUR + 55 * MIN);
    const without = dayTrends(await history.rollups('day', since));
    expect(without?.checks).toBe((day?.checks ?? 0) - 60);
    expect(without?.fsyncP99Ms).toBeLessThan(4);
    expect(await history.day('day', since)).toEqual(day);
  });

  it('costs a bounded, measured number of bytes per cluster-day (a check a minute)', async () => {
    const start = Date.parse('2024-05-03T00:00:00Z');
    let now = start;
    const history = createMinuteHistory(redis, prefix, () => now);
    for (let i = 0; i < 24 * 60; i += 1) {
      now = start + i * MIN;
      await history.record('cost', check(now));
    }
    const bytes = await history.memoryBytes('cost');
    // Recorded in docs/BENCHMARKS.md: one 3-member cluster watched at 60 s, a day of samples
    // plus its 288 roll-ups.
    const rollupBytes = Number(
      await redis.call('MEMORY', 'USAGE', `${prefix}:minutes5:cost`, 'SAMPLES', '0'),
    );
    process.stdout.write(
      `minute history, 3 members, 1 day at 60 s: ${bytes} bytes (${rollupBytes} of them 288 roll-ups)\n`,
    );
    expect(bytes).toBeGreaterThan(100_000);
    expect(bytes).toBeLessThan(1_500_000);
  });
});
