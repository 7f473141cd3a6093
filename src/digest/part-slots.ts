import type { ConfigFile } from '../config/schema.js';

/** A digest of more clusters than this hands them out as `digest-part` jobs of this many. */
export const DEFAULT_PART_SIZE = 50;
/** Past this many slots for parts, digest with more worker processes (they share the parts). */
export const MAX_PART_SLOTS = 32;

/**
 * Jobs at once a worker process needs so that a digest's parts never wait in line for a job slot,
 * on top of its slots for other jobs. A part mostly waits (its clusters' 3 s metrics windows and
 * the process's memory budget, shared by every part, bound what it holds and does), so parts held
 * in a queue behind four slots made a 1,000-cluster digest run in waves of 200 clusters (30.5 s;
 * the same clusters in one process, all under the budget at once: 23.6 s; docs/BENCHMARKS.md).
 * With several workers each takes what it can: BullMQ gives a part to whichever asks first.
 */
export function digestPartSlots(config: Pick<ConfigFile, 'clusters' | 'digest'>): number {
  const partSize = config.digest?.partSize ?? DEFAULT_PART_SIZE;
  const clusters = config.clusters.length;
  if (clusters <= partSize) return 0;
  return Math.min(MAX_PART_SLOTS, Math.ceil(clusters / partSize));
}
