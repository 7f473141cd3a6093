import type { Redis } from '../clients/redis.js';
import type { ConfigFile } from '../config/schema.js';
import type { Doctor } from '../doctor.js';
import type { Logger } from '../logger.js';
import { createHistoryStore, DEFAULT_RETENTION, type HistoryStore } from '../state/history-store.js';
import { withHistory } from './recording-doctor.js';

const DAY_MS = 24 * 3600_000;

export interface HistoryFeature {
  /** The doctor that records every diagnosis it runs. */
  doctor: Doctor;
  /** What digests read their trends from. */
  store: HistoryStore;
}

/** History (the worker's): every diagnosis is recorded, `history.retentionDays` long. */
export function installHistory(opts: {
  redis: Redis;
  prefix: string;
  config: ConfigFile;
  doctor: Doctor;
  logger: Logger;
  now: () => number;
}): HistoryFeature {
  const retentionDays = opts.config.history?.retentionDays;
  const store = createHistoryStore(opts.redis, opts.prefix, opts.now, {
    ...DEFAULT_RETENTION,
    ...(retentionDays ? { retentionMs: retentionDays * DAY_MS } : {}),
  });
  return { doctor: withHistory(opts.doctor, store, opts.logger), store };
}
