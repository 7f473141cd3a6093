import { afterAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import type { HistorySample } from '../../src/state/history-sample.js';
import { createHistoryStore } from '../../src/state/history-store.js';
import { purgePrefix, REDIS_URL, testPrefix } from '../support/redis/redis-prefix.js';

const DAY = 24 * 3600_000;
const prefix = testPrefix('history');
const redis = new Redis(REDIS_URL);

afterAll(async () => {
  redis.disconnect();
  await purgePrefix(prefix);
});

function sample(t: number): HistorySample {
  return {
    v: 1,
    t,
    s: 'degraded',
    m: ['etcd-1', 'etcd-2', 'etcd-3'].map((name, i) => [
      name,
      12.34 + i,
      3.21,
      1.5,
      104_857_600,
      83_886_080,
      4 + i,
    ]),
    r: { etcd: 1, 'kube-apiserver': 0, 'kube-controller-manager': 17, 'kube-scheduler': 15 },
    f: [
      ['slow-disk', 'critical', ['etcd-2']],
      ['leader-churn', 'warning', []],
    ],
  };
}

describe('diagnosis history in Redis', () => {
  it('keeps 30 days by default, drops older samples on write, and costs a few hundred bytes per diagnosis', async () => {
    let now = Date.parse('2024-05-01T00:00:00Z');
    const history = createHistoryStore(redis, prefix, () => now);
    // 40 days of one diagnosis a day: the first 9 fall out of the 30-day window.
    for (let day = 0; day < 40; day += 1) {
      now = Date.parse('2024-05-01T09:00:00Z') + day * DAY;
      await history.record('prod', sample(now));
    }
    const kept = await history.samples('prod', 0);
    expect(kept).toHaveLength(31); // today and the 30 days before it
    expect(kept[0]?.t).toBe(now - 30 * DAY);
    const ttlMs = await redis.pttl(`${prefix}:history:prod`);
    expect(ttlMs).toBeGreaterThan(29 * DAY);

    const bytes = await history.memoryBytes('prod');
    const perSample = bytes / kept.length;
    // Documented in the README: ~300-500 bytes per diagnosis of a 3-member cluster.
    expect(perSample).toBeGreaterThan(100);
    expect(perSample).toBeLessThan(700);
  });

  it('caps the samples per cluster, whatever the rate', async () => {
    const now = Date.parse('2024-05-01T00:00:00Z');
    const history = createHistoryStore(redis, prefix, () => now, { retentionMs: 30 * DAY, maxSamples: 5 });
    for (let i = 0; i < 12; i += 1) await history.record('busy', sample(now - 1000 + i));
    expect(await history.samples('busy', 0)).toHaveLength(5);
  });
});
