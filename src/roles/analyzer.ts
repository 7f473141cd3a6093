import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { DEFAULT_ANALYSIS_CONCURRENCY, installOfflineAnalysis } from '../offline/install.js';
import { routeJobs } from '../queue/job-handlers.js';
import { ANALYZE_QUEUE_NAME } from '../queue/job-queue.js';
import { createJobWorker, type JobWorker, type JobWorkerOptions } from '../queue/job-worker.js';
import { createJobState } from '../state/job-state.js';
import { abortableSleep } from '../timing.js';
import { answerer } from '../answer/answer-once.js';
import { pick, type RoleBase } from './role-base.js';

/**
 * The analyzer role (issue 38 M3): the analyze queue of files shared in chat, and nothing else, in a
 * pod of its own that mounts no etcd client certificate and no Kubernetes token (deploy/kubernetes/
 * components/analyzer), so that the worst file can reach neither. The config says so
 * (`offline.analysisIn: analyzer`), and the workers then leave the analyze queue to it. Each file is still read in a child process with its own limits (offline/).
 */
export function startAnalyzer(base: RoleBase): JobWorker {
  const { opts } = base;
  const redis = base.connect('etcd-doctor-analyzer');
  const workerId = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const state = createJobState(redis, opts.queuePrefix);
  const offline = installOfflineAnalysis({
    chat: opts.chat,
    config: opts.config,
    logger: opts.logger,
    worker: { answer: answerer({ state, workerId }, (ms) => abortableSleep(ms)) },
  });
  // Only the analyze queue reaches this process; any other kind is refused by routeJobs.
  const handlers = routeJobs(offline.jobs, opts.logger);
  return analysisWorker(base, { handlers, clusterLocks: state, workerName: workerId });
}

/**
 * The analyze queue's worker: its own slots, and an analysis whose process died is failed and
 * answered, never recovered into the next worker (maxStalledCount 0). Shared by the worker role.
 */
export function analysisWorker(
  base: RoleBase,
  shared: Pick<JobWorkerOptions, 'handlers' | 'clusterLocks' | 'workerName'>,
): JobWorker {
  const { opts, tuning } = base;
  return createJobWorker({
    ...shared,
    redis: base.redis,
    prefix: opts.queuePrefix,
    logger: opts.logger,
    ...(opts.metrics ? { metrics: opts.metrics } : {}),
    ...pick(tuning, ['jobTimeoutMs', 'lockDurationMs', 'stalledIntervalMs']),
    name: ANALYZE_QUEUE_NAME,
    concurrency: opts.config.offline?.concurrency ?? DEFAULT_ANALYSIS_CONCURRENCY,
    maxStalledCount: 0,
  });
}
