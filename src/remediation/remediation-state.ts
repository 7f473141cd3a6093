import type { Redis } from 'ioredis';

/**
 * What remediation remembers in Redis: which confirmations were pressed (a double click or a Slack
 * retry finds the claim), which plans ran (a recovered job does not run again), the one mutating
 * action per cluster at a time, tickets per diagnosis, and snoozes.
 */
export interface RemediationState {
  /** First press of a confirmation wins; later presses get the first presser back. */
  claimPress(planId: string, user: string): Promise<{ first: true } | { first: false; by: string }>;
  /** True once per plan: the worker calls it right before running. */
  markRunning(planId: string): Promise<boolean>;
  /** One mutating action per cluster (so never two nodes restarting at once). */
  acquireLock(cluster: string, owner: string, ttlMs: number): Promise<boolean>;
  renewLock(cluster: string, owner: string, ttlMs: number): Promise<void>;
  releaseLock(cluster: string, owner: string): Promise<void>;
  lockHolder(cluster: string): Promise<string | undefined>;
  ticketFor(diagnosis: string): Promise<string | undefined>;
  saveTicket(diagnosis: string, url: string): Promise<void>;
  snooze(cluster: string, untilMs: number, by: string): Promise<void>;
  /** The snooze end (ms since epoch) and who set it, while a snooze holds. */
  snoozedUntil(cluster: string): Promise<{ untilMs: number; by: string } | undefined>;
}

/** Claims and run markers outlive any button (30 min) and any Slack retry by far. */
const MARK_TTL_SECONDS = 7 * 24 * 3600;
/** A ticket link is remembered for as long as its diagnosis' buttons could exist. */
const TICKET_TTL_SECONDS = 7 * 24 * 3600;

const DEL_IF_OWNER = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;
const PEXPIRE_IF_OWNER = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0`;

export function createRemediationState(redis: Redis, prefix: string): RemediationState {
  const key = (...parts: string[]) => [prefix, 'remediation', ...parts].join(':');
  return {
    async claimPress(planId, user) {
      const k = key('pressed', planId);
      if ((await redis.set(k, user, 'EX', MARK_TTL_SECONDS, 'NX')) === 'OK') return { first: true };
      return { first: false, by: (await redis.get(k)) ?? 'someone' };
    },
    async markRunning(planId) {
      return (await redis.set(key('ran', planId), String(Date.now()), 'EX', MARK_TTL_SECONDS, 'NX')) === 'OK';
    },
    async acquireLock(cluster, owner, ttlMs) {
      return (await redis.set(key('lock', cluster), owner, 'PX', ttlMs, 'NX')) === 'OK';
    },
    async renewLock(cluster, owner, ttlMs) {
      await redis.eval(PEXPIRE_IF_OWNER, 1, key('lock', cluster), owner, String(ttlMs));
    },
    async releaseLock(cluster, owner) {
      await redis.eval(DEL_IF_OWNER, 1, key('lock', cluster), owner);
    },
    async lockHolder(cluster) {
      return (await redis.get(key('lock', cluster))) ?? undefined;
    },
    async ticketFor(diagnosis) {
      return (await redis.get(key('ticket', diagnosis))) ?? undefined;
    },
    async saveTicket(diagnosis, url) {
      await redis.set(key('ticket', diagnosis), url, 'EX', TICKET_TTL_SECONDS);
    },
    async snooze(cluster, untilMs, by) {
      const ttlMs = Math.max(1, untilMs - Date.now());
      await redis.set(key('snooze', cluster), JSON.stringify({ untilMs, by }), 'PX', ttlMs);
    },
    async snoozedUntil(cluster) {
      const raw = await redis.get(key('snooze', cluster));
      if (raw === null) return undefined;
      const value = JSON.parse(raw) as { untilMs?: unknown; by?: unknown };
      if (typeof value.untilMs !== 'number' || value.untilMs <= Date.now()) return undefined;
      return { untilMs: value.untilMs, by: typeof value.by === 'string' ? value.by : 'someone' };
    },
  };
}

/**
 * For the digest and alert-triage code: is this cluster snoozed right now? Build it once with the
 * deployment's Redis and prefix: `const snoozed = createIsSnoozed(redis, prefix); await snoozed('prod')`.
 */
export function createIsSnoozed(redis: Redis, prefix: string): (cluster: string) => Promise<boolean> {
  const state = createRemediationState(redis, prefix);
  return async (cluster) => (await state.snoozedUntil(cluster)) !== undefined;
}
