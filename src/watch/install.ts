import type { ChatAdapter } from '../chat/adapter.js';
import type { ChartRenderer } from '../charts/chart-renderer.js';
import { createCauseChartPoster } from '../charts/post-chart.js';
import type { Redis } from '../clients/redis.js';
import type { ConfigFile } from '../config/schema.js';
import type { Doctor } from '../doctor.js';
import { describeError } from '../errors.js';
import { sinceWhen } from '../history/since-when.js';
import { readHistory } from '../history/since-when-report.js';
import type { Logger } from '../logger.js';
import { createWatchSchedules } from '../queue/watch-schedules.js';
import { createIncidents } from '../state/incidents.js';
import { createMinuteHistory } from '../state/minute-history.js';
import type { PlanStore } from '../state/plan-store.js';
import { createIsSnoozed } from '../state/remediation-state.js';
import { createWatchState } from '../state/watch-state.js';
import type { Feature } from '../queue/job-handlers.js';
import { createIncidentRunner } from './incident-runner.js';
import { createWatchCheck } from './run-watch-check.js';
import { watchedClusters } from '../config/watched.js';

export interface WatchFeature extends Feature<'watch'> {
  /** Upserts a scheduler per watched cluster and removes the others; not awaited at startup. */
  reconcile(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The watch (the worker's): each watched cluster is checked every interval by its BullMQ job
 * scheduler, each check lands in the minute history, and a problem seen in consecutive checks
 * opens one incident thread in the cluster's `slack.channel`.
 */
export function installWatch(opts: {
  redis: Redis;
  prefix: string;
  config: ConfigFile;
  /** The plain doctor (see run-watch-check.ts). */
  doctor: Doctor;
  chat: ChatAdapter;
  plans: Pick<PlanStore, 'save'>;
  /** Draws the incident charts; none: incidents post no chart. */
  renderer?: ChartRenderer;
  logger: Logger;
  now: () => number;
}): WatchFeature {
  const history = createMinuteHistory(opts.redis, opts.prefix, opts.now);
  const state = createWatchState(opts.redis, opts.prefix);
  const schedules = createWatchSchedules({ connection: opts.redis, prefix: opts.prefix });
  const incidents = createIncidentRunner({
    chat: opts.chat,
    incidents: createIncidents(opts.redis, opts.prefix),
    plans: opts.plans,
    isSnoozed: createIsSnoozed(opts.redis, opts.prefix),
    channelOf: (cluster) => opts.config.clusters.find((c) => c.name === cluster)?.slack?.channel,
    clusterOf: (cluster) => opts.config.clusters.find((c) => c.name === cluster),
    sinceWhen: async (cluster, subject) => {
      const now = opts.now();
      const series = await readHistory(history, cluster, now, opts.logger);
      return sinceWhen(series, subject.cause, subject.members[0], now);
    },
    ...(opts.renderer
      ? {
          postChart: createCauseChartPoster({
            chat: opts.chat,
            renderer: opts.renderer,
            history,
            now: opts.now,
          }),
        }
      : {}),
    logger: opts.logger,
    now: opts.now,
  });
  const check = createWatchCheck({
    doctor: opts.doctor,
    history,
    state,
    afterCheck: incidents,
    logger: opts.logger,
    now: opts.now,
  });
  return {
    jobs: { watch: { run: (job) => check(job) } },
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
