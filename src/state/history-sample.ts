import { z } from 'zod';

/**
 * One diagnosis, kept compact for the daily digest's trends (about 300-400 bytes as stored for a
 * 3-member cluster with one finding). Short keys on purpose: thirty days of these live in Redis.
 * Numbers are rounded to 0.01 ms / whole bytes; `null` means the probe did not answer.
 */
const num = z.number().nullable();

export const historySampleSchema = z.strictObject({
  v: z.literal(1),
  /** Epoch ms when the diagnosis started collecting. */
  t: z.number().int().nonnegative(),
  /** Status: healthy | degraded | critical | unknown. */
  s: z.enum(['healthy', 'degraded', 'critical', 'unknown']),
  /** Members: [name, walFsyncP99Ms, backendCommitP99Ms, tookMs, dbSizeBytes, dbSizeInUseBytes, leaderChangesTotal]. */
  m: z.array(z.tuple([z.string(), num, num, num, num, num, num])),
  /** Restart counts per control-plane component (sum over its pods), when Kubernetes was probed. */
  r: z.record(z.string(), z.number().int().nonnegative()),
  /** Findings: [cause, severity, members]. The first is the root cause. */
  f: z.array(z.tuple([z.string(), z.enum(['critical', 'warning', 'info']), z.array(z.string())])),
  /**
   * The day of the watch's minute history the digest read for this cluster, when it is watched:
   * [worst member's day fsync p99 ms, leader changes of the day, checks]. Tomorrow's trend then
   * compares a day with a day, not a day with one 3-second window (history/trends.ts).
   */
  d: z.tuple([num, num, z.number().int().nonnegative()]).optional(),
});

export type HistorySample = z.infer<typeof historySampleSchema>;

/** What of a day of minute history a sample keeps (state/day-trends.ts DayTrends). */
export interface DayOfChecks {
  fsyncP99Ms: number | null;
  leaderChanges: number | null;
  checks: number;
}

/** The worst (largest) fsync p99 of any member, in ms. */
export function worstFsyncMs(sample: HistorySample): number | null {
  return maxOf(sample.m.map((m) => m[1]));
}

export function worstTookMs(sample: HistorySample): number | null {
  return maxOf(sample.m.map((m) => m[3]));
}

/** The largest DB of any member, with its in-use size. */
export function largestDb(sample: HistorySample): { sizeBytes: number; inUseBytes: number | null } | null {
  let best: { sizeBytes: number; inUseBytes: number | null } | null = null;
  for (const m of sample.m) {
    if (m[4] !== null && (best === null || m[4] > best.sizeBytes))
      best = { sizeBytes: m[4], inUseBytes: m[5] };
  }
  return best;
}

function maxOf(values: Array<number | null>): number | null {
  const known = values.filter((v): v is number => v !== null);
  return known.length ? Math.max(...known) : null;
}
