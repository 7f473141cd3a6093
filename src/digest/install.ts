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
import type { Feature } from '../queue/job-handlers.js';
import { describeError } from '../errors.js';
import { createDigestService, type DigestService } from './digest-service.js';
import { channelAllowsByName, createDigestRunner } from './run-digest.js';

/** The daily digest's shared part, in every role: subscriptions and their schedulers. */
export interface DigestFeature extends Feature<never> {
  /** Subscriptions and their BullMQ schedulers (the bot's `/etcd digest` commands use them). */
  service: DigestService;
  /**
   * Re-creates the digest schedulers and queues a slot missed while every replica was down. Not
   * awaited at startup: with Redis down it waits for the reconnect, and startup must not.
   */
  reconcile(): Promise<void>;
  close(): Promise<void>;
}

interface DigestOptions {
  redis: Redis;
  prefix: string;
  config: ConfigFile;
  chat: ChatAdapter;
  logger: Logger;
  now: () => number;
}

/**
 * The daily digest. Every role has its subscriptions and schedulers (commands on the bot, catch-up
 * of missed slots on all); a worker adds the handlers that build and post it (installDigestJobs).
 */
export function installDigests(
  opts: DigestOptions & {
    /** Repeat every this many ms instead of daily (tests, demos). */
    everyMs?: number;
  },
): DigestFeature {
  const schedules = createDigestSchedules({ connection: opts.redis, prefix: opts.prefix });
  const service = createDigestService({
    subscriptions: createSubscriptionStore(opts.redis, opts.prefix),
    schedules,
    now: opts.now,
    ...(opts.everyMs ? { everyMs: opts.everyMs } : {}),
  });
  return {
    jobs: {},
    service,
    async reconcile() {
      try {
        const late = await service.reconcile();
        if (late.length) opts.logger.info({ late }, 'queued missed digest slots, to be sent late');
        else opts.logger.debug({ late }, 'digest catch-up: no missed slot');
      } catch (err) {
        opts.logger.warn({ err: describeError(err) }, 'digest catch-up failed');
      }
    },
    close: () => schedules.close(),
  };
}

/** The worker's `digest` and `digest-part` job handlers, which build and post the digests it is sent. */
export function installDigestJobs(
  opts: DigestOptions & {
    /** The recording doctor (history/install.ts): a digest's diagnoses are history too. */
    doctor: Doctor;
    history: HistoryStore;
    workerId: string;
    renderer: ChartRenderer;
  },
): Feature<'digest' | 'digest-part'> {
  const digest = opts.config.digest;
  const lateAfter = digest?.lateAfterMinutes;
  const watchState = createWatchState(opts.redis, opts.prefix);
  const runDigest = createDigestRunner({
    doctor: opts.doctor,
    history: opts.history,
    subscriptions: createSubscriptionStore(opts.redis, opts.prefix),
    chat: opts.chat,
    allowedIn: (cluster, channel) => channelAllowsByName(opts.config, cluster, channel),
    logger: opts.logger,
    workerId: opts.workerId,
    now: opts.now,
    postChart: createDigestChartPoster({ chat: opts.chat, renderer: opts.renderer }),
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
    jobs: {
      digest: {
        run: (job, info) =>
          runDigest(job, job.slotMs ?? slotOfSchedulerJob(info.jobId), {
            jobId: info.jobId,
            ...(info.children ? { children: info.children } : {}),
          }),
      },
      'digest-part': { run: (job) => runDigest.runPart(job) },
    },
  };
}
