import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { createServer, type AddressInfo } from 'node:net';
import { createRateLimiter, LIMIT_READ_MS, type RateLimiter } from '../../../src/state/rate-limit.js';
import { purgePrefix, REDIS_URL, testPrefix } from '../../support/redis/redis-prefix.js';

/**
 * The rate limiter behind "too many analyses, try again in N s" (files per user) and MCP's calls
 * per minute, on the real Redis at 127.0.0.1:6379 under a key prefix of its own: every replica
 * counts in the same place, so the limit holds however many bots run.
 */

const prefix = testPrefix('unit-rate-limit');
let redis: Redis;
let limiter: RateLimiter;

beforeAll(() => {
  redis = new Redis(REDIS_URL);
  limiter = createRateLimiter(redis, prefix);
});

afterAll(async () => {
  redis.disconnect();
  await purgePrefix(prefix);
});

describe('fixed-window rate limiter on a real Redis', () => {
  it('lets the first `limit` through, then says how long until the window ends', async () => {
    const taken = [];
    for (let i = 0; i < 4; i++) taken.push(await limiter.take('analyze:user:U1', 3, 60_000));
    expect(taken.slice(0, 3)).toEqual([{ ok: true }, { ok: true }, { ok: true }]);
    const refused = taken[3];
    if (refused?.ok !== false)
      throw new Error(`the fourth in the window was let through: ${JSON.stringify(refused)}`);
    // What the user is told to wait: the rest of the minute, never more.
    expect(refused.retryAfterMs).toBeGreaterThan(55_000);
    expect(refused.retryAfterMs).toBeLessThanOrEqual(60_000);
  });

  it('a refused request is not counted: the count stays at the limit, and peek agrees', async () => {
    const key = 'mcp:calls';
    for (let i = 0; i < 2; i++) expect(await limiter.take(key, 2, 60_000)).toEqual({ ok: true });
    for (let i = 0; i < 3; i++) expect((await limiter.take(key, 2, 60_000)).ok).toBe(false);
    expect(await redis.get(`${prefix}:rate:${key}`)).toBe('2');
    expect((await limiter.peek(key, 2)).ok).toBe(false);
    expect(await limiter.peek('nobody-yet', 2)).toEqual({ ok: true });
  });

  it('counts each user apart, and one replica sees what another counted', async () => {
    const replica = new Redis(REDIS_URL);
    try {
      const other = createRateLimiter(replica, prefix);
      expect(await limiter.take('analyze:user:U2', 1, 60_000)).toEqual({ ok: true });
      expect((await other.take('analyze:user:U2', 1, 60_000)).ok).toBe(false);
      expect(await other.take('analyze:user:U3', 1, 60_000)).toEqual({ ok: true });
    } finally {
      replica.disconnect();
    }
  });

  it('a new window lets requests through again', async () => {
    expect(await limiter.take('short', 1, 300)).toEqual({ ok: true });
    const refused = await limiter.take('short', 1, 300);
    // Never "retry in 0 s": at least a second is asked for, even when the window ends sooner.
    expect(refused).toEqual({ ok: false, retryAfterMs: 1000 });
    await new Promise((r) => setTimeout(r, 400));
    expect(await limiter.take('short', 1, 300)).toEqual({ ok: true });
  });

  it('with Redis down, a limit lets the request through at once instead of holding it for the read deadline', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    const down = new Redis({ host: '127.0.0.1', port, maxRetriesPerRequest: null });
    down.on('error', () => undefined);
    try {
      await new Promise<void>((resolve) => down.once('reconnecting', () => resolve()));
      const started = performance.now();
      expect(await createRateLimiter(down, prefix).take('analyze:user:U9', 1, 60_000)).toEqual({ ok: true });
      expect(await createRateLimiter(down, prefix).peek('analyze:user:U9', 1)).toEqual({ ok: true });
      // Neither waited out LIMIT_READ_MS: the enqueue after it has the whole of the chat's deadline.
      expect(performance.now() - started).toBeLessThan(LIMIT_READ_MS);
    } finally {
      down.disconnect();
    }
  });
});
