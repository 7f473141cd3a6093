import type { ChartPoster } from '../charts/post-chart.js';
import type { ChatAdapter, Destination, MessageRef } from '../chat/adapter.js';
import { abortableSleep, type Doctor } from '../doctor.js';
import { describeError } from '../errors.js';
import { type Logger, withFields } from '../logger.js';
import { countProbes } from '../probes/collect-evidence.js';
import type { Evidence } from '../probes/evidence.js';
import type { JobHandlers } from '../queue/job-handlers.js';
import type { CheckJob, JobData, StatusJob } from '../queue/job-schemas.js';
import {
  failedVerdictView,
  headline,
  progressView,
  STATUS_WORD,
  textView,
  type VerdictView,
  verdictView,
} from '../report/chat-view.js';
import type { JobState } from '../state/job-state.js';
import type { PlanStore } from '../state/plan-store.js';
import { answerOnce } from './answer-once.js';
import { createProgressUpdates } from './progress-updates.js';
import { reportButtons } from './report-buttons.js';

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

/**
 * What a job does, chat-neutral: post a root message, update it as probes finish, answer in its
 * thread exactly once, then turn the root into the verdict. Only workers run this.
 */
export function createJobRunner(deps: JobRunnerDeps): JobHandlers {
  const now = deps.now ?? Date.now;
  const sleep = deps.sleep ?? ((ms: number) => abortableSleep(ms));
  const once = (jobId: string, deliver: () => Promise<MessageRef>) =>
    answerOnce(jobId, deliver, {
      state: deps.state,
      workerId: deps.workerId,
      leaseMs: deps.answerLeaseMs ?? 120_000,
      waitMs: 5000,
      sleep,
    });

  /**
   * Sets the root to the verdict of the job's answer: the one this run gave (`view`), or the one
   * another run gave. Two runs of one job can meet after a stall; whichever ends last writes the
   * same verdict, so its progress ticks never stay on screen.
   */
  const settleRoot = async (
    jobId: string,
    root: MessageRef,
    view: VerdictView | undefined,
    logger: Logger,
  ): Promise<void> => {
    if (view) await deps.state.saveVerdict(jobId, view);
    const verdict = view ?? (await deps.state.verdict(jobId));
    if (!verdict) return;
    await deps.chat.update(root, verdict).catch((err: unknown) => {
      logger.warn({ err: describeError(err) }, 'could not update the root message to the verdict');
    });
  };

  /**
   * A retried or recovered job keeps the root message of its first attempt. Known window: a worker
   * that dies after Slack stored the root but before saveRoot leaves that root at "starting", and
   * the recovered job posts another. Slack has no idempotency key for chat.postMessage, and finding
   * the orphan again would need channels:history, which the bot does not ask for.
   */
  const rootFor = async (jobId: string, job: CheckJob): Promise<MessageRef> => {
    const known = await deps.state.root(jobId);
    if (known) return known;
    // Endpoints discovered through Kubernetes are not known before the run: show "starting" until then.
    const endpoints = deps.doctor.cluster(job.cluster).etcd.endpoints;
    const total = endpoints ? countProbes(job.depth, endpoints.length) : 0;
    const ref = await deps.chat.post(
      { channel: job.channel },
      progressView(job.depth, job.cluster, 0, total),
    );
    await deps.state.saveRoot(jobId, ref);
    return ref;
  };

  const runCheck = async (
    job: CheckJob,
    jobId: string,
    signal: AbortSignal,
    logger: Logger,
  ): Promise<CheckResult> => {
    const root = await rootFor(jobId, job);
    // An abandoned run (timed out) stops updating: the failure answer owns the root message now.
    const progress = createProgressUpdates(
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
    let report: Awaited<ReturnType<Doctor['run']>>;
    let evidence: Evidence | undefined;
    try {
      report = await deps.doctor.run(job.cluster, job.depth, {
        onProgress: ({ done, total }) => progress.push({ done, total }),
        onEvidence: (e) => {
          evidence = e;
        },
      });
    } finally {
      await progress.stop();
    }
    const buttons = await reportButtons(report, root.channel, deps.plans, now, {
      root,
      tickets: Boolean(deps.doctor.cluster(job.cluster).tickets),
    });
    if (signal.aborted) return { status: report.status, causes: [] };
    const posted = await once(jobId, () =>
      deps.chat.post({ channel: root.channel, thread: root }, { kind: 'report', report, buttons }),
    );
    await settleRoot(jobId, root, posted ? verdictView(report) : undefined, logger);
    // Text first: the chart follows the answer into its thread, and only from the run that answered.
    if (posted && !signal.aborted)
      await deps.postChart?.({ channel: root.channel, thread: root }, report, evidence, logger);
    return { status: report.status, causes: report.findings.map((f) => f.cause) };
  };

  const runStatus = async (job: StatusJob, jobId: string): Promise<{ clusters: number }> => {
    const lines = await Promise.all(
      job.clusters.map(async (name) => {
        try {
          // Every cluster at once: only the ones someone then looks at keep their connections.
          const report = await deps.doctor.run(name, 'health', { keepClients: false });
          return `• *${name}*: ${STATUS_WORD[report.status]}, ${headline(report)}`;
        } catch (err) {
          return `• *${name}*: could not be checked (${describeError(err)})`;
        }
      }),
    );
    await once(jobId, () =>
      deps.chat.post({ channel: job.channel }, textView(lines, 'info', { title: 'etcd clusters' })),
    );
    return { clusters: job.clusters.length };
  };

  return {
    run(data: JobData, info) {
      const logger =
        info.logger ??
        withFields(deps.logger, {
          jobId: info.jobId,
          kind: data.kind,
          ...(data.kind === 'check' ? { cluster: data.cluster } : {}),
        });
      logger.info({ attempt: info.attempt }, 'job started');
      if (data.kind === 'check') return runCheck(data, info.jobId, info.signal, logger);
      if (data.kind === 'status') return runStatus(data, info.jobId);
      // Digest and alert jobs have their own handlers (src/digest, src/alerts; see routeJobs).
      return Promise.reject(new Error(`no handler for ${data.kind} jobs in this runner`));
    },
    async failed(jobId, data, reason) {
      const logger = withFields(deps.logger, {
        jobId,
        ...(data && 'cluster' in data ? { cluster: data.cluster } : {}),
      });
      logger.warn({ reason }, 'job failed for good');
      if (!data || (data.kind !== 'check' && data.kind !== 'status')) return;
      const root = data.kind === 'check' ? await deps.state.root(jobId) : undefined;
      const what =
        data.kind === 'status'
          ? 'the status check'
          : `the ${data.depth === 'diagnose' ? 'diagnosis' : 'health check'} of *${data.cluster}*`;
      const to: Destination = root ? { channel: root.channel, thread: root } : { channel: data.channel };
      const posted = await once(jobId, () =>
        deps.chat.post(to, textView(`Could not finish ${what}: ${reason}`, 'error')),
      );
      if (posted && root && data.kind === 'check')
        await settleRoot(jobId, root, failedVerdictView(data.depth, data.cluster, reason), logger);
    },
  };
}
