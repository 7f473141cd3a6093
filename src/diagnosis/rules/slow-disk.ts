import { DEFAULT_MIN_FSYNC_SAMPLES } from '../../probes/etcd-metrics.js';
import { BACKEND_COMMIT_P99_LIMIT_S, WAL_FSYNC_P99_LIMIT_S } from '../../etcd/latency-limits.js';
import type { Evidence, LatencySummary, MemberEvidence, MetricsData } from '../../probes/evidence.js';
import type { Histogram } from '../../etcd/histogram.js';
import { formatList, formatMs, formatSecondsAsMs } from '../../format.js';
import type { Finding, Severity } from '../finding.js';
import type { Rule } from '../rule.js';
import { assessVantage } from '../vantage.js';
import { nodesOfMembers } from '../support/kubernetes.js';
import { nodePressureEvidence, slowDiskLogEvidence } from '../support/node-pressure.js';
import { failureOf } from '../support/members.js';
import { LATE_HEARTBEAT_RATE, tooManyEvents } from '../support/window-rate.js';

/** WEB faq.md: wal fsync p99 below 10 ms, backend commit p99 below 25 ms (probes/latency-limits.ts). */
export { BACKEND_COMMIT_P99_LIMIT_S, WAL_FSYNC_P99_LIMIT_S };
/**
 * Outlier guard (inference): etcd's buckets are powers of two, so a few slow fsyncs among
 * hundreds land the interpolated p99 in a high bucket. A disk that is really slow also has a
 * high mean (`_sum/_count`); a disk with outliers does not. The mean must exceed half the bound.
 * Measured here: 200 puts/s on a healthy shared VM disk gave fsync p99 15 ms, mean 1.5 ms, and
 * commit p99 55 ms, mean 5.8 ms; 20 ms of injected fdatasync delay gives a mean of about 20 ms.
 */
export const MEAN_GUARD_RATIO = 0.5;
/** MIXIN etcdHighFsyncDurations fires at p99 > 0.5 s: heartbeats (100 ms) are then 5× late. */
export const WAL_FSYNC_CRITICAL_S = 0.5;
/**
 * A mean fsync above the heartbeat interval (100 ms, WEB tuning.md) means every write delays a
 * heartbeat: critical even when too few fsyncs were seen for a p99 (inference).
 */
export const WAL_FSYNC_MEAN_CRITICAL_S = 0.1;
/** MIXIN etcdHighCommitDurations fires at p99 > 0.25 s. */
export const BACKEND_COMMIT_CRITICAL_S = 0.25;

interface DiskReading {
  member: MemberEvidence;
  fsync: LatencySummary;
  commit: LatencySummary;
  heartbeatFailures: number;
  /** Late heartbeats at a rate that means trouble (support/window-rate.ts), not one in a busy minute. */
  lateHeartbeats: boolean;
  slowApplies: number;
  /** Slow in the last window (the probe's few seconds, or the time since the watch's last check). */
  slow: boolean;
  /** Slow only in the since-start figures, with too few writes in the window to say about now. */
  slowBefore: boolean;
}

/**
 * F1 slow data disk (KB §1.1): WAL fsync and backend commit p99 per member, with heartbeat send
 * failures and slow applies as corroboration. One slow member points at that member's disk;
 * every member slow points at shared storage (or CPU, see cpu-starvation).
 */
export const slowDiskRule: Rule = {
  name: 'slow-disk',
  live: 'a /metrics window of wal fsync latency',
  cause: 'slow-disk',
  needs: ['metrics'],
  explains: ['leader-churn', 'slow-reads', 'control-plane-restarts', 'apiserver-latency', 'peer-network'],
  rank: 20,
  evaluate(evidence, ctx) {
    const readings = evidence.members.flatMap((member) => {
      if (!member.metrics.ok) return [];
      const m = member.metrics.data;
      const slowMean = slowWindowMean(m);
      const reading: DiskReading = {
        member,
        fsync: m.walFsync,
        commit: m.backendCommit,
        heartbeatFailures: m.deltas.heartbeatSendFailures,
        lateHeartbeats: tooManyEvents(m.deltas.heartbeatSendFailures, m.windowSeconds, LATE_HEARTBEAT_RATE),
        slowApplies: m.deltas.slowApply,
        slow: slowMean || slowIn('window', m.walFsync, m.backendCommit),
        slowBefore: !slowMean && slowBeforeNow(m.walFsync),
      };
      return [reading];
    });
    const explain = readings.map(
      (r) =>
        `${r.member.target.name}: wal fsync p99 ${formatSecondsAsMs(r.fsync.p99Seconds)} mean ${formatSecondsAsMs(r.fsync.meanSeconds)} (${r.fsync.count} ${r.fsync.source}), commit p99 ${formatSecondsAsMs(r.commit.p99Seconds)} vs limits ${formatSecondsAsMs(WAL_FSYNC_P99_LIMIT_S)} / ${formatSecondsAsMs(BACKEND_COMMIT_P99_LIMIT_S)} with mean guard ${MEAN_GUARD_RATIO} × limit -> ${r.slow ? 'slow' : r.slowBefore ? 'slow before, not measurable now (too few writes in the window): info' : 'ok'}`,
    );
    const slow = outliers(readings.filter((r) => r.slow));
    if (slow.length === 0) {
      const before = readings.filter((r) => r.slowBefore);
      return before.length === 0
        ? { explain }
        : { finding: withKubernetes(pastFinding(before), evidence), explain };
    }
    const finding = withKubernetes(buildFinding(slow, readings, evidence.members), evidence);
    // cpu-starvation, which would explain slow fsync timings, stood down for etcd-doctor's own load.
    if ((ctx.vantage ?? assessVantage(evidence)).observer.distortion)
      finding.unknowns.push(
        'cpu-starvation was not evaluated (etcd-doctor was too busy to time round trips): a member starved of CPU also shows slow fsync timings',
      );
    return { finding, explain };
  },
};

/**
 * When one member is far slower than the rest (its fsync mean OUTLIER_RATIO× the next), it is the
 * one to name, even if a busy shared disk puts the others just over the FAQ figure too.
 */
export const OUTLIER_RATIO = 5;

function outliers(slow: DiskReading[]): DiskReading[] {
  const sorted = [...slow].sort((a, b) => (b.fsync.meanSeconds ?? 0) - (a.fsync.meanSeconds ?? 0));
  const [first, second] = sorted;
  if (first && second && (first.fsync.meanSeconds ?? 0) >= OUTLIER_RATIO * (second.fsync.meanSeconds ?? 0))
    return [first];
  return sorted;
}

/**
 * Below 20 fsyncs the p99 is withheld (a handful of samples says little about a tail), but a mean
 * above the p99 bound over at least MIN_MEAN_SAMPLES fsyncs still means most of them were slow.
 * Measured: +300 ms of fdatasync left a member at 19 fsyncs with a mean of 177 ms.
 */
export const MIN_MEAN_SAMPLES = 5;

export function isSlow(summary: LatencySummary, limitSeconds: number): boolean {
  const { p99Seconds: p99, meanSeconds: mean, count } = summary;
  if (mean === undefined || count === 0) return false;
  if (p99 === undefined) return count >= MIN_MEAN_SAMPLES && mean > limitSeconds;
  return p99 > limitSeconds && mean > limitSeconds * MEAN_GUARD_RATIO;
}

/**
 * A window too thin for a p99 but holding MIN_MEAN_SAMPLES fsyncs (or commits) whose mean is over
 * the bound is slow now: +300 ms per fdatasync leaves only ~15 fsyncs in a 4.5 s write burst.
 */
function slowWindowMean(m: MetricsData): boolean {
  const over = (h: Histogram | undefined, limit: number) =>
    h !== undefined && h.count >= MIN_MEAN_SAMPLES && h.sum / h.count > limit;
  return (
    over(m.walFsyncWindow, WAL_FSYNC_P99_LIMIT_S) || over(m.backendCommitWindow, BACKEND_COMMIT_P99_LIMIT_S)
  );
}

/**
 * Slow in the past (the since-start histogram) takes the WAL's fsyncs: a disk that was slow shows
 * there first. A slow backend commit since start beside fast fsyncs is big transactions (large
 * values, a compaction or defragmentation rewriting pages), not the disk: filling a 16 MB quota
 * with 100 KB values gave commit p99s of 61-109 ms on tmpfs, with fsync p99 at 1 ms (issue 42).
 */
function slowBeforeNow(fsync: LatencySummary): boolean {
  return fsync.source === 'since-start' && isSlow(fsync, WAL_FSYNC_P99_LIMIT_S);
}

/** Slow by figures of this source: the window's (now) or the since-start histogram's (the past). */
function slowIn(source: LatencySummary['source'], fsync: LatencySummary, commit: LatencySummary): boolean {
  return (
    (fsync.source === source && isSlow(fsync, WAL_FSYNC_P99_LIMIT_S)) ||
    (commit.source === source && isSlow(commit, BACKEND_COMMIT_P99_LIMIT_S))
  );
}

/** The figure that makes the reading slow, fsync first: `wal fsync p99 241 ms against the 10 ms etcd recommends`. */
function slowFigure(r: DiskReading): string {
  const [what, s, limit] = isSlow(r.fsync, WAL_FSYNC_P99_LIMIT_S)
    ? (['wal fsync', r.fsync, WAL_FSYNC_P99_LIMIT_S] as const)
    : (['backend commit', r.commit, BACKEND_COMMIT_P99_LIMIT_S] as const);
  const figure =
    s.p99Seconds === undefined
      ? `mean ${formatSecondsAsMs(s.meanSeconds)}`
      : `p99 ${formatSecondsAsMs(s.p99Seconds)}`;
  return `${what} ${figure} against the ${formatSecondsAsMs(limit)} etcd recommends`;
}

/**
 * Slow only since the member started: the window held too few writes to say whether the disk is
 * slow now (the probe widened it up to 10 s first, probes/metrics.ts). Told as the past, at `info`,
 * so a disk fixed a minute ago is not called critical; it explains nothing live.
 */
function pastFinding(before: DiskReading[]): Finding {
  const names = before.map((r) => r.member.target.name);
  const first = before[0];
  return {
    cause: 'slow-disk',
    severity: 'info',
    members: names,
    nodes: [],
    summary: `${formatList(names)} had a slow disk earlier (${first ? slowFigure(first) : ''}, since ${names.length === 1 ? 'it' : 'they'} started); too few writes now to tell whether ${names.length === 1 ? 'it still is' : 'they still are'}`,
    evidence: before.flatMap(describeReading),
    steps: [
      {
        text: 'Run the diagnosis again while the cluster takes writes, to see whether the disk is slow now',
        action: 'rerun',
      },
      ...benchmarkSteps(before),
    ],
    unknowns: [],
  };
}

function benchmarkSteps(readings: DiskReading[]) {
  return readings.map((r) => ({
    text: `Benchmark the disk under ${r.member.target.name} with fio (fdatasync p99 must be < 10 ms; etcd FAQ, IBM fio guide)`,
    action: 'disk-benchmark' as const,
    args: { member: r.member.target.name },
  }));
}

function severityOf(slow: DiskReading[]): Severity {
  const critical = slow.some(
    (r) =>
      (r.fsync.p99Seconds ?? 0) > WAL_FSYNC_CRITICAL_S ||
      (r.fsync.meanSeconds ?? 0) > WAL_FSYNC_MEAN_CRITICAL_S ||
      (r.commit.p99Seconds ?? 0) > BACKEND_COMMIT_CRITICAL_S ||
      r.lateHeartbeats,
  );
  return critical ? 'critical' : 'warning';
}

/**
 * With Kubernetes evidence: the nodes under the slow members, DiskPressure on them, and the etcd
 * log lines (`took too long`, `slow fdatasync`, late heartbeats) that corroborate the metrics.
 */
function withKubernetes(finding: Finding, evidence: Evidence): Finding {
  const nodes = nodesOfMembers(evidence, finding.members);
  const extra = [
    ...nodePressureEvidence(evidence, ['DiskPressure'], finding.members),
    ...slowDiskLogEvidence(evidence, finding.members),
  ];
  return { ...finding, nodes, evidence: [...finding.evidence, ...extra] };
}

function buildFinding(slow: DiskReading[], all: DiskReading[], members: MemberEvidence[]): Finding {
  const names = slow.map((r) => r.member.target.name);
  const shared = slow.length > 1 && slow.length === all.length;
  const fast = all.filter((r) => !r.slow);
  const missing = members.filter((m) => !m.metrics.ok);
  const summary = shared
    ? `Every member's disk is slow (${formatList(names)}): suspect shared storage or an overloaded host`
    : `${formatList(names)} ${names.length === 1 ? 'has a slow disk' : 'have slow disks'}: ${slow[0] ? slowFigure(slow[0]) : ''}`;
  return {
    cause: 'slow-disk',
    severity: severityOf(slow),
    members: names,
    nodes: [],
    summary,
    evidence: [
      ...slow.flatMap(describeReading),
      ...(fast.length > 0
        ? [
            `for comparison: ${fast.map((r) => `${r.member.target.name} wal fsync p99 ${formatSecondsAsMs(r.fsync.p99Seconds)}`).join(', ')}`,
          ]
        : []),
    ],
    steps: [
      ...benchmarkSteps(slow),
      {
        text: `Move ${formatList(names)} to a dedicated SSD or NVMe disk and remove I/O contention from that node (etcd FAQ, hardware guide)`,
      },
      {
        text: 'Raise etcd\'s I/O priority meanwhile: sudo ionice -c2 -n0 -p $(pgrep etcd) (etcd tuning guide, "Disk")',
      },
      {
        text: 'If latency cannot be fixed: raise --heartbeat-interval and --election-timeout, the same on every member (etcd tuning guide). Never move the data dir to tmpfs: it loses data on power-off',
      },
    ],
    unknowns: missing.map((m) => `no /metrics from ${m.target.name}: ${failureOf(m.metrics)}`),
  };
}

function describeReading(r: DiskReading): string[] {
  const name = r.member.target.name;
  const windowSeconds = r.member.metrics.ok ? r.member.metrics.data.windowSeconds : 0;
  const lines = [
    `${name}: ${latencyWords('wal fsync', 'fsync', r.fsync, windowSeconds, '< 10 ms')}`,
    `${name}: ${latencyWords('backend commit', 'commit', r.commit, windowSeconds, '< 25 ms')}`,
  ];
  if (r.heartbeatFailures > 0)
    lines.push(
      `${name}: ${r.heartbeatFailures} heartbeat send failures in the window (leader overloaded, likely from slow disk)`,
    );
  if (r.slowApplies > 0) lines.push(`${name}: ${r.slowApplies} applies over 100 ms in the window`);
  const health = r.member.health;
  if (health.ok) lines.push(`${name}: linearizable read took ${formatMs(health.data.tookMs)}`);
  return lines;
}

/**
 * `wal fsync p99 212 ms, mean 201 ms (200 fsyncs in 3 s; etcd FAQ: < 10 ms)`, or, when the window
 * was too thin for a p99 of its own, what was used instead and why, in one parenthesis. The window is
 * the probe's few seconds between two scrapes, not the time since the last run: a database that
 * grew between runs can still have had only a handful of writes in it.
 */
function latencyWords(
  what: string,
  noun: string,
  s: LatencySummary,
  windowSeconds: number,
  faq: string,
): string {
  const mean = formatSecondsAsMs(s.meanSeconds);
  const value =
    s.p99Seconds === undefined
      ? `${what} mean ${mean}, no p99 from fewer than ${DEFAULT_MIN_FSYNC_SAMPLES} ${noun}s`
      : `${what} p99 ${formatSecondsAsMs(s.p99Seconds)}, mean ${mean}`;
  return `${value} (${samplesWords(noun, s, windowSeconds)}; etcd FAQ: ${faq})`;
}

function samplesWords(noun: string, s: LatencySummary, windowSeconds: number): string {
  const count = plural(s.count, noun);
  // Two scrapes 3 s apart are 3.05 s apart once their own round trips count: a tenth is enough.
  const seconds = (n: number) => `${Math.round(n * 10) / 10} s`;
  if (s.source === 'window') return `${count} in ${seconds(s.windowSeconds ?? windowSeconds)}`;
  const since = `${count} since the member started`;
  if (s.windowCount !== undefined)
    return `${since}, as the ${seconds(windowSeconds)} window held ${s.windowCount === 0 ? 'none' : `only ${s.windowCount}`}`;
  return windowSeconds > 0
    ? `${since}, as it restarted between the two scrapes`
    : `${since}, from one scrape`;
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
