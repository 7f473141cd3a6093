import { commands as defaultCommands } from '../commands/index.js';
import { createBot } from '../bot/create-bot.js';
import { createClusterAccess } from '../config/cluster-access.js';
import { chatPlans } from '../bot/deadline.js';
import { createJobRequests, type JobRequests } from '../queue/job-requests.js';
import { watchLostJobs } from '../bot/lost-jobs.js';
import { DEFAULT_DIAGNOSE_LIMITS, limitDiagnoses } from '../commands/diagnose-limits.js';
import type { DigestFeature } from '../digest/install.js';
import { installOfflineAnalysis } from '../offline/install.js';
import { watchJobPhases } from '../queue/job-phases.js';
import { createJobQueue, type JobQueue } from '../queue/job-queue.js';
import { installRemediation } from '../remediation/install.js';
import { createJobState } from '../state/job-state.js';
import { createPlanStore } from '../state/plan-store.js';
import { createRateLimiter } from '../state/rate-limit.js';
import { createWatchStatus } from '../watch/watch-status.js';
import { pick, type RoleBase } from './role-base.js';
import { remediationOptions } from './remediation-options.js';

export interface BotRole {
  queue: JobQueue;
  /** The jobs this process queued, for idle(). */
  requests: JobRequests;
  stop(): Promise<void>;
}

/**
 * The bot role: takes chat commands and button clicks, answers what needs no probe at once, and
 * queues the rest (checks rate-limited per user and cluster, remediation after its checks, files
 * shared for offline analysis limited per user).
 */
export async function startBot(
  base: RoleBase,
  features: { digests: DigestFeature; hasWorker: boolean },
): Promise<BotRole> {
  const { opts, tuning } = base;
  const redis = base.connect('etcd-doctor-bot');
  const queue = createJobQueue({
    connection: redis,
    prefix: opts.queuePrefix,
    ...pick(tuning, ['enqueueTimeoutMs', 'attempts', 'backoffMs']),
  });
  const limiter = createRateLimiter(redis, opts.queuePrefix);
  const limits = { ...DEFAULT_DIAGNOSE_LIMITS, ...tuning.diagnoseLimits };
  const state = createJobState(redis, opts.queuePrefix);
  const plans = createPlanStore(redis, opts.queuePrefix, base.signer);
  const lost = watchLostJobs({
    redis,
    exists: queue.exists,
    state,
    plans,
    chat: opts.chat,
    logger: opts.logger,
  });
  const phases = watchJobPhases({
    connection: base.connect('etcd-doctor-bot-events'),
    prefix: opts.queuePrefix,
    onPhase: lost.phase,
    // The connection logs its own errors (role-base.ts), once per outage.
    onError: () => undefined,
  });
  const requests = limitDiagnoses(createJobRequests(queue, state, Date.now, lost.track), limiter, limits);
  // A worker in this process reports the depth from its own view of the queue.
  if (!features.hasWorker) for (const q of queue.queues) opts.metrics?.watchQueue(q.name, q.counts);
  const remediation = installRemediation(remediationOptions(base, redis, (data) => queue.enqueue(data)));
  const offline = installOfflineAnalysis({
    chat: opts.chat,
    config: opts.config,
    logger: opts.logger,
    bot: { enqueue: (job) => requests.analyze(job), limiter, limits },
  });
  const bot = createBot({
    chat: opts.chat,
    clusters: createClusterAccess(base.doctor),
    jobs: requests,
    plans: chatPlans(plans),
    commands: opts.commands ?? defaultCommands,
    logger: opts.logger,
    digests: features.digests.service,
    watch: createWatchStatus(redis, opts.queuePrefix, opts.config),
    remediation: remediation.clicks,
    ...(offline.onFiles ? { onFiles: offline.onFiles } : {}),
  });
  await bot.start();
  return {
    queue,
    requests,
    stop: () => {
      phases.close();
      lost.stop();
      return bot.stop();
    },
  };
}
