import type { Redis } from '../clients/redis.js';
import { z } from 'zod';
import type { EtcdMetricsSnapshot } from '../probes/etcd-metrics.js';
import type { ScrapeMemory } from '../probes/member-context.js';
import type { RedisWrites } from './minute-history.js';

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
  /**
   * A check's state in one round trip (the kept scrapes and the last check), and its own writes
   * (the scrapes it keeps, its outcome) queued for the one MULTI that records its minute sample.
   */
  checkState(cluster: string, ttlMs: number): Promise<CheckState>;
  saveLastCheck(cluster: string, check: LastCheck, ttlMs: number): Promise<void>;
  lastCheck(cluster: string): Promise<LastCheck | undefined>;
}

export interface CheckState {
  /** Reads what the prefetch found; keeps are queued until `writes`. */
  scrapes: ScrapeMemory;
  last: LastCheck | undefined;
  /** The queued scrapes and this check's outcome, to add to the minute history's MULTI. */
  writes(check: LastCheck): RedisWrites;
}

export function createWatchState(redis: Redis, prefix: string): WatchState {
  const scrapesKey = (cluster: string) => `${prefix}:watch:scrapes:${cluster}`;
  const lastKey = (cluster: string) => `${prefix}:watch:last:${cluster}`;
  return {
    async checkState(cluster, ttlMs) {
      const key = scrapesKey(cluster);
      // Redis away: the check goes on from since-start figures, as a first check does (its
      // minute sample then fails to record, and the job is retried).
      const [kept, last] = await redis
        .pipeline()
        .hgetall(key)
        .get(lastKey(cluster))
        .exec()
        .then(
          (replies) => [replies?.[0]?.[1], replies?.[1]?.[1]] as const,
          () => [undefined, undefined] as const,
        );
      const found = (kept ?? {}) as Record<string, string>;
      const queued: Record<string, string> = {};
      return {
        scrapes: {
          previous: async (url) => {
            const text = found[url];
            return text === undefined ? undefined : decodeSnapshot(text);
          },
          keep: async (url, snapshot) => {
            queued[url] = encodeSnapshot(snapshot);
          },
        },
        last: typeof last === 'string' ? parseLastCheck(last) : undefined,
        writes: (check) => (multi) => {
          if (Object.keys(queued).length) multi.hset(key, queued).pexpire(key, ttlMs);
          multi.set(lastKey(cluster), JSON.stringify(check), 'PX', ttlMs);
        },
      };
    },
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
      return text === null ? undefined : parseLastCheck(text);
    },
  };
}

function parseLastCheck(text: string): LastCheck | undefined {
  const parsed = lastCheckSchema.safeParse(safeJson(text));
  return parsed.success ? parsed.data : undefined;
}

/** JSON has no Infinity: a histogram's last bucket (`le: +Inf`) is written as the string "+Inf". */
export function encodeSnapshot(snapshot: EtcdMetricsSnapshot): string {
  return JSON.stringify(snapshot, (_key, value) => (value === Number.POSITIVE_INFINITY ? '+Inf' : value));
}

export function decodeSnapshot(text: string): EtcdMetricsSnapshot | undefined {
  const value = withInfinity(safeJson(text));
  if (typeof value !== 'object' || value === null) return undefined;
  const snap = value as Partial<EtcdMetricsSnapshot>;
  const ok = typeof snap.scrapedAtMs === 'number' && typeof snap.counters === 'object' && snap.gauges;
  return ok ? (snap as EtcdMetricsSnapshot) : undefined;
}

/**
 * Every "+Inf" string of parsed JSON as Infinity, in place: what a JSON.parse reviver would do, at
 * about a quarter of its cost (a reviver is a call from C++ for every value: 77 µs a member's
 * snapshot with it, 20 µs parse and walk, 14 µs the parse alone, every watch check; 2026-12-05).
 */
function withInfinity(value: unknown): unknown {
  if (value === '+Inf') return Number.POSITIVE_INFINITY;
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = withInfinity(value[i]);
    return value;
  }
  const record = value as Record<string, unknown>;
  for (const key in record) record[key] = withInfinity(record[key]);
  return value;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
