import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { installAlerts } from '../alerts/install.js';
import { createChartRenderer } from '../charts/chart-renderer.js';
import { createChartPoster } from '../charts/post-chart.js';
import { installDigestJobs } from '../digest/install.js';
import { doctorFor } from '../history/doctor-for.js';
import { historyStoreFor } from '../history/install.js';
import { type Feature, type JobKindHandlers, noHandler, routeJobs } from '../queue/job-handlers.js';
import type { JobData } from '../queue/job-schemas.js';
import {
  createJobWorker,
  JOB_CONCURRENCY,
  type JobWorker,
  type JobWorkerOptions,
  joinWorkers,
} from '../queue/job-worker.js';
import { installOfflineAnalysis } from '../offline/install.js';
import { installMaintenance, installRemediation } from '../remediation/install.js';
import { installSpace } from '../space/install.js';
import { installLifecycle } from '../lifecycle/install.js';
import { createAuditLog } from '../state/audit-log.js';
import { createJobState } from '../state/job-state.js';
import { createMinuteHistory } from '../state/minute-history.js';
import { createPlanStore } from '../state/plan-store.js';
import { abortableSleep } from '../timing.js';
import { type AnswerOnce, answerer } from '../answer/answer-once.js';
import { checkJobs } from '../checks/check-jobs.js';
import { installWatch } from '../watch/install.js';
import { watchCheckSlots } from '../watch/watched-clusters.js';
import { digestPartSlots } from '../digest/part-slots.js';
import { analysisWorker } from './analyzer.js';
import { pick, type RoleBase } from './role-base.js';
import { remediationOptions } from './remediation-options.js';

/**
 * The worker role: takes jobs off the queue and answers them. Checks and diagnoses go to the job
 * runner, through a doctor that records history; digests, alert triage, remediation buttons and
 * the offline analysis of shared files go to their features' handlers.
 */
export function startWorker(
  base: RoleBase,
  features: { enqueue: (data: JobData) => Promise<unknown> },
): JobWorker {
  const { opts, tuning, now } = base;
  const { chat, config, logger, queuePrefix: prefix } = opts;
  const redis = base.connect('etcd-doctor-worker');
  const state = createJobState(redis, prefix);
  const plans = createPlanStore(redis, prefix, base.signer);
  const workerId = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const renderer = createChartRenderer();
  const answer = answerer({ state, workerId }, (ms) => abortableSleep(ms));

  const history = historyStoreFor(redis, prefix, config, now);
  // Diagnoses are recorded, and say since when from the watch's minute history; its charts span its last hour.
  const minutes = createMinuteHistory(redis, prefix, now);
  const audit = createAuditLog(redis, prefix);
  const doctor = doctorFor(base.doctor, {
    role: 'worker',
    records: history,
    reads: minutes,
    audit,
    logger,
    now,
  });
  // What every feature of this worker shares.
  const on = { redis, prefix, config, chat, logger, now };
  const digests = installDigestJobs({ ...on, doctor, history, workerId, renderer });
  const alerts = installAlerts({ ...on, doctor, plans, renderer });
  const remediation = installRemediationJobs(base, redis, features.enqueue);
  // Watch checks go to the minute history, not the digest's 30-day one.
  const watch = installWatch({ ...on, doctor: doctorFor(base.doctor, { role: 'watch' }), plans, renderer });
  const offline = installOfflineAnalysis({ chat, config, logger, worker: { answer } });
  const checks = checkJobs({
    doctor,
    chat,
    state,
    plans,
    logger,
    workerId,
    postChart: createChartPoster({ chat, renderer, history: minutes, now }),
    ...pick(tuning, ['progressIntervalMs']),
  });
  const lifecycle = lifecycleJobs(base, doctor, answer, minutes);
  const space = spaceJobs(base, state, workerId);
  // Every job kind's handler, one record (a kind without one does not compile).
  const record: JobKindHandlers = {
    ...checks.jobs,
    ...digests.jobs,
    ...alerts.jobs,
    ...remediation.jobs,
    ...watch.jobs,
    analyze: offline.jobs.analyze ?? noHandler('analyze'),
    ...space.jobs,
    ...lifecycle.jobs,
  };
  const closeFeatures = foldFeatures([
    checks,
    digests,
    alerts,
    remediation,
    watch,
    offline,
    space,
    lifecycle,
  ]);
  const handlers = routeJobs(record, logger);
  const worker = startQueueWorkers(base, { handlers, clusterLocks: state, workerName: workerId });
  return {
    ...worker,
    async close(force) {
      await worker.close(force);
      await closeFeatures();
    },
  };
}

/**
 * One worker per queue: the jobs queue, and the analyze queue of files shared in chat, with its own
 * slots (roles/analyzer.ts), unless the analyzer role serves that queue in pods of its own
 * (config `offline.analysisIn: analyzer`).
 */
function startQueueWorkers(
  base: RoleBase,
  shared: Pick<JobWorkerOptions, 'handlers' | 'clusterLocks' | 'workerName'>,
): JobWorker {
  const { opts, tuning } = base;
  const jobs = createJobWorker({
    ...shared,
    redis: base.redis,
    prefix: opts.queuePrefix,
    logger: opts.logger,
    ...(opts.metrics ? { metrics: opts.metrics } : {}),
    ...pick(tuning, ['jobTimeoutMs', 'lockDurationMs', 'stalledIntervalMs']),
    concurrency: jobSlots(tuning.concurrency, opts.config),
    ...pick(tuning, ['maxStalledCount', 'remediationTimeoutMs']),
  });
  if (opts.config.offline?.analysisIn === 'analyzer') return jobs;
  return joinWorkers([jobs, analysisWorker(base, shared)]);
}

/** Buttons and maintenance windows, from one set of remediation options; the windows' schedulers are set now. */
function installRemediationJobs(
  base: RoleBase,
  redis: ReturnType<RoleBase['connect']>,
  enqueue: (data: JobData) => Promise<unknown>,
) {
  const options = remediationOptions(base, redis, enqueue);
  const maintenance = installMaintenance(options);
  return {
    jobs: { ...installRemediation(options).jobs, ...maintenance.jobs },
    reconcile: () => maintenance.reconcile(),
    close: () => maintenance.close(),
  };
}

/**
 * Jobs at once: the tuned count, else 4 plus slots for the watch's checks and for a digest's parts,
 * which mostly wait on the network and on the digest's memory budget.
 */
function jobSlots(tuned: number | undefined, config: RoleBase['opts']['config']): number {
  return tuned ?? JOB_CONCURRENCY + watchCheckSlots(config) + digestPartSlots(config);
}

/**
 * One shape for every feature (queue/job-handlers.ts Feature), folded: their schedulers are set
 * now (not awaited: Redis may be down at start), and they close with the worker.
 */
function foldFeatures(parts: ReadonlyArray<Pick<Feature, 'reconcile' | 'close'>>): () => Promise<void> {
  for (const part of parts) void part.reconcile?.();
  return async () => {
    await Promise.all(parts.map((part) => part.close?.()));
  };
}

/** etcd's lifecycle (src/lifecycle/): `lifecycle` jobs, from `/etcd upgrade-check`, `/etcd recover` and the recovery plan button. */
function lifecycleJobs(
  base: RoleBase,
  doctor: Parameters<typeof installLifecycle>[0]['doctor'],
  answer: AnswerOnce,
  history: Parameters<typeof installLifecycle>[0]['history'],
) {
  const { chat, config } = base.opts;
  const readFileBuffer = base.opts.readFileBuffer ?? ((p: string) => readFile(p));
  return installLifecycle({
    doctor,
    chat,
    config,
    answer,
    readFileBuffer,
    ...(history ? { history } : {}),
  });
}

/** What fills etcd (src/space/): `space` jobs, from `/etcd space` and the "What fills it?" button. */
function spaceJobs(base: RoleBase, state: ReturnType<typeof createJobState>, workerId: string) {
  const { opts, tuning } = base;
  return installSpace({
    chat: opts.chat,
    config: opts.config,
    logger: opts.logger,
    state,
    workerId,
    readFileBuffer: opts.readFileBuffer ?? ((p) => readFile(p)),
    sleep: (ms) => abortableSleep(ms),
    ...pick(tuning, ['progressIntervalMs']),
    ...(tuning.space ? { overrides: tuning.space } : {}),
  });
}
