import type { Redis } from '../clients/redis.js';
import { withDeadline } from '../timing.js';

/**
 * How long a request waits for its limit to be read (Redis answers in about a millisecond). A limit
 * that cannot be read in time, or at all because Redis is down, lets the request through: a request
 * is never refused or held up because the limits are unreadable, and what follows (the enqueue, with
 * its own deadline) says "the queue is unavailable" when Redis is gone, within Slack's 3 s.
 */
export const LIMIT_READ_MS = 250;

type Taken = { ok: true } | { ok: false; retryAfterMs: number };
const OPEN: Taken = { ok: true };
/** ioredis states in which a command waits for a reconnect instead of answering. */
const DOWN = new Set(['reconnecting', 'close', 'end']);

/**
 * A fixed-window counter in Redis: at most `limit` per `windowMs` per key, shared by every replica.
 * Both calls answer within LIMIT_READ_MS, and at once while Redis is known to be down: unread, a
 * limit lets the request through.
 */
export interface RateLimiter {
  /** Counts one; `retryAfterMs` when this one is over the limit (it is not counted then). */
  take(key: string, limit: number, windowMs: number): Promise<Taken>;
  /** Whether one more would be over the limit, without counting it. */
  peek(key: string, limit: number): Promise<Taken>;
}

// KEYS[1] counter; ARGV limit, window ms. Returns {count, ttl ms}; over the limit the count is undone.
const TAKE = `local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
local ttl = redis.call('PTTL', KEYS[1])
if n > tonumber(ARGV[1]) then redis.call('DECR', KEYS[1]) end
return {n, ttl}`;

export function createRateLimiter(redis: Redis, prefix: string, readMs = LIMIT_READ_MS): RateLimiter {
  const key = (k: string) => `${prefix}:rate:${k}`;
  const read = (work: () => Promise<Taken>): Promise<Taken> =>
    DOWN.has(redis.status) ? Promise.resolve(OPEN) : withDeadline(work(), readMs, () => OPEN);
  return {
    take: (k, limit, windowMs) =>
      read(async () => {
        const [count, ttl] = (await redis.eval(TAKE, 1, key(k), String(limit), String(windowMs))) as [
          number,
          number,
        ];
        return count <= limit ? OPEN : { ok: false, retryAfterMs: Math.max(ttl, 1000) };
      }),
    peek: (k, limit) =>
      read(async () => {
        const [count, ttl] = await Promise.all([redis.get(key(k)), redis.pttl(key(k))]);
        return Number(count ?? 0) < limit ? OPEN : { ok: false, retryAfterMs: Math.max(ttl, 1000) };
      }),
  };
}
