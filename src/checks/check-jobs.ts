import type { ChartPoster } from '../charts/post-chart.js';
import type { ChatAdapter, MessageRef } from '../chat/adapter.js';
import { abortableSleep } from '../timing.js';
import type { Doctor } from '../doctor.js';
import { describeError } from '../errors.js';
import { type Logger, withFields } from '../logger.js';
import type { Evidence } from '../probes/evidence.js';
import {
  type JobHandlers,
  type JobKind,
  type JobKindHandlers,
  type RunInfo,
  routeJobs,
} from '../queue/job-handlers.js';
import type { CheckJob } from '../queue/job-schemas.js';
import { progressView, type VerdictView, verdictView } from '../report/chat-view.js';
import type { JobState } from '../state/job-state.js';
import type { PlanStore } from '../state/plan-store.js';
import { answerOnce } from '../answer/answer-once.js';
import { rootMessageFor, settleRootMessage } from '../answer/root-message.js';
import { answerFailedBackups, answerFailedCheck, answerFailedStatus } from './failed-answers.js';
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
  /** Default 120 s. */
  answerLeaseMs?: number;
  /** Posts a chart of the finding's metric after the answer, in its thread (src/charts). None without it. */
  postChart?: ChartPoster;
}

export interface CheckResult {
  status: string;
  causes: string[];
}

/** Posts a job's answer exactly once (answer-once.ts), with this runner's claim settings. */
function answerer(deps: JobRunnerDeps, sleep: (ms: number) => Promise<void>) {
  return (jobId: string, deliver: () => Promise<MessageRef>) =>
    answerOnce(jobId, deliver, {
      state: deps.state,
      workerId: deps.workerId,
      leaseMs: deps.answerLeaseMs ?? 120_000,
      waitMs: 5000,
      sleep,
    });
}

/** The root's progress edits of one run. An abandoned run (timed out) sends none: the failure answer owns the root now. */
function progressUpdates(
  deps: JobRunnerDeps,
  job: CheckJob,
  root: MessageRef,
  signal: AbortSignal,
  logger: Logger,
  now: () => number,
) {
  return createProgressUpdates(
    ({ done, total }: { done: number; total: number }) =>
      signal.aborted
        ? Promise.resolve()
        : deps.chat.update(root, progressView(job.depth, job.cluster, done, total)),
    {
      minIntervalMs: deps.progressIntervalMs ?? 1000,
      now,
      onError: (err) => logger.warn({ err: describeError(err) }, 'progress update failed'),
    },
  );
}

/** One check: root message, progress, the report answered once with its buttons, the verdict, the chart. */
function createCheckRun(deps: JobRunnerDeps, once: ReturnType<typeof answerer>, now: () => number) {
  const settleRoot = (jobId: string, root: MessageRef, view: VerdictView | undefined, logger: Logger) =>
    settleRootMessage(deps, jobId, root, view, logger);

  return async (
    job: CheckJob,
    jobId: string,
    signal: AbortSignal,
    logger: Logger,
    answered?: () => Promise<void>,
  ): Promise<CheckResult> => {
    const root = await rootMessageFor(deps, jobId, job);
    const progress = progressUpdates(deps, job, root, signal, logger, now);
    let report: Awaited<ReturnType<Doctor['run']>>;
    let evidence: Evidence | undefined;
    try {
      // A timed-out attempt is abandoned: its signal stops the probes instead of letting them run on.
      report = await deps.doctor.run(job.cluster, job.depth, {
        signal,
        onProgress: ({ done, total }) => progress.push({ done, total }),
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
}

/**
 * The check feature's jobs, chat-neutral. A check posts a root message, updates it as probes
 * finish, answers in its thread exactly once, then turns the root into the verdict; `status` and
 * `backups` answer once in their channel. Only workers run these.
 */
export function checkJobs(deps: JobRunnerDeps): Pick<JobKindHandlers, 'check' | 'status' | 'backups'> {
  const now = deps.now ?? Date.now;
  const sleep = deps.sleep ?? ((ms: number) => abortableSleep(ms));
  const once = answerer(deps, sleep);

  const runCheck = createCheckRun(deps, once, now);
  const started = (info: RunInfo, fields: { kind: JobKind; cluster?: string }) => {
    const logger = info.logger ?? withFields(deps.logger, { jobId: info.jobId, ...fields });
    logger.info({ attempt: info.attempt }, 'job started');
    return logger;
  };
  return {
    check: {
      run: (job, info) => runCheck(job, info.jobId, info.signal, started(info, job), info.answered),
      failed: (jobId, job, reason) => answerFailedCheck(deps, once, jobId, job, reason),
    },
    status: {
      run: (job, info) => {
        started(info, job);
        return runStatus(deps, once, job, info.jobId);
      },
      failed: (jobId, job, reason) => answerFailedStatus(deps, once, jobId, job, reason),
    },
    backups: {
      run: (job, info) => {
        started(info, job);
        return runBackups(deps, once, job, info.jobId, info.signal);
      },
      failed: (jobId, job, reason) => answerFailedBackups(deps, once, jobId, job, reason),
    },
  };
}

/** The checks alone as a job worker's handlers (tests; the worker role puts checkJobs in its record). */
export function createJobRunner(deps: JobRunnerDeps): JobHandlers {
  return routeJobs(checkJobs(deps), deps.logger);
}
