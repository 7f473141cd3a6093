import type { Redis } from '../clients/redis.js';
import type { ConfigFile } from '../config/schema.js';
import { createIncidents, type Incident } from '../state/incidents.js';
import { createWatchState, type LastCheck } from '../state/watch-state.js';
import { watchedClusters } from '../config/watched.js';

export interface WatchedCluster {
  cluster: string;
  intervalSeconds: number;
  last: LastCheck | undefined;
  incident: Incident | undefined;
}

/** What `/etcd watch` and `etcd-doctor watch` show: the watched clusters, their last check, their incident. */
export interface WatchStatus {
  list(): Promise<WatchedCluster[]>;
}

export function createWatchStatus(redis: Redis, prefix: string, config: ConfigFile): WatchStatus {
  const state = createWatchState(redis, prefix);
  const incidents = createIncidents(redis, prefix);
  return {
    list: () =>
      Promise.all(
        watchedClusters(config).map(async (w) => ({
          ...w,
          last: await state.lastCheck(w.cluster),
          incident: await incidents.get(w.cluster),
        })),
      ),
  };
}
