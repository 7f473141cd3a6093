import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { createMemoryAdapter } from '../../../src/chat/memory/memory-adapter.js';
import { configFileSchema } from '../../../src/config/schema.js';
import { silentLogger } from '../../../src/logger.js';
import { type RunningRoles, startRoles } from '../../../src/roles/start-roles.js';
import { createMinuteHistory } from '../../../src/state/minute-history.js';
import { type EtcdLab, startEtcdLab } from '../../support/lab/etcd-lab.js';
import { purgePrefix, REDIS_URL, testPrefix } from '../../support/redis/redis-prefix.js';

/**
 * A healthy cluster under write load stays silent, watched every 5 s and every 60 s at once (the
 * same real 3-member lab, configured as two clusters). Events counted in a window (late
 * heartbeats, slow applies, leader changes, failed peer sends) are judged as rates, so a 60 s
 * window's background of late heartbeats on a busy host is not CPU starvation
 * (src/diagnosis/support/window-rate.ts). With the bare counts of before (one event in any window)
 * this test failed here on 2026-12-02 at load ~15: a 60 s check of the healthy lab said cpu-starvation.
 */

const CHANNEL = 'C0QUIET';
const SLOW_CHECKS = 3;
/** Causes raised by counted window events: none belongs in a healthy cluster's minute. */
const COUNTED = ['cpu-starvation', 'leader-churn', 'peer-network'];

let lab: EtcdLab;
let redis: Redis;
const prefix = testPrefix('watch-quiet');

beforeAll(async () => {
  lab = await startEtcdLab();
  redis = new Redis(REDIS_URL);
});

afterAll(async () => {
  redis?.disconnect();
  await lab?.destroy();
  await purgePrefix(prefix);
});

describe('a healthy cluster under load', () => {
  it('posts nothing over many checks at 5 s and at 60 s', async () => {
    const cluster = (name: string, intervalSeconds: number) => ({
      name,
      etcd: { endpoints: lab.endpoints, metricsUrls: lab.metricsUrls },
      slack: { channel: CHANNEL },
      watch: { intervalSeconds },
    });
    const config = configFileSchema.parse({
      clusters: [cluster('every5', 5), cluster('every60', 60)],
      probes: { timeoutMs: 1000, metricsWindowMs: 3000 },
    });
    const chat = createMemoryAdapter();
    // The first 60 s check comes within a minute (its offset), then one a minute.
    const durationMs = SLOW_CHECKS * 60_000 + 5_000;
    // Writes for the whole run, bounded: fsyncs, applies and heartbeats to count.
    const load = lab.writeLoad({ ratePerSecond: 60, durationMs, valueBytes: 256 });
    const history = createMinuteHistory(redis, prefix, Date.now);
    let roles: RunningRoles | undefined;
    try {
      roles = await startRoles({
        role: 'serve',
        chat,
        config,
        redisUrl: REDIS_URL,
        queuePrefix: prefix,
        logger: silentLogger,
        tuning: { jobTimeoutMs: 30_000 },
      });
      const deadline = Date.now() + durationMs + 60_000;
      while ((await history.samples('every60', 0)).length < SLOW_CHECKS && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 1000));
      const slow = await history.samples('every60', 0);
      const fast = await history.samples('every5', 0);
      expect(slow.length).toBeGreaterThanOrEqual(SLOW_CHECKS);
      expect(fast.length).toBeGreaterThan(20);
      // From the second check on, each 60 s check's window is the minute since the one before.
      for (const [i, s] of slow.entries()) {
        if (i > 0) expect(s.t - (slow[i - 1]?.t ?? 0)).toBeGreaterThan(50_000);
      }
      const counted = (samples: typeof slow) =>
        samples.flatMap((s) => s.f.filter(([cause]) => COUNTED.includes(cause)).map(([c]) => `${s.t}:${c}`));
      expect(counted(slow.slice(1))).toEqual([]);
      // What a user sees: no incident thread, at either interval.
      expect(chat.messages.filter((m) => m.ref.channel === CHANNEL).map((m) => m.text)).toEqual([]);
    } finally {
      await roles?.stop();
      await load;
    }
  }, 480_000);
});
