import { abortableSleep } from '../timing.js';
import { installDigests } from '../digest/install.js';
import type { JobData } from '../queue/job-schemas.js';
import { DEFAULT_JOB_TIMEOUT_MS, type JobWorker } from '../queue/job-worker.js';
import { type BotRole, startBot } from './bot.js';
import { keyPrefixFor } from '../config/redis-target.js';
import { createRoleBase, type ProcessParts } from './role-base.js';
import { receivesChat, type RunningRoles, type StartRolesOptions } from './role-options.js';
import { stopRoles } from './shutdown.js';
import { startWorker } from './worker.js';
import { startAnalyzer } from './analyzer.js';

export type { Role, RoleTuning, RunningRoles, StartRolesOptions } from './role-options.js';
export { DEFAULT_QUEUE_PREFIX } from './role-options.js';

const IDLE_POLL_MS = 100;

/**
 * The composition root of the long-running roles, given a chat adapter: `worker` takes jobs off the
 * queue (roles/worker.ts), `bot` takes commands and queues jobs (roles/bot.ts), `serve` is both,
 * `analyzer` takes only the analyze queue of shared files (roles/analyzer.ts).
 * Every role has the digest subscriptions, and catches up on a slot missed while all were down.
 * `parts`: the process's doctor and Redis connections when the process built them first, to share
 * them with /mcp (roles/slack.ts, roles/shell.ts); built here otherwise. Stopping closes them.
 */
export async function startRoles(given: StartRolesOptions, parts?: ProcessParts): Promise<RunningRoles> {
  // On a Redis Cluster the deployment's keys share one hash tag (config/redis-target.ts).
  const opts = { ...given, queuePrefix: keyPrefixFor(given.redisUrl, given.queuePrefix) };
  const base = createRoleBase(opts, parts);
  const digests = installDigests({
    redis: base.connect('etcd-doctor-digest'),
    prefix: opts.queuePrefix,
    config: opts.config,
    chat: opts.chat,
    logger: opts.logger,
    now: base.now,
    ...(base.tuning.digestEveryMs ? { everyMs: base.tuning.digestEveryMs } : {}),
  });
  let bot: BotRole | undefined;
  const enqueue = (data: JobData) =>
    bot ? bot.queue.enqueue(data) : Promise.reject(new Error('no queue in this role'));
  const worker: JobWorker | undefined =
    opts.role === 'bot'
      ? undefined
      : opts.role === 'analyzer'
        ? startAnalyzer(base)
        : startWorker(base, { enqueue });
  if (receivesChat(opts.role)) bot = await startBot(base, { digests, hasWorker: worker !== undefined });
  // Not awaited: with Redis down it waits for the reconnect, and startup must not.
  void digests.reconcile();

  return {
    enqueue: bot?.queue.enqueue,
    digests: digests.service,
    async idle(maxWaitMs = (base.tuning.jobTimeoutMs ?? DEFAULT_JOB_TIMEOUT_MS) + 30_000) {
      const deadline = Date.now() + maxWaitMs;
      while (Date.now() < deadline) {
        const waiting = await bot?.requests.outstanding().catch(() => []);
        if (!waiting?.length && (worker?.pendingFailures() ?? 0) === 0) return;
        await abortableSleep(IDLE_POLL_MS);
      }
    },
    redisReady: () => base.redisReady(),
    stop: () => stopRoles(base, { bot, worker, digests }),
  };
}
