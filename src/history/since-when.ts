import type { SinceWhenJson } from '../contracts/report-json.js';
import { CLOCK_DRIFT_LIMIT_MS } from '../diagnosis/rules/clock-skew.js';
import { STALLED_READ_MS } from '../diagnosis/rules/cpu-starvation.js';
import { PEER_RTT_P99_LIMIT_S } from '../diagnosis/rules/peer-network.js';
import { BACKEND_COMMIT_P99_LIMIT_S, WAL_FSYNC_P99_LIMIT_S } from '../diagnosis/rules/slow-disk.js';
import { formatBytes, formatMs } from '../format.js';
import { COL, type MinuteMember, type MinuteSample } from '../state/minute-sample.js';

type Unit = NonNullable<SinceWhenJson['before']>['unit'];

/**
 * The minute-history column that shows a cause, and the limit its rule uses (the rule's own
 * constant, src/diagnosis/rules). `limit` undefined: the rule's bound is not in the history (the
 * quota), so the head names the cause in words and the metric only gives the earlier range.
 */
export interface SinceWhenMetric {
  col: (typeof COL)[keyof typeof COL];
  /** `wal fsync p99`: how the text and the chart name it. */
  label: string;
  unit: Unit;
  limit?: number;
  /** `above 10 ms`: what the limit says of the metric, in the head of the text. */
  beyond?: string;
  /** `slow-disk`: when the latest reading does not cross the limit (the rule fired on something else). */
  words: string;
}

/** A metric in milliseconds with its rule's limit; the head says `above 10 ms` (or `beyond ±1 s`). */
function limitInMs(
  col: SinceWhenMetric['col'],
  label: string,
  limitMs: number,
  words: string,
  how: 'above ' | 'beyond ±' = 'above ',
): SinceWhenMetric {
  return { col, label, unit: 'ms', limit: limitMs, beyond: `${how}${formatMs(limitMs)}`, words };
}

// etcd FAQ: wal fsync p99 below 10 ms (rules/slow-disk.ts).
const WAL_FSYNC = limitInMs(COL.fsyncP99Ms, 'wal fsync p99', WAL_FSYNC_P99_LIMIT_S * 1000, 'slow disk');
// etcd FAQ: backend commit p99 below 25 ms (rules/slow-disk.ts).
const BACKEND_COMMIT = limitInMs(
  COL.commitP99Ms,
  'backend commit p99',
  BACKEND_COMMIT_P99_LIMIT_S * 1000,
  'slow disk',
);

/** Per cause; slow-disk is its fsync unless only commits were slow (as the rule reads it). */
const METRICS: Record<string, SinceWhenMetric | ((row: MinuteMember | undefined) => SinceWhenMetric)> = {
  'slow-disk': (row) => {
    const over = (m: SinceWhenMetric) => ((row?.[m.col] as number | null) ?? 0) > (m.limit ?? 0);
    return over(BACKEND_COMMIT) && !over(WAL_FSYNC) ? BACKEND_COMMIT : WAL_FSYNC;
  },
  // MIXIN etcdMemberCommunicationSlow: peer round trip p99 above 150 ms (rules/peer-network.ts).
  'peer-network': limitInMs(
    COL.peerRttP99Ms,
    'peer round trip p99',
    PEER_RTT_P99_LIMIT_S * 1000,
    'slow or failing peer links',
  ),
  // etcd warns above 1 s of clock difference (rules/clock-skew.ts); the history keeps the offset against ours.
  'clock-skew': limitInMs(COL.clockOffsetMs, 'clock offset', CLOCK_DRIFT_LIMIT_MS, 'clock skew', 'beyond ±'),
  // A linearizable read slower than 0.5 s corroborates a stall (rules/cpu-starvation.ts STALLED_READ_MS).
  'cpu-starvation': limitInMs(COL.tookMs, 'linearizable read', STALLED_READ_MS, 'CPU starvation'),
  // The quota is not in the history: the head says what the rule found, the range the db size.
  'db-quota': {
    col: COL.dbSizeBytes,
    label: 'db size',
    unit: 'bytes',
    words: 'a database near or at its quota',
  },
  // MIXIN etcdHighNumberOfLeaderChanges (rules/leader-churn.ts): counted, not bounded, per check.
  'leader-churn': { col: COL.leaderChanges, label: 'leader changes', unit: 'count', words: 'leader churn' },
};

/**
 * Causes the history dates by their findings alone (no column of theirs is kept), in the words the
 * head says: `heavy client reads on etcd-1 since 02:13 (12 min)` (issue 39).
 */
export const SINCE_WHEN_BY_FINDING: Readonly<Record<string, string>> = {
  'expensive-requests': 'heavy client reads',
  'request-too-large': 'writes refused for size',
  'slow-watchers': 'slow watchers',
  'defrag-in-progress': 'a defragmentation',
  'fd-exhaustion': 'file descriptors near the limit',
};

/** The metric that shows `cause` on `member` in the latest sample, if the history has one. */
export function sinceWhenMetric(
  cause: string,
  latest: MinuteMember | undefined,
): SinceWhenMetric | undefined {
  const m = METRICS[cause];
  return typeof m === 'function' ? m(latest) : m;
}

/** A history whose newest sample is older than this says nothing about now (the watch stopped). */
export const STALE_HISTORY_MS = 15 * 60_000;

function clock(ms: number): string {
  return new Date(ms).toISOString().slice(11, 16);
}

function minutes(ms: number): string {
  const m = Math.max(0, Math.round(ms / 60_000));
  return m < 60 ? `${m} min` : `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, '0')} min`;
}

function hasCause(sample: MinuteSample, cause: string, member: string | undefined): boolean {
  return sample.f.some(
    ([c, , members]) =>
      c === cause && (member === undefined || members.length === 0 || members.includes(member)),
  );
}

const rowOf = (s: MinuteSample | undefined, member: string) => s?.m.find((m) => m[COL.name] === member);

/** A member's reading, or for the cluster (no member) the largest of any member's. */
function readingOf(s: MinuteSample, member: string | undefined, col: number): number | undefined {
  const values = s.m
    .filter((m) => member === undefined || m[COL.name] === member)
    .map((m) => m[col])
    .filter((v): v is number => typeof v === 'number');
  if (values.length === 0) return undefined;
  return col === COL.clockOffsetMs
    ? values.reduce((a, b) => (Math.abs(b) > Math.abs(a) ? b : a))
    : Math.max(...values);
}

/**
 * "Since when", from the minute history (oldest first): when the current run of checks whose
 * findings name `cause` (on `member`) began, how long ago, and what the metric that shows it read
 * before: `etcd-2 wal fsync p99 above 10 ms since 02:13 (47 min; 14:00-02:12 it was 2-4 ms)`.
 * Undefined when the latest sample does not show the cause, or is stale (nothing to date: no
 * invented since-when).
 */
export function findSinceWhen(
  samples: readonly MinuteSample[],
  cause: string,
  member: string | undefined,
  now: number,
): SinceWhenJson | undefined {
  let start = samples.length;
  while (start > 0 && hasCause(samples[start - 1] as MinuteSample, cause, member)) start -= 1;
  const first = samples[start];
  const latest = samples.at(-1);
  if (first === undefined || latest === undefined || now - latest.t > STALE_HISTORY_MS) return undefined;
  const metric = sinceWhenMetric(cause, member ? rowOf(latest, member) : undefined);
  const before = metric ? range(samples.slice(0, start), member, metric.col) : undefined;
  const said = head(samples.slice(start), cause, member, metric);
  const was =
    before && metric
      ? `; ${clock(before.from)}-${clock(before.to)} ${wasWords(metric, before, said.named)}`
      : '';
  const text = `${said.text} since ${clock(first.t)} (${minutes(now - first.t)}${was})`;
  return {
    member: member ?? null,
    cause,
    startedAt: new Date(first.t).toISOString(),
    minutes: Math.max(0, Math.round((now - first.t) / 60_000)),
    metric: metric?.label ?? null,
    before:
      before && metric
        ? {
            from: new Date(before.from).toISOString(),
            to: new Date(before.to).toISOString(),
            min: before.min,
            max: before.max,
            unit: metric.unit,
          }
        : null,
    text,
  };
}

/**
 * When a cause told as the past (an info finding from since-start figures: `had a slow disk
 * earlier`) was last seen, from the minute history: the last run of checks whose reading of its
 * metric crossed the rule's limit, or that named it at warning or worse. `etcd-2 wal fsync p99 above
 * 10 ms last seen at 02:13 (47 min ago, for 6 min from 02:08)`. Undefined when the history never
 * saw it, has no metric with a limit for it, or is stale.
 */
export function findLastSeen(
  samples: readonly MinuteSample[],
  cause: string,
  member: string | undefined,
  now: number,
): SinceWhenJson | undefined {
  const latest = samples.at(-1);
  if (latest === undefined || now - latest.t > STALE_HISTORY_MS) return undefined;
  const seen = (s: MinuteSample) => {
    const metric = sinceWhenMetric(cause, member ? rowOf(s, member) : undefined);
    const v = metric ? readingOf(s, member, metric.col) : undefined;
    const over = metric?.limit !== undefined && v !== undefined && Math.abs(v) > metric.limit;
    return (
      over ||
      s.f.some(
        ([c, sev, ms]) =>
          c === cause && sev !== 'info' && (!member || ms.length === 0 || ms.includes(member)),
      )
    );
  };
  let end = samples.length - 1;
  while (end >= 0 && !seen(samples[end] as MinuteSample)) end -= 1;
  if (end < 0) return undefined;
  let start = end;
  while (start > 0 && seen(samples[start - 1] as MinuteSample)) start -= 1;
  const first = samples[start] as MinuteSample;
  const last = samples[end] as MinuteSample;
  const metric = sinceWhenMetric(cause, member ? rowOf(last, member) : undefined);
  const who = member ?? 'the cluster';
  const what = metric?.beyond ? `${who} ${metric.label} ${metric.beyond}` : `${cause} on ${who}`;
  const lasted = last.t > first.t ? `, for ${minutes(last.t - first.t)} from ${clock(first.t)}` : '';
  return {
    member: member ?? null,
    cause,
    startedAt: new Date(first.t).toISOString(),
    minutes: Math.max(0, Math.round((last.t - first.t) / 60_000)),
    metric: metric?.label ?? null,
    before: null,
    text: `${what} last seen at ${clock(last.t)} (${minutes(now - last.t)} ago${lasted})`,
    lastSeenAt: new Date(last.t).toISOString(),
  };
}

/** The text alone, for an incident's root message (src/watch/install.ts). */
export function sinceWhen(
  samples: readonly MinuteSample[],
  cause: string,
  member: string | undefined,
  now: number,
): string | undefined {
  return findSinceWhen(samples, cause, member, now)?.text;
}

/**
 * `etcd-2 wal fsync p99 above 10 ms` when the latest reading crosses the rule's limit (`named`: the
 * metric is in the head), the leader's changes counted over the run, else the cause in words
 * (`slow disk on etcd-2`).
 */
function head(
  run: readonly MinuteSample[],
  cause: string,
  member: string | undefined,
  metric: SinceWhenMetric | undefined,
): { text: string; named: boolean } {
  const who = member ?? 'the cluster';
  if (!metric) return { text: `${SINCE_WHEN_BY_FINDING[cause] ?? cause} on ${who}`, named: false };
  const latest = run.at(-1);
  const now = latest ? readingOf(latest, member, metric.col) : undefined;
  if (metric.limit !== undefined && metric.beyond && now !== undefined && Math.abs(now) > metric.limit)
    return { text: `${who} ${metric.label} ${metric.beyond}`, named: true };
  if (metric.unit === 'count') {
    const total = run.reduce((n, s) => n + (readingOf(s, member, metric.col) ?? 0), 0);
    const times = `${total} time${total === 1 ? '' : 's'}`;
    return {
      text: member ? `the leader changed ${times} as ${member} saw it` : `the leader changed ${times}`,
      named: true,
    };
  }
  return { text: `${metric.words} on ${who}`, named: false };
}

interface Range {
  from: number;
  to: number;
  min: number;
  max: number;
}

/** `it was 2-4 ms`, `its db size was 1.2 GB-1.9 GB`, `0-1 leader changes a check`, `it was -3 to +5 ms`. */
function wasWords(metric: SinceWhenMetric, r: Range, named: boolean): string {
  const value = (v: number) =>
    metric.unit === 'bytes' ? formatBytes(v) : metric.unit === 'count' ? String(v) : plainMs(v);
  // Always a range, even of one value (`1-1 ms`): the issue's format, which readers and tests match.
  const span = `${value(r.min)}-${value(r.max)}`;
  if (metric.unit === 'count') return `${span} ${metric.label} a check`;
  const subject = named ? 'it' : `its ${metric.label}`;
  if (metric.unit === 'bytes') return `${subject} was ${span}`;
  const signed = (v: number) => `${v > 0 ? '+' : ''}${plainMs(v)}`;
  return `${subject} was ${r.min < 0 ? `${signed(r.min)} to ${signed(r.max)}` : span} ms`;
}

function plainMs(v: number): string {
  return Math.abs(v) >= 1 ? String(Math.round(v)) : String(Number(v.toFixed(1)));
}

/** The metric's range over `samples` for one member (or the cluster), with the first and last time it was read. */
function range(samples: readonly MinuteSample[], member: string | undefined, col: number): Range | undefined {
  let out: Range | undefined;
  for (const s of samples) {
    const v = readingOf(s, member, col);
    if (v === undefined) continue;
    out = out
      ? { from: out.from, to: s.t, min: Math.min(out.min, v), max: Math.max(out.max, v) }
      : { from: s.t, to: s.t, min: v, max: v };
  }
  return out;
}
