import type { AnswerOnce } from '../answer/answer-once.js';
import type { ChatAdapter, ChatHandlers } from '../chat/adapter.js';
import type { ConfigFile } from '../config/schema.js';
import type { Logger } from '../logger.js';
import type { EnqueueOutcome } from '../queue/job-queue.js';
import type { Feature, JobKindHandlers } from '../queue/job-handlers.js';
import type { AnalyzeJob } from '../queue/job-schemas.js';
import type { RateLimiter } from '../state/rate-limit.js';
import { createAnalyzeJob } from './analyze-job.js';
import { createFileRequests } from './file-requests.js';

/** Files larger than this are refused in chat (before downloading when Slack gives the size). */
export const DEFAULT_MAX_FILE_BYTES = 250 * 1000 * 1000;

/** Analyses of shared files at once per worker process (offline.concurrency): each is a process with its own limits. */
export const DEFAULT_ANALYSIS_CONCURRENCY = 1;

export interface OfflineChatWiring {
  enqueue(job: AnalyzeJob): Promise<EnqueueOutcome>;
  limiter: RateLimiter;
  limits: { perUser: number; windowMs: number };
}

export interface OfflineWorkerWiring {
  /** The worker's way to answer a job once (answer/answer-once.ts). */
  answer: AnswerOnce;
  tmpRoot?: string;
}

export interface OfflineDeps {
  chat: ChatAdapter;
  config: ConfigFile;
  logger: Logger;
  /** The bot and serve roles: files shared in chat become `analyze` jobs. */
  bot?: OfflineChatWiring;
  /** The worker and serve roles: `analyze` jobs download, analyse and answer. */
  worker?: OfflineWorkerWiring;
}

export interface OfflineFeature extends Feature<never> {
  onFiles?: NonNullable<ChatHandlers['onFiles']>;
  /** The `analyze` handler, where this role has a worker side. */
  jobs: Partial<Pick<JobKindHandlers, 'analyze'>>;
}

/**
 * Offline triage in chat: a file dropped into a DM with the bot, or into a thread with
 * a mention, is analysed by a worker and answered in that thread; the shell's `analyze <path...>`
 * takes the same path. Each role passes what it has.
 */
export function installOfflineAnalysis(deps: OfflineDeps): OfflineFeature {
  const maxFileBytes = deps.config.offline?.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  const feature: OfflineFeature = { jobs: {} };
  if (deps.bot)
    feature.onFiles = createFileRequests({
      config: deps.config,
      enqueue: deps.bot.enqueue,
      limiter: deps.bot.limiter,
      limits: deps.bot.limits,
      maxFileBytes,
      logger: deps.logger,
    });
  if (deps.worker)
    feature.jobs.analyze = createAnalyzeJob({
      chat: deps.chat,
      logger: deps.logger,
      maxFileBytes,
      ...(deps.config.offline?.analysisMemoryMb ? { memoryMb: deps.config.offline.analysisMemoryMb } : {}),
      ...deps.worker,
    });
  return feature;
}
