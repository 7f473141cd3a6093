import type { Redis } from '../clients/redis.js';
import { z } from 'zod';
import type { EtcdMetricsSnapshot } from '../probes/etcd-metrics.js';
import type { ScrapeMemory } from '../probes/member-context.js';

/** The last check of a watched cluster, for `/etcd watch` and the terminal view. */
export const lastCheckSchema = z.strictObject({
  t: z.number().int().nonnegative(),
  status: z.enum(['healthy', 'degraded', 'critical', 'unknown']),
  /** Findings of warning or worse, the root cause first: [cause, members]. */
  causes: z.array(z.tuple([z.string(), z.array(z.string())])),
  intervalSeconds: z.number().int().positive(),
  durationMs: z.number().nonnegative(),
  /** Consecutive checks with a warning-or-worse finding about the cluster, and healthy ones. */
  bad: z.number().int().nonnegative(),
  good: z.number().int().nonnegative(),
});
export type LastCheck = z.infer<typeof lastCheckSchema>;

/**
 * What the watch keeps between checks: each member's last /metrics scrape (a hash per cluster,
 * `<prefix>:watch:scrapes:<cluster>`, field = the /metrics URL) and the last check's outcome
 * (`<prefix>:watch:last:<cluster>`). Both expire a few intervals after the last check, so a
 * cluster no longer watched, or a worker gone for long, leaves nothing stale: the next check then
 * starts from since-start figures, as the first one does.
 */
export interface WatchState {
  scrapes(cluster: string, ttlMs: number): ScrapeMemory;
  saveLastCheck(cluster: string, check: LastCheck, ttlMs: number): Promise<void>;
  lastCheck(cluster: string): Promise<LastCheck | undefined>;
}

export function createWatchState(redis: Redis, prefix: string): WatchState {
  const scrapesKey = (cluster: string) => `${prefix}:watch:scrapes:${cluster}`;
  const lastKey = (cluster: string) => `${prefix}:watch:last:${cluster}`;
  return {
    scrapes(cluster, ttlMs) {
      const key = scrapesKey(cluster);
      return {
        async previous(metricsUrl) {
          const text = await redis.hget(key, metricsUrl);
          return text === null ? undefined : decodeSnapshot(text);
        },
        async keep(metricsUrl, snapshot) {
          await redis.multi().hset(key, metricsUrl, encodeSnapshot(snapshot)).pexpire(key, ttlMs).exec();
        },
      };
    },
    async saveLastCheck(cluster, check, ttlMs) {
      await redis.set(lastKey(cluster), JSON.stringify(check), 'PX', ttlMs);
    },
    async lastCheck(cluster) {
      const text = await redis.get(lastKey(cluster));
      if (text === null) return undefined;
      const parsed = lastCheckSchema.safeParse(safeJson(text));
      return parsed.success ? parsed.data : undefined;
    },
  };
}

/** JSON has no Infinity: a histogram's last bucket (`le: +Inf`) is written as the string "+Inf". */
export function encodeSnapshot(snapshot: EtcdMetricsSnapshot): string {
  return JSON.stringify(snapshot, (_key, value) => (value === Number.POSITIVE_INFINITY ? '+Inf' : value));
}

export function decodeSnapshot(text: string): EtcdMetricsSnapshot | undefined {
  const value = safeJson(text, (_key, v) => (v === '+Inf' ? Number.POSITIVE_INFINITY : v));
  if (typeof value !== 'object' || value === null) return undefined;
  const snap = value as Partial<EtcdMetricsSnapshot>;
  const ok = typeof snap.scrapedAtMs === 'number' && typeof snap.counters === 'object' && snap.gauges;
  return ok ? (snap as EtcdMetricsSnapshot) : undefined;
}

function safeJson(text: string, reviver?: (key: string, value: unknown) => unknown): unknown {
  try {
    return JSON.parse(text, reviver);
  } catch {
    return undefined;
  }
}
