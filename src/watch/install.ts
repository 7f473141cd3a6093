import type { Redis } from '../clients/redis.js';
import type { ConfigFile } from '../config/schema.js';
import type { Doctor } from '../doctor.js';
import { describeError } from '../errors.js';
import type { Logger } from '../logger.js';
import { createWatchSchedules } from '../queue/watch-schedules.js';
import { createMinuteHistory, type MinuteHistory } from '../state/minute-history.js';
import { createWatchState, type WatchState } from '../state/watch-state.js';
import type { ExtraJobHandlers } from '../worker/route-jobs.js';
import { createWatchCheck } from './run-watch-check.js';
import { watchedClusters } from './watched-clusters.js';

export interface WatchFeature {
  /** The worker's `watch` job handler. */
  jobs: Pick<ExtraJobHandlers, 'watch'>;
  history: MinuteHistory;
  state: WatchState;
  /** Upserts a scheduler per watched cluster and removes the others; not awaited at startup. */
  reconcile(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The watch (the worker's): each watched cluster is checked every interval by its BullMQ job
 * scheduler, and each check lands in the minute history.
 */
export function installWatch(opts: {
  redis: Redis;
  prefix: string;
  config: ConfigFile;
  /** The plain doctor (see run-watch-check.ts). */
  doctor: Doctor;
  logger: Logger;
  now: () => number;
}): WatchFeature {
  const history = createMinuteHistory(opts.redis, opts.prefix, opts.now);
  const state = createWatchState(opts.redis, opts.prefix);
  const schedules = createWatchSchedules({ connection: opts.redis, prefix: opts.prefix });
  const check = createWatchCheck({ doctor: opts.doctor, history, state, logger: opts.logger });
  return {
    jobs: { watch: (job) => check(job) },
    history,
    state,
    async reconcile() {
      const watched = watchedClusters(opts.config);
      try {
        const { removed } = await schedules.reconcile(watched);
        if (watched.length || removed.length)
          opts.logger.info({ watched: watched.map((w) => w.cluster), removed }, 'watch schedulers set');
      } catch (err) {
        opts.logger.warn({ err: describeError(err) }, 'could not set the watch schedulers');
      }
    },
    close: () => schedules.close(),
  };
}
