import { histogramQuantile } from '../probes/histogram.js';
import { COL, type MinuteSample, mergeBuckets, toHistogram } from './minute-sample.js';

type Buckets = Array<[number | null, number]>;

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

/** The member with the highest p99 of its own day buckets: a slow member is not averaged away. */
function worstP99Ms(perMember: Map<string, Buckets>): number | null {
  let worst: number | null = null;
  for (const pairs of perMember.values()) {
    if (!pairs.length) continue;
    const p99 = histogramQuantile(0.99, toHistogram(pairs));
    if (p99 !== undefined && (worst === null || p99 * 1000 > worst)) worst = Math.round(p99 * 100_000) / 100;
  }
  return worst;
}

function addBuckets(into: Map<string, Buckets>, name: string, pairs: Buckets | undefined): void {
  if (!pairs?.length) return;
  into.set(name, mergeBuckets(into.get(name) ?? [], pairs));
}

/**
 * The day from 5-minute roll-ups (or full-resolution samples, n = 1 each), oldest first. Undefined
 * without any: the digest then measures the cluster as it always did.
 */
export function dayTrends(samples: readonly MinuteSample[]): DayTrends | undefined {
  const first = samples[0];
  const last = samples.at(-1);
  if (!first || !last) return undefined;
  const fsync = new Map<string, Buckets>();
  const commit = new Map<string, Buckets>();
  const rtt = new Map<string, Buckets>();
  let leaders: number | null = null;
  let checks = 0;
  for (const s of samples) {
    checks += s.n ?? 1;
    for (const m of s.m) {
      const name = m[COL.name];
      addBuckets(fsync, name, m[COL.fsyncBuckets]);
      addBuckets(commit, name, m[COL.commitBuckets]);
      addBuckets(rtt, name, m[COL.peerRttBuckets]);
      const changes = m[COL.leaderChanges];
      if (changes !== null) leaders = (leaders ?? 0) + changes;
    }
  }
  return {
    checks,
    fromMs: first.t,
    toMs: last.t,
    fsyncP99Ms: worstP99Ms(fsync),
    commitP99Ms: worstP99Ms(commit),
    peerRttP99Ms: worstP99Ms(rtt),
    // Summed over members: each member counts the elections it saw (the digest's own counting).
    leaderChanges: leaders,
    db: largestDbOf(last),
  };
}

function largestDbOf(sample: MinuteSample): DayTrends['db'] {
  let best: DayTrends['db'] = null;
  for (const m of sample.m) {
    const size = m[COL.dbSizeBytes];
    if (size !== null && (best === null || size > best.sizeBytes))
      best = { sizeBytes: size, inUseBytes: m[COL.dbInUseBytes] };
  }
  return best;
}
