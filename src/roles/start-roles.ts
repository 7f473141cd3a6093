import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import type { Redis } from 'ioredis';
import { commands as defaultCommands } from '../../commands/index.js';
import { createBot } from '../bot/create-bot.js';
import { withDeadline } from '../bot/deadline.js';
import { createJobRequests, type JobRequests } from '../bot/job-requests.js';
import { createChartRenderer } from '../charts/chart-renderer.js';
import { createChartPoster } from '../charts/post-chart.js';
import type { ChatAdapter } from '../chat/adapter.js';
import { createRedisConnections } from '../clients/redis.js';
import type { ChatCommand } from '../commands/command.js';
import { DEFAULT_DIAGNOSE_LIMITS, type DiagnoseLimits, limitDiagnoses } from '../commands/diagnose-limits.js';
import { createRateLimiter } from '../state/rate-limit.js';
import type { ConfigFile } from '../config/schema.js';
import type { DigestService } from '../digest/digest-service.js';
import { createDigestFeature, createWorkerFeatures } from '../digest/wire-features.js';
import { abortableSleep, createDoctor, type Doctor } from '../doctor.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics/metrics.js';
import { createJobQueue, type EnqueueOutcome, type JobQueue } from '../queue/job-queue.js';
import type { JobData } from '../queue/job-schemas.js';
import { createJobWorker, type JobWorker } from '../queue/job-worker.js';
import { createJobState } from '../state/job-state.js';
import { createPlanStore } from '../state/plan-store.js';
import { installOfflineAnalysis } from '../offline/install.js';
import { createJobRunner } from '../worker/create-job-runner.js';
import { routeJobs } from '../worker/route-jobs.js';
import type { RemediationSettings } from '../remediation/settings.js';
import {
  createRemediationClickDeps,
  createRemediationJobHandler,
  type RemediationWiring,
} from '../remediation/wire-remediation.js';

/** One process type per role (DESIGN.md): the chat side, the workers, or both. */
export type Role = 'bot' | 'worker' | 'serve';

/** Timings; the defaults suit production, tests shorten them. */
export interface RoleTuning {
  enqueueTimeoutMs?: number;
  attempts?: number;
  backoffMs?: number;
  concurrency?: number;
  jobTimeoutMs?: number;
  lockDurationMs?: number;
  stalledIntervalMs?: number;
  maxStalledCount?: number;
  progressIntervalMs?: number;
  /** `/etcd diagnose` rate limits (per user, per cluster, window). */
  diagnoseLimits?: Partial<DiagnoseLimits>;
  /** Digests repeat every this many ms instead of daily (tests, demos). */
  digestEveryMs?: number;
  /** Remediation timings (defragment pause, waits, poll interval) and defaults. */
  remediation?: Partial<RemediationSettings>;
  /** Overall time for one remediation job. Default 30 min. */
  remediationTimeoutMs?: number;
  /**
   * On stop, running jobs get this long to finish; then the worker hands the read-only ones back to
   * the queue, where another worker takes them at once. Default 25 s, inside Kubernetes' 30 s grace.
   */
  shutdownTimeoutMs?: number;
}

export interface StartRolesOptions {
  role: Role;
  chat: ChatAdapter;
  config: ConfigFile;
  redisUrl: string;
  /** Redis key prefix of the queue and job state; separate deployments (and tests) use their own. */
  queuePrefix: string;
  logger: Logger;
  doctor?: Doctor;
  readFileBuffer?: (path: string) => Promise<Buffer>;
  commands?: readonly ChatCommand[];
  tuning?: RoleTuning;
  /** The clock for digest slots, history and alert windows. Default Date.now. */
  now?: () => number;
  /** The process env, for the ticket credential named by `tickets.credentialEnv` (main.ts passes it). */
  env?: Record<string, string | undefined>;
  /** This process's Prometheus metrics (jobs, probes, findings, queue depth). */
  metrics?: Metrics;
}

export interface RunningRoles {
  /** Resolves once every job this process queued has answered, or after `maxWaitMs`. */
  idle(maxWaitMs?: number): Promise<void>;
  /** Redis answers PING within 500 ms (for /readyz). */
  redisReady(): Promise<boolean>;
  /** Queues a job (bot and serve roles): POST /alertmanager uses it. */
  enqueue: ((data: JobData) => Promise<EnqueueOutcome>) | undefined;
  /** Digest subscriptions and their schedulers. */
  digests: DigestService;
  stop(): Promise<void>;
}

const IDLE_POLL_MS = 100;
const CLOSE_TIMEOUT_MS = 10_000;
const SHUTDOWN_TIMEOUT_MS = 25_000;
const DOWN_CLOSE_TIMEOUT_MS = 1000;

export const DEFAULT_QUEUE_PREFIX = 'etcd-doctor';

export async function startRoles(opts: StartRolesOptions): Promise<RunningRoles> {
  const doctor =
    opts.doctor ??
    createDoctor({
      config: opts.config,
      readFileBuffer: opts.readFileBuffer ?? ((p) => readFile(p)),
      ...(opts.metrics ? { metrics: opts.metrics } : {}),
    });
  const tuning = opts.tuning ?? {};
  const connections: Redis[] = [];
  const redisConnections = createRedisConnections(opts.redisUrl);
  const connect = (name: string): Redis => {
    const redis = redisConnections.connect(name);
    let down = false;
    redis.on('error', (err: Error) => {
      if (!down) opts.logger.warn({ connection: name, err: err.message }, 'Redis is unreachable; retrying');
      down = true;
    });
    redis.on('ready', () => {
      down = false;
    });
    connections.push(redis);
    return redis;
  };

  let queue: JobQueue | undefined;
  let requests: JobRequests | undefined;
  let worker: JobWorker | undefined;
  let stopBot: (() => Promise<void>) | undefined;
  const now = opts.now ?? Date.now;
  const digests = createDigestFeature({
    redis: connect('etcd-doctor-digest'),
    prefix: opts.queuePrefix,
    now,
    ...(tuning.digestEveryMs ? { everyMs: tuning.digestEveryMs } : {}),
  });

  const remediationWiring = (redis: Redis): RemediationWiring => ({
    redis,
    prefix: opts.queuePrefix,
    config: opts.config,
    chat: opts.chat,
    logger: opts.logger,
    enqueue: (data) => (queue ? queue.enqueue(data) : Promise.reject(new Error('no queue in this role'))),
    ...(opts.env ? { env: opts.env } : {}),
    ...(tuning.remediation ? { settings: tuning.remediation } : {}),
    ...(opts.readFileBuffer ? { readFileBuffer: opts.readFileBuffer } : {}),
  });

  if (opts.role !== 'bot') {
    const redis = connect('etcd-doctor-worker');
    const state = createJobState(redis, opts.queuePrefix);
    const workerId = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
    const plans = createPlanStore(redis, opts.queuePrefix);
    // History, digest and alert jobs (src/history, src/digest, src/alerts).
    const features = createWorkerFeatures({
      redis,
      prefix: opts.queuePrefix,
      config: opts.config,
      chat: opts.chat,
      doctor,
      plans,
      logger: opts.logger,
      workerId,
      now,
    });
    const runner = createJobRunner({
      doctor: features.doctor,
      chat: opts.chat,
      state,
      plans,
      logger: opts.logger,
      workerId,
      postChart: createChartPoster({ chat: opts.chat, renderer: createChartRenderer() }),
      ...(tuning.progressIntervalMs === undefined ? {} : { progressIntervalMs: tuning.progressIntervalMs }),
    });
    worker = createJobWorker({
      redis: redisConnections,
      prefix: opts.queuePrefix,
      workerName: workerId,
      handlers: routeJobs(runner, {
        ...features.jobs,
        remediate: createRemediationJobHandler(remediationWiring(redis)),
        analyze: installOfflineAnalysis({
          chat: opts.chat,
          config: opts.config,
          logger: opts.logger,
          worker: { state, workerId, sleep: (ms) => abortableSleep(ms) },
        }).analyzeJob,
      }),
      clusterLocks: state,
      logger: opts.logger,
      ...(opts.metrics ? { metrics: opts.metrics } : {}),
      ...pick(tuning, [
        'concurrency',
        'jobTimeoutMs',
        'lockDurationMs',
        'stalledIntervalMs',
        'maxStalledCount',
        'remediationTimeoutMs',
      ]),
    });
  }
  if (opts.role !== 'worker') {
    const redis = connect('etcd-doctor-bot');
    const state = createJobState(redis, opts.queuePrefix);
    queue = createJobQueue({
      connection: redis,
      prefix: opts.queuePrefix,
      ...pick(tuning, ['enqueueTimeoutMs', 'attempts', 'backoffMs']),
    });
    const limiter = createRateLimiter(redis, opts.queuePrefix);
    const limits = { ...DEFAULT_DIAGNOSE_LIMITS, ...tuning.diagnoseLimits };
    requests = limitDiagnoses(createJobRequests(queue, state), limiter, limits);
    const jobRequests = requests;
    // A worker in this process reports the depth from its own view of the queue.
    if (!worker) opts.metrics?.watchQueue(queue.name, queue.counts);
    const bot = createBot({
      chat: opts.chat,
      doctor,
      jobs: requests,
      plans: createPlanStore(redis, opts.queuePrefix),
      commands: opts.commands ?? defaultCommands,
      logger: opts.logger,
      digests: digests.service,
      remediation: createRemediationClickDeps(remediationWiring(redis)),
      onFiles: installOfflineAnalysis({
        chat: opts.chat,
        config: opts.config,
        logger: opts.logger,
        bot: { enqueue: (job) => jobRequests.analyze(job), limiter, limits },
      }).onFiles,
    });
    await bot.start();
    stopBot = () => bot.stop();
  }

  // Every replica: re-create the digest schedulers and queue a slot missed while all were down.
  // Not awaited: with Redis down it waits for the reconnect, and startup must not.
  void digests.service
    .reconcile()
    .then((late) => {
      if (late.length) opts.logger.info({ late }, 'queued missed digest slots, to be sent late');
    })
    .catch((err: unknown) => opts.logger.warn({ err: String(err) }, 'digest catch-up failed'));

  const running: RunningRoles = {
    enqueue: queue?.enqueue,
    digests: digests.service,
    async idle(maxWaitMs = (tuning.jobTimeoutMs ?? 120_000) + 30_000) {
      const deadline = Date.now() + maxWaitMs;
      while (Date.now() < deadline) {
        const waiting = await requests?.outstanding().catch(() => []);
        if (!waiting?.length && (worker?.pendingFailures() ?? 0) === 0) return;
        await abortableSleep(IDLE_POLL_MS);
      }
    },
    async redisReady() {
      const redis = connections[0];
      if (!redis) return false;
      const pong = await Promise.race([
        redis.ping().catch(() => 'down'),
        abortableSleep(500).then(() => 'slow'),
      ]);
      return pong === 'PONG';
    },
    async stop() {
      await stopBot?.().catch((err: unknown) => opts.logger.warn({ err: String(err) }, 'chat stop failed'));
      // With Redis gone nothing can finish cleanly: do not wait for it.
      const redisUp = await running.redisReady();
      const bound = redisUp ? CLOSE_TIMEOUT_MS : DOWN_CLOSE_TIMEOUT_MS;
      if (worker) {
        // Running jobs finish and answer; past the bound they are let go, to be recovered as stalled.
        const drainMs = redisUp ? (tuning.shutdownTimeoutMs ?? SHUTDOWN_TIMEOUT_MS) : DOWN_CLOSE_TIMEOUT_MS;
        const drained = await withDeadline(
          worker.close(!redisUp).then(() => true),
          drainMs,
          () => false,
        );
        if (!drained) {
          opts.logger.warn(
            { waitedMs: drainMs },
            'jobs still running at shutdown; leaving them to another worker',
          );
          await within(worker.close(true), DOWN_CLOSE_TIMEOUT_MS);
        }
      }
      await within(queue?.close(), bound);
      await within(digests.close(), bound);
      if (!opts.doctor) await doctor.close();
      if (redisUp)
        await Promise.all(
          connections.map((c) =>
            within(
              c.quit().then(() => undefined),
              1000,
            ),
          ),
        );
      redisConnections.shutdown();
    },
  };
  return running;
}

function pick<T extends object, K extends keyof T>(obj: T, keys: K[]): Partial<Pick<T, K>> {
  const out: Partial<Pick<T, K>> = {};
  for (const key of keys) if (obj[key] !== undefined) out[key] = obj[key];
  return out;
}

/** Waits for `work` at most `ms`; shutdown must end even when Redis is gone. */
async function within(work: Promise<void> | undefined, ms: number): Promise<void> {
  if (work) await withDeadline(work, ms, () => undefined);
}
