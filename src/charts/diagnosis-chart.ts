import {
  LEADER_CHANGES_LIMIT,
  LEADER_CHANGES_PERIOD_S,
  STARTUP_ELECTIONS,
} from '../diagnosis/rules/leader-churn.js';
import { judgedQuota, spaceOf } from '../diagnosis/support/space.js';
import { STALL_MEAN_RTT_MS, STALLED_READ_MS } from '../diagnosis/rules/cpu-starvation.js';
import { PEER_RTT_P99_LIMIT_S } from '../diagnosis/rules/peer-network.js';
import { BACKEND_COMMIT_P99_LIMIT_S, isSlow, WAL_FSYNC_P99_LIMIT_S } from '../diagnosis/rules/slow-disk.js';
import type { Cause } from '../diagnosis/finding.js';
import type { Evidence, LatencySummary, MemberEvidence } from '../probes/evidence.js';
import type { DiagnosisReport } from '../contracts/report-json.js';
import { COL, type MinuteSample } from '../state/minute-sample.js';
import { formatBytes, formatMs } from '../format.js';
import type { ChartPoint, ChartSeries, ChartThreshold, ChartUnit, MemberChart } from './chart-data.js';

/** The causes whose metric shows the problem member by member. */
export const CHARTED_CAUSES: readonly Cause[] = [
  'slow-disk',
  'peer-network',
  'leader-churn',
  'cpu-starvation',
  'db-quota',
  'db-fragmentation',
];

type Reading = Pick<ChartPoint, 'value' | 'note'>;

interface MetricPick {
  metric: string;
  unit: ChartUnit;
  /** A fixed line, or one read from the evidence (a member's quota); none when it is not known. */
  threshold: ChartThreshold | ((evidence: Evidence) => ChartThreshold | undefined);
  /** Over what time the numbers were measured (the probe window unless the histogram says otherwise). */
  period: (evidence: Evidence) => string;
  read: (member: MemberEvidence, evidence: Evidence) => Reading | undefined;
  /** The same measure in the minute history, when it keeps one (src/state/minute-sample.ts). */
  history?: HistoryPick;
}

/** A metric's column in the minute history, as the chart over the last hour draws it. */
interface HistoryPick {
  col: (typeof COL)[keyof typeof COL];
  /** Another metric than the probe window's (the history keeps no GET /version times). */
  metric?: string;
  threshold?: ChartThreshold;
  /** Leader changes are counted per check; the rule counts them over 15 min. */
  perPeriodMs?: number;
  /** The diagnosis's own reading, appended as the latest point when it measures the same thing. */
  appendWindow?: boolean;
}

/** The chart over history shows this much of it: the "last hour". */
export const HISTORY_CHART_MS = 3600_000;
/** The history chart's axis spans at least this, however recent the first check. */
const MIN_HISTORY_SPAN_MS = 10 * 60_000;
/** Fewer checks than this in the hour draw no line: the probe window's bars say more. */
const MIN_HISTORY_POINTS = 2;

/**
 * The chart for a diagnosis thread: the metric of its highest-ranked slow-disk, peer-network,
 * leader-churn or cpu-starvation finding, per member, with the finding's members highlighted.
 * Undefined when no finding has such a metric (a chart of nothing wrong would only distract).
 */
export function diagnosisChart(
  report: DiagnosisReport,
  evidence: Evidence,
  samples: readonly MinuteSample[] = [],
  now: number = evidence.collectedAt,
): MemberChart | undefined {
  const finding = report.findings.find((f) => CHARTED_CAUSES.includes(f.cause));
  if (!finding) return undefined;
  return memberChart(finding.cause, finding.members, evidence, samples, now);
}

/**
 * `cause`'s metric per member over the last hour of minute history when the history holds it (at
 * least two checks), else over the probe window (windowChart). What diagnoses and incidents draw.
 */
export function memberChart(
  cause: Cause,
  highlight: readonly string[],
  evidence: Evidence,
  samples: readonly MinuteSample[],
  now: number,
): MemberChart {
  return historyChart(cause, highlight, evidence, samples, now) ?? windowChart(cause, highlight, evidence);
}

/** The chart over the last hour of history, or undefined when the hour holds too little of the metric. */
export function historyChart(
  cause: Cause,
  highlight: readonly string[],
  evidence: Evidence,
  samples: readonly MinuteSample[],
  now: number,
): MemberChart | undefined {
  const pick = pickMetric(cause, highlight, evidence);
  const h = pick.history;
  const from = now - HISTORY_CHART_MS;
  const hour = samples.filter((s) => s.t >= from && s.t <= now);
  if (!h || hour.length === 0) return undefined;
  const names = [
    ...new Set([...evidence.members.map((m) => m.target.name), ...hour.flatMap((s) => s.m.map((m) => m[0]))]),
  ];
  const series = names.map((name): ChartSeries => {
    const points = historyPoints(hour, name, h);
    const member = evidence.members.find((m) => m.target.name === name);
    const reading = h.appendWindow && member ? pick.read(member, evidence) : undefined;
    const last = points.at(-1)?.atMs ?? Number.NEGATIVE_INFINITY;
    if (reading && evidence.collectedAt > last)
      points.push({ atMs: evidence.collectedAt, value: reading.value });
    return { name, points };
  });
  if (series.every((s) => s.points.length < MIN_HISTORY_POINTS)) return undefined;
  // The axis spans the history there is (at least MIN_HISTORY_SPAN_MS): three minutes of checks drawn
  // over an hour sat in the right 3 % of the plot.
  // History that covers nearly all of the hour keeps the hour, a cleaner axis for a few empty pixels.
  const first = Math.min(...series.flatMap((s) => s.points.map((p) => p.atMs)));
  const fitted = Math.max(from, Math.min(first, now - MIN_HISTORY_SPAN_MS));
  const start = fitted - from < HISTORY_CHART_MS / 10 ? from : fitted;
  const span = start === from ? 'hour' : `${Math.round((now - start) / 60_000)} min`;
  return {
    cluster: evidence.cluster,
    metric: h.metric ?? pick.metric,
    unit: pick.unit,
    // Short: the subtitle adds the threshold, and a subtitle wider than the plot widens the image.
    period: `over the last ${span}, ${hhmm(start)}-${hhmm(now)} UTC`,
    series,
    ...withThreshold(h.threshold ?? thresholdOf(pick, evidence)),
    highlight,
    xDomain: [start, now],
  };
}

function historyPoints(hour: readonly MinuteSample[], name: string, h: HistoryPick): ChartPoint[] {
  const raw = hour.flatMap((s) => {
    const v = s.m.find((m) => m[0] === name)?.[h.col];
    return typeof v === 'number' ? [{ atMs: s.t, value: v }] : [];
  });
  const period = h.perPeriodMs;
  if (period === undefined) return raw;
  // The rule's own measure: the changes of the checks in the period up to each point.
  return raw.map((p) => ({
    atMs: p.atMs,
    value: raw.filter((q) => q.atMs > p.atMs - period && q.atMs <= p.atMs).reduce((n, q) => n + q.value, 0),
  }));
}

function hhmm(ms: number): string {
  return new Date(ms).toISOString().slice(11, 16);
}

/**
 * One value per member from the probe window for `cause`'s metric; any other cause gets the WAL
 * fsync p99 (what `--chart` draws for a cluster with nothing to chart). Members whose /metrics or
 * clock probe failed are kept, with no data.
 */
export function windowChart(cause: Cause, highlight: readonly string[], evidence: Evidence): MemberChart {
  const pick = pickMetric(cause, highlight, evidence);
  const atMs = evidence.collectedAt;
  return {
    cluster: evidence.cluster,
    metric: pick.metric,
    unit: pick.unit,
    period: pick.period(evidence),
    series: evidence.members.map((m) => {
      const reading = pick.read(m, evidence);
      return { name: m.target.name, points: reading ? [{ atMs, ...reading }] : [] };
    }),
    ...withThreshold(thresholdOf(pick, evidence)),
    highlight,
  };
}

function withThreshold(threshold: ChartThreshold | undefined): { threshold?: ChartThreshold } {
  return threshold ? { threshold } : {};
}

function thresholdOf(pick: MetricPick, evidence: Evidence): ChartThreshold | undefined {
  return typeof pick.threshold === 'function' ? pick.threshold(evidence) : pick.threshold;
}

function pickMetric(cause: Cause, highlight: readonly string[], evidence: Evidence): MetricPick {
  if (cause === 'db-quota' || cause === 'db-fragmentation') return DB_SIZE;
  if (cause === 'peer-network') return PEER_RTT;
  if (cause === 'leader-churn') return LEADER_CHANGES;
  if (cause === 'cpu-starvation') return VERSION_RTT;
  // A slow-disk finding raised by backend commits alone (fsync fine) is charted by its commits.
  const commitsOnly = evidence.members.some(
    (m) =>
      highlight.includes(m.target.name) &&
      m.metrics.ok &&
      isSlow(m.metrics.data.backendCommit, BACKEND_COMMIT_P99_LIMIT_S) &&
      !isSlow(m.metrics.data.walFsync, WAL_FSYNC_P99_LIMIT_S),
  );
  return commitsOnly ? BACKEND_COMMIT : WAL_FSYNC;
}

/**
 * `over the 9.1 s probe window at 14:02:07 UTC`: each member's window is its own (a thin one is
 * widened, probes/metrics.ts), so members whose windows differ are said as a range, the way the
 * finding's evidence gives each member's (issue 42: the chart said 3 s where the text said 9 s).
 */
function windowPeriod(evidence: Evidence): string {
  const seconds = evidence.members.flatMap((m) =>
    m.metrics.ok && m.metrics.data.windowSeconds > 0
      ? [Math.round(m.metrics.data.windowSeconds * 10) / 10]
      : [],
  );
  const low = Math.min(...seconds);
  const high = Math.max(...seconds);
  const length =
    seconds.length === 0
      ? 'probe window'
      : low === high
        ? `${low} s probe window`
        : `probe windows of ${low}-${high} s`;
  return `over the ${length} at ${utcTime(evidence.collectedAt)}`;
}

export function utcTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(11, 19)} UTC`;
}

/** p99 in ms with its mean beside it; a p99 withheld for too few samples falls back to the mean. */
function latencyReading(summary: LatencySummary, noun: string): Reading | undefined {
  const { p99Seconds, meanSeconds, count } = summary;
  if (meanSeconds === undefined || count === 0) return undefined;
  const mean = `mean ${formatMs(meanSeconds * 1000)}`;
  if (p99Seconds === undefined)
    return { value: meanSeconds * 1000, note: `${mean}, ${count} ${noun}: no p99` };
  return { value: p99Seconds * 1000, note: `${mean}, ${count} ${noun}` };
}

// etcd FAQ: wal fsync p99 < 10 ms (slow-disk.ts WAL_FSYNC_P99_LIMIT_S).
const WAL_FSYNC: MetricPick = {
  metric: 'wal fsync p99',
  unit: 'ms',
  threshold: { value: WAL_FSYNC_P99_LIMIT_S * 1000, label: 'etcd FAQ: p99 < 10 ms' },
  period: windowPeriod,
  read: (m) => (m.metrics.ok ? latencyReading(m.metrics.data.walFsync, 'fsyncs') : undefined),
  history: { col: COL.fsyncP99Ms, appendWindow: true },
};

// KB §1.5: the database against --quota-backend-bytes (db-quota.ts, db-fragmentation.ts); the line
// is the quota the member reports (or its pod spec gives), else etcd's 2 GiB default.
const DB_SIZE: MetricPick = {
  metric: 'database size',
  unit: 'MB',
  threshold: (e) => {
    const quotas = e.members.flatMap((m) => {
      const space = spaceOf(e, m);
      return space ? [judgedQuota(space)] : [];
    });
    if (quotas.length === 0) return undefined;
    const quota = Math.min(...quotas);
    return { value: quota / 1e6, label: `the ${formatBytes(quota)} quota (--quota-backend-bytes)` };
  },
  period: (e) => `at ${utcTime(e.collectedAt)}`,
  read: (m) =>
    m.status.ok
      ? {
          value: m.status.data.dbSizeBytes / 1e6,
          note: `in use ${formatBytes(m.status.data.dbSizeInUseBytes)}`,
        }
      : undefined,
};

// etcd FAQ: backend commit p99 < 25 ms (slow-disk.ts BACKEND_COMMIT_P99_LIMIT_S).
const BACKEND_COMMIT: MetricPick = {
  metric: 'backend commit p99',
  unit: 'ms',
  threshold: { value: BACKEND_COMMIT_P99_LIMIT_S * 1000, label: 'etcd FAQ: p99 < 25 ms' },
  period: windowPeriod,
  read: (m) => (m.metrics.ok ? latencyReading(m.metrics.data.backendCommit, 'commits') : undefined),
  history: { col: COL.commitP99Ms, appendWindow: true },
};

// MIXIN etcdMemberCommunicationSlow: peer round trip p99 > 150 ms (peer-network.ts).
const PEER_RTT: MetricPick = {
  metric: 'peer round trip p99',
  unit: 'ms',
  threshold: { value: PEER_RTT_P99_LIMIT_S * 1000, label: 'alert etcdMemberCommunicationSlow: 150 ms' },
  // etcd observes one round trip per peer every ~30 s, so the histogram is read since start.
  period: (e) => `to its slowest peer, since each member started (${utcTime(e.collectedAt)})`,
  read: (m) => {
    if (!m.metrics.ok) return undefined;
    const peers = m.metrics.data.peers.filter((p) => p.rttP99Seconds !== undefined);
    const failures = m.metrics.data.peers.reduce((n, p) => n + p.sentFailuresInWindow, 0);
    if (peers.length === 0) return undefined;
    const worst = Math.max(...peers.map((p) => p.rttP99Seconds ?? 0));
    return { value: worst * 1000, note: `${failures} failed sends in the window` };
  },
  // The watch keeps each check's p99 to the slowest peer (the window's, not since start).
  history: { col: COL.peerRttP99Ms },
};

// MIXIN etcdHighNumberOfLeaderChanges: >= 4 in 15 min (leader-churn.ts).
const LEADER_CHANGES: MetricPick = {
  metric: 'leader changes per 15 min',
  unit: 'count',
  threshold: { value: LEADER_CHANGES_LIMIT, label: 'alert etcdHighNumberOfLeaderChanges: 4 in 15 min' },
  period: (e) => `since each member started, as of ${utcTime(e.collectedAt)}`,
  read: (m, e) => {
    if (!m.metrics.ok) return undefined;
    const data = m.metrics.data;
    const sinceStart = Math.max(0, data.totals.leaderChanges - STARTUP_ELECTIONS);
    const started = data.gauges.processStartTimeSeconds;
    const uptimeS = started === undefined ? undefined : Math.max(1, e.collectedAt / 1000 - started);
    // The rule's own measure: a member younger than the period is compared directly.
    const perPeriod =
      uptimeS === undefined || uptimeS <= LEADER_CHANGES_PERIOD_S
        ? sinceStart
        : (sinceStart * LEADER_CHANGES_PERIOD_S) / uptimeS;
    return {
      value: perPeriod,
      note: `${data.deltas.leaderChanges} in the window, ${sinceStart} since start`,
    };
  },
  history: {
    col: COL.leaderChanges,
    metric: 'leader changes in 15 min',
    perPeriodMs: LEADER_CHANGES_PERIOD_S * 1000,
  },
};

// cpu-starvation.ts STALL_MEAN_RTT_MS (inference, measured): a trivial GET /version averaging 30 ms.
const VERSION_RTT: MetricPick = {
  metric: 'GET /version mean',
  unit: 'ms',
  threshold: { value: STALL_MEAN_RTT_MS, label: `stalled from ${STALL_MEAN_RTT_MS} ms (and 3x its peers)` },
  period: (e) => `over the probe window at ${utcTime(e.collectedAt)}`,
  read: (m) =>
    m.clock.ok
      ? {
          value: m.clock.data.meanRttMs,
          note: `slowest ${formatMs(m.clock.data.maxRttMs)} of ${m.clock.data.samples}`,
        }
      : undefined,
  // The history keeps no GET /version times: each check's linearizable read, which a stall slows too.
  history: {
    col: COL.tookMs,
    metric: 'linearizable read',
    threshold: { value: STALLED_READ_MS, label: `a stalled read from ${STALLED_READ_MS} ms` },
  },
};
