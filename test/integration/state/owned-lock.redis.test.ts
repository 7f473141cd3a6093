import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { createJobState } from '../../../src/state/job-state.js';
import { createOwnedLocks, type OwnedLocks } from '../../../src/state/owned-lock.js';
import { purgePrefix, REDIS_URL, testPrefix } from '../../support/redis/redis-prefix.js';
import { within } from '../../support/process/within.js';

/** The one lock primitive on a real Redis: ownership, re-entry, blockers, and a renewal that fails. */
describe('owned locks', () => {
  const prefix = testPrefix('owned-lock');
  let redis: Redis;
  let locks: OwnedLocks;

  beforeAll(() => {
    redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    locks = createOwnedLocks(redis);
  });
  afterAll(async () => {
    await purgePrefix(prefix);
    redis.disconnect();
  });

  it('acquires once, re-enters only when asked, and renews and releases only for its owner', async () => {
    const key = `${prefix}:a`;
    expect(await locks.acquire(key, 'w1', 5000)).toBe('acquired');
    expect(await locks.acquire(key, 'w2', 5000)).toBe('held-by-other');
    expect(await locks.acquire(key, 'w1', 5000)).toBe('held-by-other');
    expect(await locks.acquire(key, 'w1', 5000, { reentrant: true })).toBe('acquired');
    expect(await locks.renew(key, 'w2', 5000)).toBe(false);
    expect(await locks.release(key, 'w2')).toBe(false);
    expect(await locks.holder(key)).toBe('w1');
    expect(await locks.renew(key, 'w1', 5000)).toBe(true);
    expect(await locks.release(key, 'w1')).toBe(true);
    expect(await locks.holder(key)).toBeUndefined();
  });

  it('refuses while a blocker key exists (an answer already recorded)', async () => {
    const state = createJobState(redis, prefix);
    expect(await state.claimAnswer('job-1', 'w1', 5000)).toBe('claimed');
    expect(await state.claimAnswer('job-1', 'w2', 5000)).toBe('busy');
    await state.markAnswered('job-1', { channel: 'C1', ts: '1.0' });
    expect(await state.claimAnswer('job-1', 'w1', 5000)).toBe('answered');
    expect(await state.claimAnswer('job-1', 'w2', 5000)).toBe('answered');
  });

  it('a hold whose renewal finds another owner is lost: its signal aborts and onLost says why', async () => {
    const key = `${prefix}:held`;
    let reason = '';
    const lost = new Promise<void>((resolve) => {
      void locks
        .hold(key, 'worker-a', {
          ttlMs: 600,
          renewEveryMs: 100,
          onLost: (why) => {
            reason = why;
            resolve();
          },
        })
        .then(async (held) => {
          expect(held).toBeDefined();
          // The lock lapses and someone else takes it (as after a Redis failover or a long stall).
          await redis.set(key, 'worker-b', 'PX', 5000);
          held?.signal.addEventListener('abort', () => undefined);
        });
    });
    await within(lost, 5000, 'onLost after another owner took the key');
    expect(reason).toMatch(/no longer ours/);
    // Releasing a lost hold leaves the new owner's lock alone.
    expect(await locks.holder(key)).toBe('worker-b');
    expect(await locks.hold(key, 'worker-a', { ttlMs: 600 })).toBeUndefined();
  });

  it('a hold whose renewal errors (Redis gone) is lost too', async () => {
    const flaky = new Redis(REDIS_URL, {
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      lazyConnect: true,
      retryStrategy: () => null,
    });
    await flaky.connect();
    const key = `${prefix}:flaky`;
    const held = await createOwnedLocks(flaky).hold(key, 'w', { ttlMs: 3000, renewEveryMs: 50 });
    if (!held) throw new Error('no hold');
    const aborted = new Promise<void>((resolve) => held.signal.addEventListener('abort', () => resolve()));
    flaky.disconnect();
    await within(aborted, 5000, 'the hold aborted after its connection dropped');
    expect(held.lost()).toMatch(/renewing the lock .* failed/);
    await held.release();
  });
});
