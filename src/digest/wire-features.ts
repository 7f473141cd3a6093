import type { Redis } from '../clients/redis.js';
import { createAlertThreads } from '../state/alert-threads.js';
import { createAlertRunner } from '../alerts/run-alert.js';
import { createChartRenderer } from '../charts/chart-renderer.js';
import { createChartPoster, createDigestChartPoster } from '../charts/post-chart.js';
import type { ChatAdapter } from '../chat/adapter.js';
import type { ConfigFile } from '../config/schema.js';
import type { Doctor } from '../doctor.js';
import { DEFAULT_RETENTION, createHistoryStore } from '../state/history-store.js';
import { withHistory } from '../history/recording-doctor.js';
import type { Logger } from '../logger.js';
import { createDigestSchedules, slotOfSchedulerJob } from '../queue/digest-schedules.js';
import { createIsSnoozed } from '../state/remediation-state.js';
import type { PlanStore } from '../state/plan-store.js';
import type { ExtraJobHandlers } from '../worker/route-jobs.js';
import { createDigestService, type DigestService } from './digest-service.js';
import { channelAllowsByName, createDigestRunner } from './run-digest.js';
import { createSubscriptionStore } from '../state/subscriptions.js';
import { createOwnedLocks } from '../state/owned-lock.js';

const DAY_MS = 24 * 3600_000;
const DEFAULT_THREAD_WINDOW_MINUTES = 720;
/** Alertmanager repeats a group every repeat_interval (4 h by default) and groups fire together: 5 min coalesces a burst. */
const DEFAULT_COALESCE_MINUTES = 5;

export interface WorkerFeatureOptions {
  redis: Redis;
  prefix: string;
  config: ConfigFile;
  chat: ChatAdapter;
  doctor: Doctor;
  plans: Pick<PlanStore, 'save'>;
  logger: Logger;
  workerId: string;
  now: () => number;
}

/**
 * The worker's part of history, digests and alert triage: a Doctor that records every diagnosis, and
 * the handlers for `digest` and `alert` jobs.
 */
export function createWorkerFeatures(opts: WorkerFeatureOptions): { doctor: Doctor; jobs: ExtraJobHandlers } {
  const retentionDays = opts.config.history?.retentionDays;
  const history = createHistoryStore(opts.redis, opts.prefix, opts.now, {
    ...DEFAULT_RETENTION,
    ...(retentionDays ? { retentionMs: retentionDays * DAY_MS } : {}),
  });
  const doctor = withHistory(opts.doctor, history, opts.logger);
  const renderer = createChartRenderer();
  const lateAfter = opts.config.digest?.lateAfterMinutes;
  const runDigest = createDigestRunner({
    doctor,
    history,
    subscriptions: createSubscriptionStore(opts.redis, opts.prefix),
    chat: opts.chat,
    allowedIn: (cluster, channel) => channelAllowsByName(opts.config, cluster, channel),
    logger: opts.logger,
    workerId: opts.workerId,
    now: opts.now,
    postChart: createDigestChartPoster({ chat: opts.chat, renderer }),
    ...(opts.config.digest?.concurrency ? { concurrency: opts.config.digest.concurrency } : {}),
    ...(opts.config.digest?.partSize ? { partSize: opts.config.digest.partSize } : {}),
    ...(lateAfter ? { lateAfterMs: lateAfter * 60_000 } : {}),
  });
  const windowMinutes = opts.config.alertmanager?.threadWindowMinutes ?? DEFAULT_THREAD_WINDOW_MINUTES;
  const coalesceMs = (opts.config.alertmanager?.coalesceMinutes ?? DEFAULT_COALESCE_MINUTES) * 60_000;
  const locks = createOwnedLocks(opts.redis);
  const runAlert = createAlertRunner({
    doctor,
    chat: opts.chat,
    threads: createAlertThreads(opts.redis, opts.prefix, windowMinutes * 60_000),
    plans: opts.plans,
    isSnoozed: createIsSnoozed(opts.redis, opts.prefix),
    claimDiagnosis: async (cluster, where) => {
      if (coalesceMs <= 0) return { first: true };
      const key = `${opts.prefix}:alert-diagnosis:${cluster}`;
      if ((await locks.acquire(key, where, coalesceMs)) === 'acquired') return { first: true };
      return { first: false, holder: (await locks.holder(key)) ?? 'another alert thread' };
    },
    coalesceMs,
    logger: opts.logger,
    now: opts.now,
    postChart: createChartPoster({ chat: opts.chat, renderer }),
  });
  return {
    doctor,
    jobs: {
      digest: (job, info) =>
        runDigest(job, job.slotMs ?? slotOfSchedulerJob(info.jobId), {
          jobId: info.jobId,
          ...(info.children ? { children: info.children } : {}),
        }),
      digestPart: (job) => runDigest.runPart(job),
      alert: (job) => runAlert(job),
    },
  };
}

/** Subscriptions and their BullMQ schedulers; every role has them (commands on the bot, catch-up on all). */
export function createDigestFeature(opts: {
  redis: Redis;
  prefix: string;
  now: () => number;
  everyMs?: number;
}): { service: DigestService; close(): Promise<void> } {
  const schedules = createDigestSchedules({ connection: opts.redis, prefix: opts.prefix });
  const service = createDigestService({
    subscriptions: createSubscriptionStore(opts.redis, opts.prefix),
    schedules,
    now: opts.now,
    ...(opts.everyMs ? { everyMs: opts.everyMs } : {}),
  });
  return { service, close: () => schedules.close() };
}
