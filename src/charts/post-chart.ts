import type { ChatAdapter, Destination } from '../chat/adapter.js';
import { describeError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Evidence } from '../probes/evidence.js';
import type { MinuteSample } from '../state/minute-sample.js';
import { type HistoryReader, readHistory } from '../history/since-when-report.js';
import type { DiagnosisReport } from '../contracts/report-json.js';
import type { ChartImage } from './chart-data.js';
import type { ChartRenderer } from './chart-renderer.js';
import { type DigestCluster, digestPanels } from './digest-chart.js';
import { diagnosisChart, HISTORY_CHART_MS, memberChart } from './diagnosis-chart.js';
import type { Cause } from '../diagnosis/finding.js';

export interface ChartPosterDeps {
  chat: Pick<ChatAdapter, 'upload'>;
  renderer: ChartRenderer;
  /** The watch's minute history: with it, charts span its last hour (else the probe window). */
  history?: HistoryReader;
  now?: () => number;
}

/** Posts a diagnosis's chart into its thread; resolves whether or not that worked. */
export type ChartPoster = (
  to: Destination,
  report: DiagnosisReport,
  evidence: Evidence | undefined,
  logger: Logger,
) => Promise<void>;

/** Posts the digest's small multiples (a panel per cluster with a problem) into its thread. */
export type DigestChartPoster = (
  to: Destination,
  clusters: readonly DigestCluster[],
  logger: Logger,
) => Promise<void>;

/** The chart is given up after this long (Slack retries a failing upload for minutes). */
const DEFAULT_DEADLINE_MS = 30_000;

/**
 * The chart goes after the text answer, into the same thread, and never costs it: a chart that
 * cannot be drawn or uploaded is logged and the answer stands. Reports with nothing to chart get none.
 */
export function createChartPoster(deps: ChartPosterDeps): ChartPoster {
  return async (to, report, evidence, logger) => {
    if (!evidence || !deps.chat.upload) return;
    const now = deps.now?.() ?? Date.now();
    const samples = await historyFor(deps, report.cluster, now, logger);
    const chart = diagnosisChart(report, evidence, samples, now);
    if (chart) await drawAndUpload(deps, to, () => deps.renderer.member(chart), logger);
  };
}

/** The cluster's minute history for a chart (none without a history, or when it fails or is slow). */
export function historyFor(
  deps: Pick<ChartPosterDeps, 'history'>,
  cluster: string,
  now: number,
  logger: Logger,
): Promise<MinuteSample[]> {
  return deps.history
    ? readHistory(deps.history, cluster, now, logger, HISTORY_CHART_MS)
    : Promise.resolve([]);
}

/**
 * Posts the chart of one cause's metric for `members` (highlighted), whatever the report found: a
 * watch incident's chart on open and on resolve, where the resolving check has nothing to chart.
 * Over the last hour of minute history when `deps.history` holds it, else the check's window.
 */
export type CauseChartPoster = (
  to: Destination,
  subject: { cause: Cause; members: readonly string[] },
  evidence: Evidence,
  logger: Logger,
) => Promise<void>;

export function createCauseChartPoster(deps: ChartPosterDeps): CauseChartPoster {
  return async (to, subject, evidence, logger) => {
    const now = deps.now?.() ?? Date.now();
    const samples = await historyFor(deps, evidence.cluster, now, logger);
    const chart = memberChart(subject.cause, subject.members, evidence, samples, now);
    await drawAndUpload(deps, to, () => deps.renderer.member(chart), logger);
  };
}

export function createDigestChartPoster(deps: ChartPosterDeps): DigestChartPoster {
  return async (to, clusters, logger) => {
    const panels = deps.chat.upload ? digestPanels(clusters) : [];
    if (panels.length === 0) return;
    const unhealthy = clusters.filter((c) => c.report.status !== 'healthy').length;
    const shown = panels.length < unhealthy ? ` (the worst ${panels.length} of ${unhealthy})` : '';
    const title = `etcd digest: wal fsync p99 of the clusters with a problem${shown}`;
    await drawAndUpload(deps, to, () => deps.renderer.smallMultiples(title, panels), logger);
  };
}

async function drawAndUpload(
  deps: ChartPosterDeps,
  to: Destination,
  draw: () => Promise<ChartImage>,
  logger: Logger,
): Promise<void> {
  const upload = deps.chat.upload;
  if (!upload) return;
  const deadlineMs = DEFAULT_DEADLINE_MS;
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    const image = await draw();
    const renderMs = Math.round(performance.now() - started);
    const file = { filename: image.filename, title: image.title, content: image.png, altText: image.altText };
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`the upload took over ${deadlineMs} ms`)), deadlineMs);
    });
    await Promise.race([upload.call(deps.chat, to, file), late]);
    logger.info({ chart: image.filename, renderMs, bytes: image.png.length }, 'chart posted in the thread');
  } catch (err) {
    logger.warn({ err: describeError(err) }, 'could not post the chart; the answer stands');
  } finally {
    clearTimeout(timer);
  }
}
