import type { Redis } from '../clients/redis.js';
import type { ConfigFile } from '../config/schema.js';
import { createHistoryStore, DEFAULT_RETENTION, type HistoryStore } from '../state/history-store.js';

const DAY_MS = 24 * 3600_000;

/**
 * The history store, `history.retentionDays` long: what a recording doctor (doctor-for.ts) writes
 * every diagnosis to, and what digests read their trends from.
 */
export function historyStoreFor(
  redis: Redis,
  prefix: string,
  config: ConfigFile,
  now: () => number,
): HistoryStore {
  const retentionDays = config.history?.retentionDays;
  return createHistoryStore(redis, prefix, now, {
    ...DEFAULT_RETENTION,
    ...(retentionDays ? { retentionMs: retentionDays * DAY_MS } : {}),
  });
}
