import type { ChartRenderer } from '../charts/chart-renderer.js';
import { createChartPoster } from '../charts/post-chart.js';
import { createMinuteHistory } from '../state/minute-history.js';
import type { ChatAdapter } from '../chat/adapter.js';
import type { Redis } from '../clients/redis.js';
import type { ConfigFile } from '../config/schema.js';
import type { Doctor } from '../doctor.js';
import type { Logger } from '../logger.js';
import { createAlertThreads } from '../state/alert-threads.js';
import { createIncidents } from '../state/incidents.js';
import { createOwnedLocks } from '../state/owned-lock.js';
import type { PlanStore } from '../state/plan-store.js';
import { createIsSnoozed } from '../state/remediation-state.js';
import type { Feature } from '../queue/job-handlers.js';
import { createAlertRunner } from './run-alert.js';

const DEFAULT_THREAD_WINDOW_MINUTES = 720;
/** Alertmanager repeats a group every repeat_interval (4 h by default) and groups fire together: 5 min coalesces a burst. */
const DEFAULT_COALESCE_MINUTES = 5;

/**
 * Alert triage (the worker's `alert` jobs, queued by POST /alertmanager): one thread per alert
 * group, one diagnosis per cluster per coalescing window, nothing for a snoozed cluster.
 */
export function installAlerts(opts: {
  redis: Redis;
  prefix: string;
  config: ConfigFile;
  chat: ChatAdapter;
  doctor: Doctor;
  plans: Pick<PlanStore, 'save'>;
  renderer: ChartRenderer;
  logger: Logger;
  now: () => number;
}): Feature<'alert'> {
  const windowMinutes = opts.config.alertmanager?.threadWindowMinutes ?? DEFAULT_THREAD_WINDOW_MINUTES;
  const coalesceMs = (opts.config.alertmanager?.coalesceMinutes ?? DEFAULT_COALESCE_MINUTES) * 60_000;
  const locks = createOwnedLocks(opts.redis);
  const incidents = createIncidents(opts.redis, opts.prefix);
  const runAlert = createAlertRunner({
    doctor: opts.doctor,
    chat: opts.chat,
    threads: createAlertThreads(opts.redis, opts.prefix, windowMinutes * 60_000),
    plans: opts.plans,
    isSnoozed: createIsSnoozed(opts.redis, opts.prefix),
    claimDiagnosis: async (cluster, where) => {
      const key = `${opts.prefix}:alert-diagnosis:${cluster}`;
      const release = async () => {
        await locks.release(key, where);
      };
      if (coalesceMs <= 0) return { first: true, release };
      if ((await locks.acquire(key, where, coalesceMs)) === 'acquired') return { first: true, release };
      return { first: false, holder: (await locks.holder(key)) ?? 'another alert thread' };
    },
    coalesceMs,
    logger: opts.logger,
    now: opts.now,
    postChart: createChartPoster({
      chat: opts.chat,
      renderer: opts.renderer,
      history: createMinuteHistory(opts.redis, opts.prefix, opts.now),
      now: opts.now,
    }),
    incidentRoot: async (cluster) => (await incidents.get(cluster))?.root,
    noteRoot: (cluster, root) => incidents.noteAlertRoot(cluster, root, windowMinutes * 60_000),
  });
  return { jobs: { alert: { run: (job) => runAlert(job) } } };
}
