import type { Redis } from '../clients/redis.js';

/** A fixed-window counter in Redis: at most `limit` per `windowMs` per key, shared by every replica. */
export interface RateLimiter {
  /** Counts one; `retryAfterMs` when this one is over the limit (it is not counted then). */
  take(
    key: string,
    limit: number,
    windowMs: number,
  ): Promise<{ ok: true } | { ok: false; retryAfterMs: number }>;
  /** Whether one more would be over the limit, without counting it. */
  peek(key: string, limit: number): Promise<{ ok: true } | { ok: false; retryAfterMs: number }>;
}

// KEYS[1] counter; ARGV limit, window ms. Returns {count, ttl ms}; over the limit the count is undone.
const TAKE = `local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
local ttl = redis.call('PTTL', KEYS[1])
if n > tonumber(ARGV[1]) then redis.call('DECR', KEYS[1]) end
return {n, ttl}`;

export function createRateLimiter(redis: Redis, prefix: string): RateLimiter {
  const key = (k: string) => `${prefix}:rate:${k}`;
  return {
    async take(k, limit, windowMs) {
      const [count, ttl] = (await redis.eval(TAKE, 1, key(k), String(limit), String(windowMs))) as [
        number,
        number,
      ];
      return count <= limit ? { ok: true } : { ok: false, retryAfterMs: Math.max(ttl, 1000) };
    },
    async peek(k, limit) {
      const [count, ttl] = await Promise.all([redis.get(key(k)), redis.pttl(key(k))]);
      return Number(count ?? 0) < limit ? { ok: true } : { ok: false, retryAfterMs: Math.max(ttl, 1000) };
    },
  };
}
