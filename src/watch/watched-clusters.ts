import type { ConfigFile } from '../config/schema.js';

/** The clusters to watch and their interval: their own `watch`, else the top-level one; none when neither is set. */
export function watchedClusters(config: ConfigFile): Array<{ cluster: string; intervalSeconds: number }> {
  return config.clusters.flatMap((c) => {
    const intervalSeconds = c.watch?.intervalSeconds ?? config.watch?.intervalSeconds;
    return intervalSeconds === undefined ? [] : [{ cluster: c.name, intervalSeconds }];
  });
}

/** The watch writes minute history only for these clusters (its own interval or the default). */
export function isWatched(config: ConfigFile, cluster: string): boolean {
  return watchedClusters(config).some((w) => w.cluster === cluster);
}

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
