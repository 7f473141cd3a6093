import type { ChartPoster } from '../charts/post-chart.js';
import type { ChatAdapter, MessageRef } from '../chat/adapter.js';
import { abortableSleep } from '../timing.js';
import type { Doctor } from '../doctor.js';
import { describeError } from '../errors.js';
import { type Logger, withFields } from '../logger.js';
import type { Evidence } from '../probes/evidence.js';
import {
  type JobHandlers,
  type Feature,
  type JobKind,
  type RunInfo,
  routeJobs,
} from '../queue/job-handlers.js';
import type { BackupsJob, CheckJob, StatusJob } from '../queue/job-schemas.js';
import { failedVerdictView, progressView, type VerdictView, verdictView } from '../report/chat-view.js';
import type { JobState } from '../state/job-state.js';
import type { PlanStore } from '../state/plan-store.js';
import { answerer } from '../answer/answer-once.js';
import { answerFailure, type Failure, rootMessageFor, settleRootMessage } from '../answer/root-message.js';
import { runBackups } from './run-backups.js';
import { runStatus } from './run-status.js';
import { createProgressUpdates } from '../answer/progress-updates.js';
import { reportButtons } from '../answer/report-buttons.js';

export interface JobRunnerDeps {
  doctor: Doctor;
  chat: ChatAdapter;
  state: JobState;
  plans: Pick<PlanStore, 'save'>;
  logger: Logger;
  workerId: string;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /** Root message updates at most this often. Default 1000 ms (Slack: ~1 message per second per channel). */
  progressIntervalMs?: number;
  /** Posts a chart of the finding's metric after the answer, in its thread (src/charts). None without it. */
  postChart?: ChartPoster;
}

export interface CheckResult {
  status: string;
  causes: string[];
}

/**
 * One check: root message, progress, the report answered once with its buttons, the verdict, the
 * chart; and the runner's `once`, which the other jobs answer through too.
 */
function createCheckRun(deps: JobRunnerDeps, now: () => number, sleep: (ms: number) => Promise<void>) {
  const once = answerer(deps, sleep);
  const settleRoot = (jobId: string, root: MessageRef, view: VerdictView | undefined, logger: Logger) =>
    settleRootMessage(deps, jobId, root, view, logger);

  const runCheck = async (
    job: CheckJob,
    jobId: string,
    signal: AbortSignal,
    logger: Logger,
    answered?: () => Promise<void>,
  ): Promise<CheckResult> => {
    const root = await rootMessageFor(deps, jobId, job);
    // The root's progress edits. An abandoned run (timed out) sends none: the failure answer owns the root now.
    const progress = createProgressUpdates(
      ({ done, total, note }: { done: number; total: number; note?: string }) =>
        signal.aborted
          ? Promise.resolve()
          : deps.chat.update(root, progressView(job.depth, job.cluster, done, total, note)),
      {
        minIntervalMs: deps.progressIntervalMs ?? 1000,
        now,
        onError: (err) => logger.warn({ err: describeError(err) }, 'progress update failed'),
      },
    );
    let report: Awaited<ReturnType<Doctor['run']>>;
    let evidence: Evidence | undefined;
    try {
      // A timed-out attempt is abandoned: its signal stops the probes instead of letting them run on.
      report = await deps.doctor.run(job.cluster, job.depth, {
        signal,
        onProgress: ({ done, total, note }) => progress.push({ done, total, ...(note ? { note } : {}) }),
        onEvidence: (e) => {
          evidence = e;
        },
      });
    } finally {
      await progress.stop();
      // An abandoned run's last progress edit can land after another run's verdict (a rate-limited
      // edit that Slack took late): this run then puts that verdict back, and nothing of its own.
      if (signal.aborted)
        await settleRoot(jobId, root, undefined, logger).catch((err: unknown) =>
          logger.warn({ err: describeError(err) }, 'could not read the verdict to put it back'),
        );
    }
    const cluster = deps.doctor.cluster(job.cluster);
    const offered = await reportButtons(report, root.channel, deps.plans, now, {
      root,
      tickets: Boolean(cluster.tickets),
      cluster,
    });
    if (signal.aborted) return { status: report.status, causes: [] };
    const posted = await once(jobId, () =>
      deps.chat.post({ channel: root.channel, thread: root }, { kind: 'report', report, ...offered }),
    );
    if (posted) await answered?.();
    await settleRoot(jobId, root, posted ? verdictView(report) : undefined, logger);
    // Text first: the chart follows the answer into its thread, and only from the run that answered.
    if (posted && !signal.aborted)
      await deps.postChart?.({ channel: root.channel, thread: root }, report, evidence, logger);
    return { status: report.status, causes: report.findings.map((f) => f.cause) };
  };
  return { runCheck, once };
}

/**
 * The check feature's jobs, chat-neutral. A check posts a root message, updates it as probes
 * finish, answers in its thread exactly once, then turns the root into the verdict; `status` and
 * `backups` answer once in their channel. Only workers run these.
 */
export function checkJobs(deps: JobRunnerDeps): Feature<'check' | 'status' | 'backups'> {
  const now = deps.now ?? Date.now;
  const sleep = deps.sleep ?? ((ms: number) => abortableSleep(ms));
  // Status and backups answer through `once` below: their handlers run only after this returns.
  const status = (job: StatusJob, jobId: string) => runStatus(deps, once, job, jobId);
  const backups = (job: BackupsJob, jobId: string, signal: AbortSignal) =>
    runBackups(deps, once, job, jobId, signal);
  const { runCheck, once } = createCheckRun(deps, now, sleep);
  const started = (info: RunInfo, fields: { kind: JobKind; cluster?: string }) => {
    const logger = info.logger ?? withFields(deps.logger, { jobId: info.jobId, ...fields });
    logger.info({ attempt: info.attempt }, 'job started');
    return logger;
  };
  const failed = (jobId: string, failure: Failure, reason: string) =>
    answerFailure(deps, once, jobId, failure, reason);
  return {
    jobs: {
      check: {
        run: (job, info) =>
          runCheck(
            job,
            info.jobId,
            info.signal,
            started(info, { kind: job.kind, cluster: job.cluster }),
            info.answered,
          ),
        failed: (jobId, job, reason) =>
          failed(
            jobId,
            {
              channel: job.channel,
              cluster: job.cluster,
              what: `the ${job.depth === 'diagnose' ? 'diagnosis' : 'health check'} of *${job.cluster}*`,
              rootVerdict: failedVerdictView(job.depth, job.cluster, reason),
            },
            reason,
          ),
      },
      status: {
        run: (job, info) => {
          started(info, { kind: job.kind });
          return status(job, info.jobId);
        },
        failed: (jobId, job, reason) =>
          failed(jobId, { channel: job.channel, what: 'the status check' }, reason),
      },
      backups: {
        run: (job, info) => {
          started(info, { kind: job.kind, cluster: job.cluster });
          return backups(job, info.jobId, info.signal);
        },
        failed: (jobId, job, reason) =>
          failed(
            jobId,
            { channel: job.channel, cluster: job.cluster, what: `the backup listing of *${job.cluster}*` },
            reason,
          ),
      },
    },
  };
}

/** The checks alone as a job worker's handlers (tests; the worker role puts checkJobs in its record). */
export function createJobRunner(deps: JobRunnerDeps): JobHandlers {
  return routeJobs(checkJobs(deps).jobs, deps.logger);
}
