import type { Status } from '../diagnosis/diagnose.js';
import type { DayTrends } from '../state/day-trends.js';
import { largestDb, worstTookMs } from '../state/history-sample.js';
import type { HistorySample } from '../state/history-sample.js';
import {
  baseline,
  type DailySeries,
  dailySeries,
  sameKind,
  sparkline,
  TREND_DAYS,
  trend,
} from '../history/trends.js';
import { headline, STATUS_WORD, type TextView, textView } from '../report/chat-view.js';
import type { DiagnosisReport } from '../contracts/report-json.js';
import { backupDigestPart } from '../report/backups-view.js';
import { formatBytes, formatList, formatMs } from '../format.js';

/** What the digest learned about one cluster: a report, or why there is none. */
export type ClusterOutcome =
  | {
      cluster: string;
      ok: true;
      report: DiagnosisReport;
      samples: HistorySample[];
      /** The day from the watch's minute history, when the cluster is watched (state/day-trends.ts). */
      day?: DayTrends;
    }
  | { cluster: string; ok: false; reason: string };

/** Emoji that read the same in Slack and in a terminal. */
const EMOJI: Record<Status | 'failed', string> = {
  critical: '🔴',
  degraded: '🟡',
  unknown: '⚪',
  healthy: '🟢',
  failed: '⚪',
};
const ORDER: Record<Status | 'failed', number> = {
  critical: 0,
  degraded: 1,
  unknown: 2,
  failed: 3,
  healthy: 4,
};

/** fsync p99 changes under 2 ms, and a single election, are noise (etcd FAQ: fsync p99 < 10 ms is fine). */
const FSYNC_FLOOR_MS = 2;
const LEADER_FLOOR = 1;

export function statusOf(o: ClusterOutcome): Status | 'failed' {
  return o.ok ? o.report.status : 'failed';
}

/** Worst first, then by name: what needs attention is at the top. */
export function sortOutcomes(outcomes: ClusterOutcome[]): ClusterOutcome[] {
  return [...outcomes].sort(
    (a, b) => ORDER[statusOf(a)] - ORDER[statusOf(b)] || a.cluster.localeCompare(b.cluster),
  );
}

/**
 * `1d↑ 7d→`: against yesterday and against the median of the seven days before today, each only
 * against days of the same kind (watch checks or diagnoses; `·` when there is none).
 */
function arrows(series: Array<number | null>, fromChecks: readonly boolean[], floor: number): string {
  const like = sameKind(series, fromChecks);
  const today = like[TREND_DAYS - 1] ?? null;
  return `1d${trend(today, like[TREND_DAYS - 2] ?? null, floor)} 7d${trend(today, baseline(like), floor)}`;
}

/** `day p99 of 1,440 checks`: where a trend of today comes from. */
function daySource(day: DayTrends): string {
  return `day p99 of ${day.checks.toLocaleString('en-US')} check${day.checks === 1 ? '' : 's'}`;
}

const orNa = (v: number | null | undefined, f: (n: number) => string): string =>
  v === null || v === undefined ? 'n/a' : f(v);

/**
 * Today's values: from the day of minute history when the cluster is watched (the day's p99 from
 * every check's buckets, every election of the day), else from the digest's own diagnosis.
 */
function todayParts(o: Extract<ClusterOutcome, { ok: true }>, series: DailySeries): string[] {
  const last = TREND_DAYS - 1;
  const day = o.day;
  if (day) {
    series.fsyncP99Ms[last] = day.fsyncP99Ms;
    series.leaderChanges[last] = day.leaderChanges;
    series.fromChecks[last] = true;
  }
  const fsync = series.fsyncP99Ms[last];
  const leaders = series.leaderChanges[last];
  const fromDay = day && day.fsyncP99Ms !== null ? ` (${daySource(day)})` : '';
  const parts = [
    `fsync p99 ${orNa(fsync, formatMs)}${fromDay} ${arrows(series.fsyncP99Ms, series.fromChecks, FSYNC_FLOOR_MS)} ${sparkline(series.fsyncP99Ms)}`,
  ];
  if (day && (day.commitP99Ms !== null || day.peerRttP99Ms !== null))
    parts.push(
      `commit p99 ${orNa(day.commitP99Ms, formatMs)} · peer RTT p99 ${orNa(day.peerRttP99Ms, formatMs)}`,
    );
  const leaderSource =
    day && day.leaderChanges !== null ? ` (in ${day.checks.toLocaleString('en-US')} checks)` : '';
  parts.push(
    `leader changes ${orNa(leaders, String)}${leaderSource} ${arrows(series.leaderChanges, series.fromChecks, LEADER_FLOOR)} ${sparkline(series.leaderChanges)}`,
  );
  return parts;
}

/** One line per cluster: status, root cause, key numbers, trends and sparklines. */
export function digestLine(o: ClusterOutcome, now: number): string {
  if (!o.ok) return `${EMOJI.failed} *${o.cluster}* could not be checked: ${o.reason}`;
  const { report } = o;
  const series: DailySeries = dailySeries(o.samples, now);
  // A known bug of the release is no root cause: it gets its own part below.
  const root = report.findings.find((f) => f.cause !== 'known-bug');
  const what = root
    ? `${STATUS_WORD[report.status]}: \`${root.cause}\`${root.members.length ? ` on ${formatList(root.members)}` : ''}`
    : STATUS_WORD[report.status];
  const parts = [`${EMOJI[report.status]} *${report.cluster}* ${what}`, ...todayParts(o, series)];
  const latest = o.samples.at(-1);
  const db = o.day?.db ?? (latest ? largestDb(latest) : null);
  if (db) {
    const inUse =
      db.inUseBytes !== null && db.sizeBytes > 0
        ? ` (${Math.round((db.inUseBytes / db.sizeBytes) * 100)}% in use)`
        : '';
    parts.push(`DB ${formatBytes(db.sizeBytes)}${inUse}`);
  }
  const defrag = defragPart(report);
  if (defrag) parts.push(defrag);
  const took = latest ? worstTookMs(latest) : null;
  if (took !== null) parts.push(`took ${formatMs(took)}`);
  const restarts = series.restarts[TREND_DAYS - 1];
  if (restarts !== null && restarts !== undefined && restarts > 0)
    parts.push(`${restarts} control-plane restarts`);
  const up = report.members.filter((m) => m.reachable).length;
  const unchecked = report.members.filter((m) => m.reachable === null).length;
  if (unchecked) parts.push(`${unchecked}/${report.members.length} members not checked by etcd-doctor`);
  else if (up < report.members.length) parts.push(`${up}/${report.members.length} members answer`);
  const learners = report.members.filter((m) => m.isLearner).length;
  if (learners) parts.push(`${learners} learner${learners > 1 ? 's' : ''}`);
  // The newest good backup of a cluster with `backups`, verified by its SHA-256 trailer.
  const backup = report.backups ? backupDigestPart(report.backups) : '';
  if (backup) parts.push(backup);
  const bug = knownBugPart(report);
  if (bug) parts.push(bug);
  return parts.join(' · ');
}

/**
 * The known-bug finding in a few words: `known bugs on etcd-1, etcd-2 (upgrade to 3.4.42)`, with
 * a warning sign when one loses or corrupts data (the full list is in the report).
 */
export function knownBugPart(report: DiagnosisReport): string | undefined {
  const f = report.findings.find((x) => x.cause === 'known-bug');
  if (!f) return undefined;
  const targets = [...f.summary.matchAll(/upgrade to (\S+) or later/g)].map((m) => m[1] ?? '');
  const sign = f.severity === 'warning' ? ':warning: ' : '';
  // A version its Kubernetes no longer supports leads the part (the rule names it first).
  const unsupported = /^(.*?no longer supports \(below [^)]+\))/.exec(f.summary)?.[1];
  const bugs = targets.length
    ? `known bugs on ${formatList(f.members)} (upgrade to ${formatList(targets)})`
    : '';
  return `${sign}${[unsupported, bugs].filter(Boolean).join('; ')}`;
}

/**
 * What a defragmentation would return, from each member's dbSize - dbSizeInUse in the report:
 * `a defrag would free 96 MB (most on etcd-1: 48 MB)`. Undefined when no member's sizes are known.
 */
export function defragPart(report: DiagnosisReport): string | undefined {
  const free = report.members.flatMap((m) =>
    m.dbSizeBytes !== null && m.dbSizeInUseBytes !== null && m.dbSizeBytes > 0
      ? [{ name: m.name, bytes: Math.max(0, m.dbSizeBytes - m.dbSizeInUseBytes) }]
      : [],
  );
  if (free.length === 0) return undefined;
  const total = free.reduce((sum, f) => sum + f.bytes, 0);
  const most = [...free].sort((a, b) => b.bytes - a.bytes)[0];
  const where = free.length > 1 && most ? ` (most on ${most.name}: ${formatBytes(most.bytes)})` : '';
  return `a defrag would free ${formatBytes(total)}${where}`;
}

export interface DigestHeader {
  /** The slot this digest is for, or undefined for one asked for now. */
  slotMs: number | undefined;
  /** `09:00 Europe/Paris`. */
  scheduleText: string | undefined;
  late: boolean;
  /** Clusters the subscription names that the config no longer has. */
  missing: string[];
}

/** The root message keeps to Slack's text budget; what does not fit goes to the thread. */
export const ROOT_TEXT_BUDGET = 9000;

export interface DigestMessages {
  root: TextView;
  /** Lines of clusters (the least urgent) that did not fit in the root. */
  overflow: string[];
}

export function digestMessages(
  outcomes: ClusterOutcome[],
  header: DigestHeader,
  now: number,
): DigestMessages {
  const sorted = sortOutcomes(outcomes);
  const counts = new Map<string, number>();
  for (const o of sorted) counts.set(statusOf(o), (counts.get(statusOf(o)) ?? 0) + 1);
  const summary = (['critical', 'degraded', 'unknown', 'failed', 'healthy'] as const)
    .filter((s) => counts.get(s))
    .map((s) => `${counts.get(s)} ${s === 'failed' ? 'not checked' : s}`)
    .join(', ');
  const lines: string[] = [];
  if (header.late && header.slotMs !== undefined) {
    lines.push(
      `⏰ *Late*: this digest was due ${header.scheduleText ? `at ${header.scheduleText} ` : ''}(${new Date(header.slotMs).toISOString()}) and is sent now because etcd-doctor was not running then.`,
    );
  }
  let used = lines.join('\n').length;
  const overflow: string[] = [];
  for (const o of sorted) {
    const line = digestLine(o, now);
    // Worst first, so what does not fit is the least urgent; it goes to the thread, never lost.
    if (overflow.length || used + line.length + 1 > ROOT_TEXT_BUDGET) overflow.push(line);
    else {
      lines.push(line);
      used += line.length + 1;
    }
  }
  if (overflow.length) lines.push(`…and ${overflow.length} more clusters, listed in the thread.`);
  if (header.missing.length) lines.push(`Not in the config any more: ${header.missing.join(', ')}.`);
  lines.push(
    `_Trends: 1d against yesterday, 7d against the median of the 7 days before; sparklines show 8 days, today last.${
      outcomes.some((o) => o.ok && o.day)
        ? ' For watched clusters today is the day of watch checks (p99 from their stored histogram buckets), compared only with earlier days of watch checks.'
        : ''
    }_`,
  );
  const title = `etcd daily digest${header.late ? ' (late)' : ''}: ${outcomes.length} cluster${outcomes.length === 1 ? '' : 's'}, ${summary}`;
  const worst = sorted[0] ? statusOf(sorted[0]) : 'healthy';
  const tone = worst === 'critical' ? 'error' : worst === 'healthy' ? 'success' : 'warning';
  return { root: textView(lines, tone, { title }), overflow };
}

/** The thread's summary for unhealthy clusters beyond those that get a full report. */
export function briefLines(o: ClusterOutcome): string[] {
  if (!o.ok) return [`${EMOJI.failed} *${o.cluster}*: ${o.reason}`];
  const root = o.report.findings.find((f) => f.cause !== 'known-bug');
  return [
    `${EMOJI[o.report.status]} *${o.cluster}*: ${headline(o.report)}`,
    ...(root ? root.evidence.slice(0, 3).map((e) => `    ${e}`) : []),
  ];
}
