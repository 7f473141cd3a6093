import { COL, type MinuteSample } from './minute-sample.js';

/** The metric that shows a cause, with the limit its rule uses (src/diagnosis/rules). */
const METRIC_OF: Record<string, { col: 1 | 2 | 3; label: string; limitMs: number }> = {
  // etcd FAQ: wal fsync p99 below 10 ms (rules/slow-disk.ts).
  'slow-disk': { col: COL.fsyncP99Ms, label: 'wal fsync p99', limitMs: 10 },
};

function clock(ms: number): string {
  return new Date(ms).toISOString().slice(11, 16);
}

function minutes(ms: number): string {
  const m = Math.max(0, Math.round(ms / 60_000));
  return m < 60 ? `${m} min` : `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, '0')} min`;
}

function formatMs(v: number): string {
  return v >= 1 ? String(Math.round(v)) : v.toFixed(1);
}

function hasCause(sample: MinuteSample, cause: string, member: string | undefined): boolean {
  return sample.f.some(([c, , members]) => c === cause && (member === undefined || members.includes(member)));
}

/**
 * "Since when", from the minute history (oldest first): when the current run of checks that found
 * `cause` (on `member`) began, how long ago, and what the metric that shows it read before:
 * `etcd-2 wal fsync p99 above 10 ms since 02:13 (47 min; 14:00-02:12 it was 2-4 ms)`.
 * Undefined when the latest sample does not show the cause (nothing to date).
 */
export function sinceWhen(
  samples: MinuteSample[],
  cause: string,
  member: string | undefined,
  now: number,
): string | undefined {
  let start = samples.length;
  while (start > 0 && hasCause(samples[start - 1] as MinuteSample, cause, member)) start -= 1;
  const first = samples[start];
  if (first === undefined) return undefined;
  const metric = METRIC_OF[cause];
  const who = member ?? 'the cluster';
  const head = metric ? `${who} ${metric.label} above ${metric.limitMs} ms` : `${cause} on ${who}`;
  const before = metric && member ? range(samples.slice(0, start), member, metric.col) : undefined;
  const was = before
    ? `; ${clock(before.from)}-${clock(before.to)} it was ${formatMs(before.min)}-${formatMs(before.max)} ms`
    : '';
  return `${head} since ${clock(first.t)} (${minutes(now - first.t)}${was})`;
}

/** The metric's range over `samples` for one member, with the first and last time it was read. */
function range(samples: MinuteSample[], member: string, col: 1 | 2 | 3) {
  let out: { from: number; to: number; min: number; max: number } | undefined;
  for (const s of samples) {
    const v = s.m.find((m) => m[COL.name] === member)?.[col];
    if (v === null || v === undefined) continue;
    out = out
      ? { from: out.from, to: s.t, min: Math.min(out.min, v), max: Math.max(out.max, v) }
      : { from: s.t, to: s.t, min: v, max: v };
  }
  return out;
}
