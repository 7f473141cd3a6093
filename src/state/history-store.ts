import type { Redis } from '../clients/redis.js';
import { type HistorySample, historySampleSchema } from './history-sample.js';

/** Diagnosis summaries per cluster, newest last. */
export interface HistoryStore {
  record(cluster: string, sample: HistorySample): Promise<void>;
  /** Samples taken at or after `sinceMs`, oldest first. */
  samples(cluster: string, sinceMs: number): Promise<HistorySample[]>;
  /** Bytes Redis uses for the cluster's history (MEMORY USAGE), 0 when it has none. */
  memoryBytes(cluster: string): Promise<number>;
}

export interface HistoryRetention {
  /** Samples older than this are dropped on every write. Default 30 days. */
  retentionMs: number;
  /** At most this many samples per cluster, the newest kept (a runaway loop cannot fill Redis). */
  maxSamples: number;
}

export const DEFAULT_RETENTION: HistoryRetention = { retentionMs: 30 * 24 * 3600_000, maxSamples: 2000 };

/**
 * One sorted set per cluster, `<prefix>:history:<cluster>`, scored by the sample's time. Every write
 * trims by age and by count, and the key expires `retentionMs` after the last write, so a cluster
 * removed from the config leaves nothing behind.
 */
export function createHistoryStore(
  redis: Redis,
  prefix: string,
  now: () => number,
  retention: HistoryRetention = DEFAULT_RETENTION,
): HistoryStore {
  const key = (cluster: string) => `${prefix}:history:${cluster}`;
  return {
    async record(cluster, sample) {
      const k = key(cluster);
      await redis
        .multi()
        .zadd(k, sample.t, JSON.stringify(sample))
        .zremrangebyscore(k, '-inf', `(${now() - retention.retentionMs}`)
        .zremrangebyrank(k, 0, -(retention.maxSamples + 1))
        .pexpire(k, retention.retentionMs)
        .exec();
    },
    async samples(cluster, sinceMs) {
      const raw = await redis.zrangebyscore(key(cluster), sinceMs, '+inf');
      return raw.flatMap((text) => {
        const parsed = historySampleSchema.safeParse(safeJson(text));
        return parsed.success ? [parsed.data] : [];
      });
    },
    async memoryBytes(cluster) {
      const bytes = await redis.call('MEMORY', 'USAGE', key(cluster), 'SAMPLES', '0');
      return typeof bytes === 'number' ? bytes : 0;
    },
  };
}

/** For the CLI when Redis is not reachable: trends start from nothing. */
export function createMemoryHistoryStore(): HistoryStore {
  const all = new Map<string, HistorySample[]>();
  return {
    async record(cluster, sample) {
      const list = all.get(cluster) ?? [];
      list.push(sample);
      list.sort((a, b) => a.t - b.t);
      all.set(cluster, list);
    },
    async samples(cluster, sinceMs) {
      return (all.get(cluster) ?? []).filter((s) => s.t >= sinceMs);
    },
    async memoryBytes() {
      return 0;
    },
  };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
