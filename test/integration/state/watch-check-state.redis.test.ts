import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { parseEtcdMetrics } from '../../../src/probes/etcd-metrics.js';
import { createMinuteHistory } from '../../../src/state/minute-history.js';
import { createWatchState, type LastCheck } from '../../../src/state/watch-state.js';
import { purgePrefix, REDIS_URL, testPrefix } from '../../support/redis/redis-prefix.js';

/**
 * A watch check's Redis traffic (few round trips, so one Redis serves many clusters' checks): its kept scrapes and last outcome are read in one
 * round trip before the run, and what it keeps for the next check goes into the same MULTI as its
 * minute sample, with the outcome: nothing is written before, and all of it lands together.
 */
const prefix = testPrefix('watch-check-state');
const redis = new Redis(REDIS_URL);
const URL_1 = 'http://127.0.0.1:2381/metrics';
const page = readFileSync(
  new URL('../../fixtures/metrics/etcd-3.4.23-3member-leader.txt', import.meta.url),
  'utf8',
);

afterAll(async () => {
  redis.disconnect();
  await purgePrefix(prefix);
});

function snapshot(at: number) {
  const parsed = parseEtcdMetrics(page, at);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.snapshot;
}

describe("a watch check's state", () => {
  it('reads the kept scrape and last check in one go, and writes its own with the minute sample', async () => {
    const state = createWatchState(redis, prefix);
    const history = createMinuteHistory(redis, prefix, Date.now);
    const t = Date.now();
    const check: LastCheck = {
      t,
      status: 'healthy',
      causes: [],
      intervalSeconds: 60,
      durationMs: 42,
      bad: 0,
      good: 1,
    };

    const first = await state.checkState('c1', 200_000);
    expect(first.last).toBeUndefined();
    expect(await first.scrapes.previous(URL_1)).toBeUndefined();
    await first.scrapes.keep(URL_1, snapshot(t));
    // Queued, not written: the run's keep costs no round trip of its own.
    expect(await redis.exists(`${prefix}:watch:scrapes:c1`)).toBe(0);

    await history.record('c1', { v: 1, t, s: 'healthy', m: [], f: [] }, first.writes(check));
    expect(await history.samples('c1', 0)).toHaveLength(1);
    expect(await state.lastCheck('c1')).toEqual(check);
    const ttl = await redis.pttl(`${prefix}:watch:scrapes:c1`);
    expect(ttl).toBeGreaterThan(100_000);
    expect(ttl).toBeLessThanOrEqual(200_000);

    // The next check reads both back.
    const second = await state.checkState('c1', 200_000);
    expect(second.last).toEqual(check);
    expect((await second.scrapes.previous(URL_1))?.scrapedAtMs).toBe(t);
    // The digest's read-only view sees the same kept scrape.
    expect((await state.scrapes('c1', 0).previous(URL_1))?.scrapedAtMs).toBe(t);
  });
});
