import type { ConfigFile } from './schema.js';

// Which clusters the watch checks is configuration: the watch, the CLI and the since-when readers
// (history/) all ask, and none of them should need the watch's code for it.

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
