import type { ConfigFile } from '../config/schema.js';
import { watchedClusters } from '../config/watched.js';

/**
 * A watch check mostly waits: the clock's four GET /version go 45-120 ms apart, and the other
 * probes run beside them, so a check holds a job slot about this long whatever its CPU.
 */
export const CHECK_HOLDS_SLOT_S = 0.5;
/** Past this many slots for checks, watch with more worker processes (they share the checks). */
export const MAX_CHECK_SLOTS = 64;

/**
 * Jobs at once a worker process needs for the watched clusters' checks to keep up with their
 * intervals (checks per second × CHECK_HOLDS_SLOT_S), on top of its slots for other jobs: 2,000
 * clusters at 60 s need 17. Each worker gets them all; with several, each uses its share.
 */
export function watchCheckSlots(config: ConfigFile): number {
  const perSecond = watchedClusters(config).reduce((n, w) => n + 1 / w.intervalSeconds, 0);
  return Math.min(MAX_CHECK_SLOTS, Math.ceil(perSecond * CHECK_HOLDS_SLOT_S));
}
