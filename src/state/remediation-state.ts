import { type Redis, replicated } from '../clients/redis.js';
import { createOwnedLocks, type HeldLock, type HoldOptions } from './owned-lock.js';

/**
 * What remediation remembers in Redis: which confirmations were pressed (a double click or a Slack
 * retry finds the claim), which plans ran (a recovered job does not run again), the one mutating
 * action per cluster at a time, tickets per diagnosis, and snoozes.
 */
export interface RemediationState {
  /** First press of a confirmation wins; later presses get the first presser back. */
  claimPress(planId: string, user: string): Promise<{ first: true } | { first: false; by: string }>;
  /** Who pressed the plan's run, if anyone did. */
  pressedBy(planId: string): Promise<string | undefined>;
  /** True once per plan: the worker calls it right before running. `owner`: who runs it. */
  markRunning(planId: string, owner: string): Promise<boolean>;
  /** The owner markRunning recorded for the plan, while its marker holds. */
  runOwner(planId: string): Promise<string | undefined>;
  /** The plan's run reached its end (an outcome, a refusal or an error), or was told as interrupted. */
  markEnded(planId: string): Promise<void>;
  runEnded(planId: string): Promise<boolean>;
  /**
   * Forgets a plan's press and run markers, so its button can be pressed again: only for a run that
   * was refused before it touched anything because another action held the cluster.
   */
  releaseRun(planId: string, user: string, owner: string): Promise<void>;
  /**
   * One open confirmation per plan: the first press of a button that needs one gets it (`opened`);
   * while it is open, others get its holder (`<user>:<confirmation plan id>`) back.
   */
  openConfirmation(
    planId: string,
    holder: string,
    ttlMs: number,
  ): Promise<{ opened: true } | { opened: false; holder: string }>;
  /**
   * One mutating action per cluster (so never two nodes restarting at once), renewed while it runs;
   * a failed renewal aborts the hold's signal and calls `onLost`.
   */
  holdLock(cluster: string, owner: string, opts: HoldOptions): Promise<HeldLock | undefined>;
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

export function createRemediationState(redis: Redis, prefix: string): RemediationState {
  const key = (...parts: string[]) => [prefix, 'remediation', ...parts].join(':');
  const locks = createOwnedLocks(redis);
  const markMs = MARK_TTL_SECONDS * 1000;
  return {
    async claimPress(planId, user) {
      const k = key('pressed', planId);
      if ((await locks.acquire(k, user, markMs)) === 'acquired') return { first: true };
      return { first: false, by: (await locks.holder(k)) ?? 'someone' };
    },
    pressedBy: (planId) => locks.holder(key('pressed', planId)),
    async releaseRun(planId, user, owner) {
      await locks.release(key('pressed', planId), user);
      await locks.release(key('ran', planId), owner);
    },
    async markRunning(planId, owner) {
      const acquired = (await locks.acquire(key('ran', planId), owner, markMs)) === 'acquired';
      if (!acquired) return false;
      // A run released before it touched anything (another action held the cluster) ended too.
      await redis.del(key('ended', planId));
      await replicated(redis, key('ran', planId));
      return true;
    },
    runOwner: (planId) => locks.holder(key('ran', planId)),
    async markEnded(planId) {
      await redis.set(key('ended', planId), '1', 'EX', MARK_TTL_SECONDS);
    },
    async runEnded(planId) {
      return (await redis.exists(key('ended', planId))) === 1;
    },
    async openConfirmation(planId, holder, ttlMs) {
      const k = key('confirmation', planId);
      if ((await locks.acquire(k, holder, ttlMs)) === 'acquired') return { opened: true };
      return { opened: false, holder: (await locks.holder(k)) ?? 'someone' };
    },
    holdLock: (cluster, owner, opts) => locks.hold(key('lock', cluster), owner, opts),
    lockHolder: (cluster) => locks.holder(key('lock', cluster)),
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
