import type { DiagnosisReport, FindingJson, SinceWhenJson } from '../contracts/report-json.js';
import { describeError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { MinuteHistory } from '../state/minute-history.js';
import { withDeadline } from '../timing.js';
import type { MinuteSample } from '../state/minute-sample.js';
import { addBeforeDown } from './before-down.js';
import { SINCE_WHEN_BY_FINDING, findLastSeen, findSinceWhen, sinceWhenMetric } from './since-when.js';

/** How far back "since when" looks: the full-resolution day (the incidents' lookback too). */
export const SINCE_WHEN_LOOKBACK_MS = 24 * 3600_000;
/** The history read is given up after this long: the diagnosis is the answer, not its date. */
export const SINCE_WHEN_READ_MS = 1500;
/** A finding naming many members (every disk slow) dates the first few; the rest say the same. */
const MAX_MEMBERS = 3;

/**
 * Causes whose info finding is the past: what only the since-start histogram shows (slow-disk,
 * peer-network: `had a slow disk earlier`), never a present reading.
 */
const PAST_CAUSES = new Set(['slow-disk', 'peer-network']);

/** The causes whose finding is dated from the history (those with a metric in it). */
function findingTakesSinceWhen(f: FindingJson): boolean {
  return sinceWhenMetric(f.cause, undefined) !== undefined || f.cause in SINCE_WHEN_BY_FINDING;
}

/** Whether any finding of the report could be dated from the minute history. */
export function reportTakesSinceWhen(report: DiagnosisReport): boolean {
  return report.findings.some(findingTakesSinceWhen);
}

/**
 * The report with `since` on every finding that has a metric in the minute history and whose
 * current run of checks the history shows; unchanged when nothing could be dated.
 */
export function addSinceWhen(
  report: DiagnosisReport,
  samples: readonly MinuteSample[],
  now: number,
): DiagnosisReport {
  if (samples.length === 0 || !report.findings.some(findingTakesSinceWhen)) return report;
  const findings = report.findings.map((f) => {
    if (!findingTakesSinceWhen(f)) return f;
    const who = f.members.length ? f.members.slice(0, MAX_MEMBERS) : [undefined];
    // A finding told as the past (info) says when it was last seen; a live one since when it lasts.
    const find = f.severity === 'info' && PAST_CAUSES.has(f.cause) ? findLastSeen : findSinceWhen;
    const since = who.flatMap((m): SinceWhenJson[] => {
      const found = find(samples, f.cause, m, now);
      return found ? [found] : [];
    });
    return since.length ? { ...f, since } : f;
  });
  return { ...report, findings };
}

/** Whether the minute history adds to the report: a finding to date, or a member down to explain. */
export function reportReadsHistory(report: DiagnosisReport): boolean {
  return reportTakesSinceWhen(report) || report.findings.some((f) => f.cause === 'member-down');
}

/** What the watch's minute history adds to a diagnosis: since when, and why a member went down. */
export function addFromHistory(
  report: DiagnosisReport,
  samples: readonly MinuteSample[],
  now: number,
): DiagnosisReport {
  return addBeforeDown(addSinceWhen(report, samples, now), samples);
}

/** Reads a cluster's minute history since `sinceMs`, oldest first. */
export type HistoryReader = Pick<MinuteHistory, 'series'>;

/**
 * The cluster's history from `now - lookback`, or none when it fails or takes longer than
 * SINCE_WHEN_READ_MS (Redis down must not hold up an answer: no history, no since-when).
 */
export async function readHistory(
  history: HistoryReader,
  cluster: string,
  now: number,
  logger?: Logger,
  lookbackMs = SINCE_WHEN_LOOKBACK_MS,
): Promise<MinuteSample[]> {
  return withDeadline(
    history.series(cluster, now - lookbackMs).catch((err: unknown) => {
      logger?.warn({ cluster, err: describeError(err) }, 'could not read the minute history');
      return [];
    }),
    SINCE_WHEN_READ_MS,
    () => [] as MinuteSample[],
  );
}
