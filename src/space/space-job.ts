import type { ChatAdapter, Destination, MessageRef } from '../chat/adapter.js';
import type { ChartImage } from '../charts/chart-data.js';
import type { ClusterConfig } from '../config/schema.js';
import { describeError } from '../errors.js';
import { type Logger, withFields } from '../logger.js';
import type { SpaceJob } from '../queue/job-schemas.js';
import { type TextView, textView } from '../report/chat-view.js';
import type { JobState } from '../state/job-state.js';
import { answerOnce } from '../answer/answer-once.js';
import { createProgressUpdates } from '../answer/progress-updates.js';
import {
  measureSpace,
  type SpaceDeps,
  type SpaceRunOptions,
  SpaceUnavailableError,
} from './measure-space.js';
import { progressWords, spaceChatLines, spaceHeadline } from './render-space.js';
import type { SpaceReport } from './space-report.js';

export interface SpaceJobDeps {
  chat: ChatAdapter;
  cluster(name: string): ClusterConfig;
  state: Pick<JobState, 'root' | 'saveRoot' | 'claimAnswer' | 'markAnswered' | 'releaseAnswer'>;
  workerId: string;
  logger: Logger;
  space: SpaceDeps;
  /** Draws the bar chart; none without it. */
  drawChart?: (report: SpaceReport) => Promise<ChartImage>;
  sleep: (ms: number) => Promise<void>;
  /** Progress edits at most this often (Slack: about one a second per channel). Default 1000 ms. */
  progressIntervalMs?: number;
  /** Test knobs over the cluster's `space` settings. */
  overrides?: Pick<SpaceRunOptions, 'bytesPerSecond' | 'maxScanSeconds' | 'churnSeconds'>;
}

export interface SpaceJobHandlers {
  run(job: SpaceJob, info: { jobId: string; attempt: number; signal: AbortSignal }): Promise<unknown>;
  failed(jobId: string, job: SpaceJob, reason: string): Promise<void>;
}

const CHART_DEADLINE_MS = 30_000;

/** `/etcd space` answers under a root message of its own; the button answers in its diagnosis's thread. */
function destination(job: SpaceJob): Destination {
  return job.thread
    ? { channel: job.channel, thread: { channel: job.channel, ts: job.thread } }
    : { channel: job.channel };
}

function startView(cluster: string): TextView {
  return textView(`Measuring what fills *${cluster}*: reading from a follower, rate-limited…`);
}

/**
 * The worker side of `space`: a progress message (the root, or a message in the diagnosis's
 * thread), edited as the scan counts and reads; the answer once, in the thread; the progress
 * message set to the headline; then the chart. A cluster that cannot be reached is an answer.
 */
export function createSpaceJob(deps: SpaceJobDeps): SpaceJobHandlers {
  const once = (jobId: string, deliver: () => Promise<MessageRef>) =>
    answerOnce(jobId, deliver, {
      state: deps.state,
      workerId: deps.workerId,
      leaseMs: 120_000,
      waitMs: 5000,
      sleep: deps.sleep,
    });

  /** A retried job keeps its first attempt's progress message. */
  const progressMessage = async (jobId: string, job: SpaceJob): Promise<MessageRef> => {
    const known = await deps.state.root(jobId);
    if (known) return known;
    const ref = await deps.chat.post(destination(job), startView(job.cluster));
    await deps.state.saveRoot(jobId, ref);
    return ref;
  };
  const threadOf = (job: SpaceJob, progress: MessageRef): Destination =>
    job.thread ? destination(job) : { channel: progress.channel, thread: progress };

  return {
    async run(job, info) {
      const logger = withFields(deps.logger, { jobId: info.jobId, kind: 'space', cluster: job.cluster });
      const cluster = deps.cluster(job.cluster);
      const progress = await progressMessage(info.jobId, job);
      const outcome = await measureWithProgress(deps, job, cluster, progress, info.signal, logger);
      if (info.signal.aborted) return { status: 'abandoned' };
      const answer =
        'report' in outcome ? answerView(outcome.report) : unavailableView(job, outcome.unavailable);
      const posted = await once(info.jobId, () => deps.chat.post(threadOf(job, progress), answer));
      if (!posted) return { status: 'answered already' };
      const headline =
        'report' in outcome
          ? spaceHeadline(outcome.report)
          : `${job.cluster}: not measured (${outcome.unavailable})`;
      await deps.chat
        .update(
          progress,
          textView(headline, 'report' in outcome ? 'info' : 'warning', { title: 'What fills etcd' }),
        )
        .catch((err: unknown) => logger.warn({ err: describeError(err) }, 'could not set the headline'));
      if ('report' in outcome) await postChart(deps, threadOf(job, progress), outcome.report, logger);
      logger.info({ complete: 'report' in outcome && outcome.report.scan.complete }, 'space answered');
      return { status: 'report' in outcome ? 'answered' : 'unavailable' };
    },
    async failed(jobId, job, reason) {
      const progress = await deps.state.root(jobId).catch(() => undefined);
      const to = progress ? threadOf(job, progress) : destination(job);
      const view = textView(`Could not finish measuring what fills *${job.cluster}*: ${reason}`, 'error');
      await once(jobId, () => deps.chat.post(to, view)).catch((err: unknown) =>
        deps.logger.warn({ jobId, err: describeError(err) }, 'could not answer a failed space job'),
      );
    },
  };
}

type SpaceOutcome = { report: SpaceReport } | { unavailable: string };

/** The scan, its progress edited into `progress` as it counts and reads; a cluster it cannot reach is an outcome. */
async function measureWithProgress(
  deps: SpaceJobDeps,
  job: SpaceJob,
  cluster: ClusterConfig,
  progress: MessageRef,
  signal: AbortSignal,
  logger: Logger,
): Promise<SpaceOutcome> {
  const updates = createProgressUpdates<TextView>(
    (view) => (signal.aborted ? Promise.resolve() : deps.chat.update(progress, view).then(() => undefined)),
    {
      minIntervalMs: deps.progressIntervalMs ?? 1000,
      onError: (err) => logger.warn({ err: describeError(err) }, 'space progress update failed'),
    },
  );
  try {
    const report = await measureSpace(cluster, deps.space, {
      signal,
      onProgress: (p) => updates.push(textView(`${progressWords(`*${job.cluster}*`, p)}…`)),
      ...deps.overrides,
    });
    return { report };
  } catch (err) {
    if (!(err instanceof SpaceUnavailableError)) throw err;
    return { unavailable: err.message };
  } finally {
    await updates.stop();
  }
}

function answerView(report: SpaceReport): TextView {
  const tone = report.scan.complete ? 'info' : 'warning';
  return textView(spaceChatLines(report), tone, { title: `What fills ${report.cluster}` });
}

function unavailableView(job: SpaceJob, why: string): TextView {
  return textView([why, 'Nothing was measured; `/etcd health` says which members answer.'], 'warning', {
    title: `Could not measure what fills ${job.cluster}`,
  });
}

/** The chart follows the answer into its thread; one that cannot be drawn or uploaded is logged, never the answer's loss. */
async function postChart(
  deps: SpaceJobDeps,
  to: Destination,
  report: SpaceReport,
  logger: Logger,
): Promise<void> {
  const upload = deps.chat.upload?.bind(deps.chat);
  if (!upload || !deps.drawChart || report.byResource.length === 0) return;
  let timer: NodeJS.Timeout | undefined;
  try {
    const image = await deps.drawChart(report);
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`the upload took over ${CHART_DEADLINE_MS} ms`)),
        CHART_DEADLINE_MS,
      );
    });
    await Promise.race([
      upload(to, {
        filename: image.filename,
        title: image.title,
        content: image.png,
        altText: image.altText,
      }),
      late,
    ]);
  } catch (err) {
    logger.warn({ err: describeError(err) }, 'could not post the space chart; the answer stands');
  } finally {
    clearTimeout(timer);
  }
}
