import { histogramQuantile } from '../etcd/quantile.js';
import { COL, type MinuteSample, toHistogram } from './minute-sample.js';

/**
 * A cluster's day from the watch's minute history: what the digest reports instead of one 3-second
 * window. p99s come from the day's histogram (every check's window buckets added up), as
 * `histogram_quantile(0.99, sum(increase(..._bucket[1d])))` would give, not from a sample.
 */
export interface DayTrends {
  /** Checks the day held (the roll-ups' `n` added up). */
  checks: number;
  /** First and last check's period (epoch ms). */
  fromMs: number;
  toMs: number;
  /** The worst member's day p99, in ms; null when no member had observations in its buckets. */
  fsyncP99Ms: number | null;
  commitP99Ms: number | null;
  peerRttP99Ms: number | null;
  /** Leader elections seen during the day, summed over members (each check's window). */
  leaderChanges: number | null;
  /** The largest DB of the latest check, with its in-use size. */
  db: { sizeBytes: number; inUseBytes: number | null } | null;
}

/** Per member: bucket upper bound (ms; -1 for +Inf) -> count, added up over the day. */
type DayBuckets = Map<string, Map<number, number>>;

/** The member with the highest p99 of its own day buckets: a slow member is not averaged away. */
function worstP99Ms(perMember: DayBuckets): number | null {
  let worst: number | null = null;
  for (const counts of perMember.values()) {
    const pairs = [...counts].map(([le, c]): [number | null, number] => [le < 0 ? null : le, c]);
    if (!pairs.length) continue;
    const p99 = histogramQuantile(0.99, toHistogram(pairs));
    if (p99 !== undefined && (worst === null || p99 * 1000 > worst)) worst = Math.round(p99 * 100_000) / 100;
  }
  return worst;
}

const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/**
 * Adds [le, count] pairs as stored; anything not shaped like one is skipped. Indexed loops, no
 * destructuring: a digest folds 288 roll-ups × members × 3 histograms per cluster, and `for...of`
 * with `[le, c] = pair` allocated an iterator result per pair (about a GiB over 1,000 clusters).
 */
function addBuckets(into: DayBuckets, name: string, pairs: unknown): void {
  if (!Array.isArray(pairs) || pairs.length === 0) return;
  let counts = into.get(name);
  if (!counts) {
    counts = new Map();
    into.set(name, counts);
  }
  for (let i = 0; i < pairs.length; i++) {
    const pair: unknown = pairs[i];
    if (!Array.isArray(pair)) continue;
    const le: unknown = pair[0];
    const c: unknown = pair[1];
    if (!isNum(c) || (le !== null && !isNum(le))) continue;
    const key = le === null ? -1 : le;
    counts.set(key, (counts.get(key) ?? 0) + c);
  }
}

/**
 * Folds the day's roll-ups one at a time, keeping only the sums: a digest reads 288 roll-ups per
 * watched cluster, and a thousand clusters' worth of parsed samples would not fit a small pod.
 */
export function createDayAccumulator() {
  const fsync: DayBuckets = new Map();
  const commit: DayBuckets = new Map();
  const rtt: DayBuckets = new Map();
  let leaders: number | null = null;
  let checks = 0;
  let fromMs = Number.POSITIVE_INFINITY;
  let toMs = Number.NEGATIVE_INFINITY;
  let latest: { t: number; m: readonly unknown[] } | undefined;
  return {
    /** One sample or roll-up, as stored (validated loosely: a malformed column is skipped). */
    add(sample: Pick<MinuteSample, 't' | 'n'> & { m: readonly unknown[] }): void {
      if (!isNum(sample.t) || !Array.isArray(sample.m)) return;
      checks += isNum(sample.n) ? sample.n : 1;
      fromMs = Math.min(fromMs, sample.t);
      if (sample.t >= toMs) latest = sample;
      toMs = Math.max(toMs, sample.t);
      for (let i = 0; i < sample.m.length; i++) {
        const m: unknown = sample.m[i];
        if (!Array.isArray(m) || typeof m[COL.name] !== 'string') continue;
        const name = m[COL.name] as string;
        addBuckets(fsync, name, m[COL.fsyncBuckets]);
        addBuckets(commit, name, m[COL.commitBuckets]);
        addBuckets(rtt, name, m[COL.peerRttBuckets]);
        const changes = m[COL.leaderChanges];
        if (isNum(changes)) leaders = (leaders ?? 0) + changes;
      }
    },
    /**
     * The day so far. `last` is the day's latest 5-minute roll-up when the fold read hourly ones:
     * its period is the day's end and its DB size the latest (an hour's roll-up keeps the hour's largest).
     */
    result(last?: Pick<MinuteSample, 't'> & { m: readonly unknown[] }): DayTrends | undefined {
      if (!latest) return undefined;
      const end = last && isNum(last.t) && Array.isArray(last.m) && last.t >= toMs ? last : latest;
      return {
        checks,
        fromMs,
        toMs: end.t,
        fsyncP99Ms: worstP99Ms(fsync),
        commitP99Ms: worstP99Ms(commit),
        peerRttP99Ms: worstP99Ms(rtt),
        // Summed over members: each member counts the elections it saw (the digest's own counting).
        leaderChanges: leaders,
        db: largestDbOf(end.m),
      };
    },
  };
}

/** The day from 5-minute roll-ups (or full-resolution samples, n = 1 each); undefined without any. */
export function dayTrends(samples: readonly MinuteSample[]): DayTrends | undefined {
  const day = createDayAccumulator();
  for (const s of samples) day.add(s);
  return day.result();
}

/**
 * The day from roll-ups as Redis returns them (JSON text: the 5-minute roll-ups of the day's first,
 * partial hour, then hourly ones), parsed one at a time; bad entries skipped. `latestText` is the
 * day's last 5-minute roll-up (ignored when it is older than `sinceMs`).
 */
export function foldDayText(
  raw: readonly string[],
  latestText?: string,
  sinceMs = Number.NEGATIVE_INFINITY,
): DayTrends | undefined {
  const day = createDayAccumulator();
  for (const text of raw) {
    const sample = parseStored(text);
    if (sample) day.add(sample);
  }
  const last = latestText === undefined ? undefined : parseStored(latestText);
  return day.result(last && last.t >= sinceMs ? last : undefined);
}

function parseStored(text: string): MinuteSample | undefined {
  try {
    const sample: unknown = JSON.parse(text);
    return typeof sample === 'object' && sample !== null ? (sample as MinuteSample) : undefined;
  } catch {
    // A corrupt entry costs its period, not the day.
    return undefined;
  }
}

function largestDbOf(members: readonly unknown[]): DayTrends['db'] {
  let best: DayTrends['db'] = null;
  for (const m of members) {
    if (!Array.isArray(m)) continue;
    const size = m[COL.dbSizeBytes];
    const inUse = m[COL.dbInUseBytes];
    if (isNum(size) && (best === null || size > best.sizeBytes))
      best = { sizeBytes: size, inUseBytes: isNum(inUse) ? inUse : null };
  }
  return best;
}
