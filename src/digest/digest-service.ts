import type { DigestRepeat, DigestSchedules } from '../queue/digest-schedules.js';
import type { DigestJob } from '../queue/job-schemas.js';
import { cronPattern, type DailySchedule, slotAfter, slotAtOrBefore } from './schedule.js';
import { scheduleOf, type Subscription, type SubscriptionStore } from '../state/subscriptions.js';

/** What `/etcd digest ...` and process startup ask of digests. */
export interface DigestService {
  subscribe(req: {
    channel: string;
    user: string;
    clusters: 'all' | string[];
    schedule: DailySchedule;
  }): Promise<{ subscription: Subscription; nextSlotMs: number }>;
  unsubscribe(channel: string): Promise<boolean>;
  list(): Promise<
    Array<{ subscription: Subscription; nextSlotMs: number; lastSentSlotMs: number | undefined }>
  >;
  /**
   * At startup (every replica): re-create each channel's scheduler (idempotent), and queue the newest
   * slot that should have gone out but did not, once, to be sent late. Returns the slots queued.
   */
  reconcile(): Promise<Array<{ channel: string; slotMs: number }>>;
}

export interface DigestServiceDeps {
  subscriptions: SubscriptionStore;
  schedules: DigestSchedules;
  now: () => number;
  /** Tests and demos: repeat every N ms instead of the daily cron (no catch-up then). */
  everyMs?: number;
}

export function createDigestService(deps: DigestServiceDeps): DigestService {
  const repeatOf = (sub: Subscription): DigestRepeat =>
    deps.everyMs ? { everyMs: deps.everyMs } : { pattern: cronPattern(scheduleOf(sub)), tz: sub.tz };
  const template = (sub: Subscription): DigestJob => ({
    v: 1,
    kind: 'digest',
    channel: sub.channel,
    user: sub.user,
    requestedAt: sub.createdAt,
  });
  return {
    async subscribe(req) {
      const subscription: Subscription = {
        v: 1,
        channel: req.channel,
        clusters: req.clusters,
        hour: req.schedule.hour,
        minute: req.schedule.minute,
        tz: req.schedule.tz,
        user: req.user,
        createdAt: deps.now(),
      };
      await deps.subscriptions.save(subscription);
      await deps.schedules.upsert(req.channel, repeatOf(subscription), template(subscription));
      return { subscription, nextSlotMs: slotAfter(deps.now(), req.schedule) };
    },
    async unsubscribe(channel) {
      const had = await deps.subscriptions.remove(channel);
      const scheduled = await deps.schedules.remove(channel);
      return had || scheduled;
    },
    async list() {
      const subs = await deps.subscriptions.list();
      return Promise.all(
        subs.map(async (subscription) => ({
          subscription,
          nextSlotMs: slotAfter(deps.now(), scheduleOf(subscription)),
          lastSentSlotMs: await deps.subscriptions.lastSentSlot(subscription.channel),
        })),
      );
    },
    async reconcile() {
      const queued: Array<{ channel: string; slotMs: number }> = [];
      for (const sub of await deps.subscriptions.list()) {
        await deps.schedules.upsert(sub.channel, repeatOf(sub), template(sub));
        if (deps.everyMs) continue;
        const due = slotAtOrBefore(deps.now(), scheduleOf(sub));
        const last = (await deps.subscriptions.lastSentSlot(sub.channel)) ?? 0;
        if (due <= sub.createdAt || last >= due) continue;
        await deps.schedules.addCatchUp({ ...template(sub), requestedAt: deps.now(), slotMs: due });
        queued.push({ channel: sub.channel, slotMs: due });
      }
      return queued;
    },
  };
}
