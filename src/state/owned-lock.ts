import type { Redis } from '../clients/redis.js';

/**
 * The one lock and claim primitive of etcd-doctor: a Redis key whose value names its owner, with a
 * TTL. Every lock (one job per cluster, one remediation per cluster, one open confirmation per plan)
 * and every claim (an answer, a digest slot, a button press, a run marker) goes through it, so there
 * is one copy of each Lua script and one meaning of "owner".
 *
 * - `acquire` sets the key when it is free, or (when asked to be re-entrant) extends it when this
 *   owner already holds it; with `unlessKey` it refuses while that other key exists (an answer already recorded).
 * - `renew` extends it only while this owner holds it, and says whether it still does.
 * - `release` deletes it only while this owner holds it.
 * - `hold` acquires and renews on an interval; the first failed renewal marks the hold lost (its
 *   signal aborts, `onLost` is called) so the holder stops at its next safe point.
 */
export interface OwnedLocks {
  acquire(
    key: string,
    owner: string,
    ttlMs: number,
    opts?: { reentrant?: boolean; unlessKey?: string },
  ): Promise<AcquireResult>;
  renew(key: string, owner: string, ttlMs: number): Promise<boolean>;
  release(key: string, owner: string): Promise<boolean>;
  holder(key: string): Promise<string | undefined>;
  hold(key: string, owner: string, opts: HoldOptions): Promise<HeldLock | undefined>;
}

export type AcquireResult = 'acquired' | 'held-by-other' | 'blocked';

export interface HoldOptions {
  ttlMs: number;
  /** Take over our own earlier hold (a job recovered after a stall). */
  reentrant?: boolean;
  /** How often to renew; default a third of the TTL. */
  renewEveryMs?: number;
  /** Called once, with why, when a renewal fails or finds another owner. */
  onLost?: (reason: string) => void;
}

export interface HeldLock {
  readonly owner: string;
  /** Aborts when the lock is lost; `reason` says why. */
  readonly signal: AbortSignal;
  /** Why the lock was lost, or undefined while it holds. */
  lost(): string | undefined;
  /**
   * Asks Redis now (renewing while it holds): why the lock is lost, or undefined while it is ours.
   * The interval's last renewal may be up to a third of the TTL old; a step about to act asks this.
   */
  check(): Promise<string | undefined>;
  /** Stops renewing and deletes the key if this owner still holds it. */
  release(): Promise<void>;
}

// KEYS[1] the lock; KEYS[2] optional blocker. ARGV owner, ttl ms, reentrant ('1' or '0').
const ACQUIRE = `if KEYS[2] and redis.call('EXISTS', KEYS[2]) == 1 then return 'blocked' end
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 'acquired' end
if ARGV[3] == '1' and redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 'acquired' end
return 'held-by-other'`;
const RENEW_IF_OWNER = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0`;
const RELEASE_IF_OWNER = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

export function createOwnedLocks(redis: Redis): OwnedLocks {
  const locks: OwnedLocks = {
    async acquire(key, owner, ttlMs, opts = {}) {
      const keys = opts.unlessKey ? [key, opts.unlessKey] : [key];
      const reentrant = opts.reentrant ? '1' : '0';
      const result = await redis.eval(ACQUIRE, keys.length, ...keys, owner, String(ttlMs), reentrant);
      return result === 'acquired' || result === 'blocked' ? result : 'held-by-other';
    },
    async renew(key, owner, ttlMs) {
      return (await redis.eval(RENEW_IF_OWNER, 1, key, owner, String(ttlMs))) === 1;
    },
    async release(key, owner) {
      return (await redis.eval(RELEASE_IF_OWNER, 1, key, owner)) === 1;
    },
    async holder(key) {
      return (await redis.get(key)) ?? undefined;
    },
    async hold(key, owner, opts) {
      const reentrant = opts.reentrant === true;
      if ((await locks.acquire(key, owner, opts.ttlMs, { reentrant })) !== 'acquired') return undefined;
      return startRenewing(locks, key, owner, opts);
    },
  };
  return locks;
}

function startRenewing(locks: OwnedLocks, key: string, owner: string, opts: HoldOptions): HeldLock {
  const lost = new AbortController();
  const lose = (reason: string) => {
    if (lost.signal.aborted) return;
    clearInterval(timer);
    lost.abort(new Error(reason));
    opts.onLost?.(reason);
  };
  const renewOnce = () =>
    locks.renew(key, owner, opts.ttlMs).then(
      (held) => {
        if (!held) lose(`the lock ${key} is no longer ours (it expired or another owner took it)`);
      },
      (err: unknown) =>
        lose(`renewing the lock ${key} failed: ${err instanceof Error ? err.message : String(err)}`),
    );
  const timer = setInterval(() => void renewOnce(), opts.renewEveryMs ?? Math.floor(opts.ttlMs / 3));
  timer.unref?.();
  return {
    owner,
    signal: lost.signal,
    lost: () => (lost.signal.aborted ? String((lost.signal.reason as Error).message) : undefined),
    async check() {
      if (!lost.signal.aborted) await renewOnce();
      return lost.signal.aborted ? String((lost.signal.reason as Error).message) : undefined;
    },
    async release() {
      clearInterval(timer);
      await locks.release(key, owner).catch(() => undefined);
    },
  };
}
