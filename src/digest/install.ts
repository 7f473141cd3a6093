import type { ChartRenderer } from '../charts/chart-renderer.js';
import { createDigestChartPoster } from '../charts/post-chart.js';
import type { ChatAdapter } from '../chat/adapter.js';
import type { Redis } from '../clients/redis.js';
import type { ConfigFile } from '../config/schema.js';
import type { Doctor } from '../doctor.js';
import type { Logger } from '../logger.js';
import { createDigestSchedules, slotOfSchedulerJob } from '../queue/digest-schedules.js';
import type { HistoryStore } from '../state/history-store.js';
import { createMinuteHistory } from '../state/minute-history.js';
import { createSubscriptionStore } from '../state/subscriptions.js';
import { createWatchState } from '../state/watch-state.js';
import type { JobKindHandlers } from '../queue/job-handlers.js';
import { createDigestService, type DigestService } from './digest-service.js';
import { channelAllowsByName, createDigestRunner } from './run-digest.js';

/** What a worker adds to run the digests it is sent. */
export interface DigestWorkerDeps {
  /** The recording doctor (history/install.ts): a digest's diagnoses are history too. */
  doctor: Doctor;
  history: HistoryStore;
  workerId: string;
  renderer: ChartRenderer;
}

export interface DigestFeature {
  /** Subscriptions and their BullMQ schedulers (the bot's `/etcd digest` commands use them). */
  service: DigestService;
  /** The worker's `digest` and `digest-part` job handlers. */
  jobs(worker: DigestWorkerDeps): Pick<JobKindHandlers, 'digest' | 'digest-part'>;
  close(): Promise<void>;
}

/**
 * The daily digest. Every role has its subscriptions and schedulers (commands on the bot, catch-up
 * of missed slots on all); a worker adds the handlers that build and post it.
 */
export function installDigests(opts: {
  redis: Redis;
  prefix: string;
  config: ConfigFile;
  chat: ChatAdapter;
  logger: Logger;
  now: () => number;
  /** Repeat every this many ms instead of daily (tests, demos). */
  everyMs?: number;
}): DigestFeature {
  const schedules = createDigestSchedules({ connection: opts.redis, prefix: opts.prefix });
  const subscriptions = createSubscriptionStore(opts.redis, opts.prefix);
  const service = createDigestService({
    subscriptions,
    schedules,
    now: opts.now,
    ...(opts.everyMs ? { everyMs: opts.everyMs } : {}),
  });
  const digest = opts.config.digest;
  const lateAfter = digest?.lateAfterMinutes;
  return {
    service,
    jobs(worker) {
      const watchState = createWatchState(opts.redis, opts.prefix);
      const runDigest = createDigestRunner({
        doctor: worker.doctor,
        history: worker.history,
        subscriptions,
        chat: opts.chat,
        allowedIn: (cluster, channel) => channelAllowsByName(opts.config, cluster, channel),
        logger: opts.logger,
        workerId: worker.workerId,
        now: opts.now,
        postChart: createDigestChartPoster({ chat: opts.chat, renderer: worker.renderer }),
        // A watched cluster's day comes from the watch's minute history, with one scrape per member.
        minutes: createMinuteHistory(opts.redis, opts.prefix, opts.now),
        // Read only (the ttl is for writes, which the digest never makes).
        watchScrapes: (cluster) => watchState.scrapes(cluster, 0),
        ...(digest?.concurrency ? { concurrency: digest.concurrency } : {}),
        ...(digest?.memoryBudgetMiB ? { memoryBudgetBytes: digest.memoryBudgetMiB * 1024 * 1024 } : {}),
        ...(digest?.partSize ? { partSize: digest.partSize } : {}),
        ...(lateAfter ? { lateAfterMs: lateAfter * 60_000 } : {}),
      });
      return {
        digest: {
          run: (job, info) =>
            runDigest(job, job.slotMs ?? slotOfSchedulerJob(info.jobId), {
              jobId: info.jobId,
              ...(info.children ? { children: info.children } : {}),
            }),
        },
        'digest-part': { run: (job) => runDigest.runPart(job) },
      };
    },
    close: () => schedules.close(),
  };
}
