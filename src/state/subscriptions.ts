import type { Redis } from '../clients/redis.js';
import { z } from 'zod';
import { createOwnedLocks } from './owned-lock.js';
import type { DailySchedule } from '../digest/schedule.js';

/** One channel's digest: which clusters, when. A channel has at most one (subscribing again replaces it). */
export const subscriptionSchema = z.strictObject({
  v: z.literal(1),
  channel: z.string().min(1),
  /** `all` follows the config: clusters added later are included. */
  clusters: z.union([z.literal('all'), z.array(z.string().min(1)).min(1)]),
  hour: z.number().int().min(0).max(23),
  minute: z.number().int().min(0).max(59),
  tz: z.string().min(1),
  user: z.string().min(1),
  createdAt: z.number().int().nonnegative(),
});

export type Subscription = z.infer<typeof subscriptionSchema>;

export function scheduleOf(sub: Subscription): DailySchedule {
  return { hour: sub.hour, minute: sub.minute, tz: sub.tz };
}

export interface SubscriptionStore {
  save(sub: Subscription): Promise<void>;
  /** Resolves false when the channel had none. */
  remove(channel: string): Promise<boolean>;
  get(channel: string): Promise<Subscription | undefined>;
  list(): Promise<Subscription[]>;
  /** The newest slot (epoch ms) whose digest went out, for missed-slot catch-up. */
  lastSentSlot(channel: string): Promise<number | undefined>;
  /**
   * Claims `<prefix>:digest:<channel>:<slot>` with SET NX before posting: exactly one replica gets
   * `true` (and the same owner again, which extends its claim). The claim holds `leaseMs`; `markSent`
   * keeps it for good (8 days), `release` lets a retry in.
   */
  claimSlot(channel: string, slot: number, owner: string, leaseMs: number): Promise<boolean>;
  markSent(channel: string, slot: number): Promise<void>;
  releaseSlot(channel: string, slot: number, owner: string): Promise<void>;
}

/** Longer than any catch-up looks back (one slot), and short enough to clean up after itself. */
const SENT_TTL_SECONDS = 8 * 24 * 3600;
// Keep the newest slot only: KEYS[1] last-sent key, ARGV[1] slot.
const SET_MAX = `local v = tonumber(redis.call('GET', KEYS[1]) or '0')
if tonumber(ARGV[1]) > v then redis.call('SET', KEYS[1], ARGV[1]) end return 1`;

export function createSubscriptionStore(redis: Redis, prefix: string): SubscriptionStore {
  const locks = createOwnedLocks(redis);
  const subsKey = `${prefix}:digest-subscriptions`;
  const lastKey = (channel: string) => `${prefix}:digest-last:${channel}`;
  const slotKey = (channel: string, slot: number) => `${prefix}:digest:${channel}:${slot}`;
  const parse = (raw: string | null | undefined): Subscription | undefined => {
    if (raw === null || raw === undefined) return undefined;
    try {
      const parsed = subscriptionSchema.safeParse(JSON.parse(raw));
      return parsed.success ? parsed.data : undefined;
    } catch {
      return undefined;
    }
  };
  return {
    async save(sub) {
      await redis.hset(subsKey, sub.channel, JSON.stringify(sub));
    },
    async remove(channel) {
      const removed = await redis.hdel(subsKey, channel);
      await redis.del(lastKey(channel));
      return removed > 0;
    },
    async get(channel) {
      return parse(await redis.hget(subsKey, channel));
    },
    async list() {
      const all = await redis.hvals(subsKey);
      return all.flatMap((raw) => parse(raw) ?? []).sort((a, b) => a.channel.localeCompare(b.channel));
    },
    async lastSentSlot(channel) {
      const raw = await redis.get(lastKey(channel));
      return raw === null ? undefined : Number(raw);
    },
    async claimSlot(channel, slot, owner, leaseMs) {
      // Re-entrant: a digest that fanned out claims its slot again when it collects its parts.
      return (
        (await locks.acquire(slotKey(channel, slot), owner, leaseMs, { reentrant: true })) === 'acquired'
      );
    },
    async markSent(channel, slot) {
      await redis.set(slotKey(channel, slot), 'sent', 'EX', SENT_TTL_SECONDS);
      await redis.eval(SET_MAX, 1, lastKey(channel), String(slot));
    },
    async releaseSlot(channel, slot, owner) {
      await locks.release(slotKey(channel, slot), owner);
    },
  };
}
