import { z } from 'zod';
import type { DiagnosisReport } from '../contracts/report-json.js';
import type { Evidence } from '../probes/evidence.js';
import type { Histogram } from '../etcd/quantile.js';

/**
 * One watch check, kept compact: the minute history holds a day of these at full resolution and
 * two weeks of 5-minute roll-ups (src/state/minute-history.ts). Short keys and positional tuples
 * on purpose, as in history-sample.ts. Times in ms rounded to 0.01; `null` means not measured.
 */
const num = z.number().nullable();

/** Non-cumulative wal fsync bucket counts of the check's window: [upper bound ms (null = +Inf), count], zeros left out. */
const buckets = z.array(z.tuple([z.number().nullable(), z.number().int().nonnegative()]));

/** The member's raft position as its Status gave it: [revision, raft term, raft index]. */
const raftPosition = z.tuple([z.number(), z.number(), z.number()]).nullable();

/**
 * [name, walFsyncP99Ms, backendCommitP99Ms, peerRttP99Ms, leaderChanges (in the window),
 *  dbSizeBytes, dbSizeInUseBytes, tookMs, clockOffsetMs, walFsyncBuckets, backendCommitBuckets,
 *  peerRttBuckets, raftPosition]. The last three came later (the digest's day p99s; the recovery
 * plan's last known state of a member that went down): samples stored before them have ten or
 * twelve columns and still parse.
 */
export const minuteMemberSchema = z.tuple([
  z.string(),
  num,
  num,
  num,
  num,
  num,
  num,
  num,
  num,
  buckets,
  buckets.optional(),
  buckets.optional(),
  raftPosition.optional(),
]);

export const minuteSampleSchema = z.strictObject({
  v: z.literal(1),
  /** Epoch ms when the check started (for a roll-up: the start of its 5 minutes). */
  t: z.number().int().nonnegative(),
  s: z.enum(['healthy', 'degraded', 'critical', 'unknown']),
  m: z.array(minuteMemberSchema),
  /** Findings: [cause, severity, members], the root cause first. */
  f: z.array(z.tuple([z.string(), z.enum(['critical', 'warning', 'info']), z.array(z.string())])),
  /** Roll-ups only: how many checks its period (5 minutes or an hour) held. */
  n: z.number().int().positive().optional(),
});

export type MinuteSample = z.infer<typeof minuteSampleSchema>;
export type MinuteMember = z.infer<typeof minuteMemberSchema>;

/** Column indexes of a MinuteMember, for readers. */
export const COL = {
  name: 0,
  fsyncP99Ms: 1,
  commitP99Ms: 2,
  peerRttP99Ms: 3,
  leaderChanges: 4,
  dbSizeBytes: 5,
  dbInUseBytes: 6,
  tookMs: 7,
  clockOffsetMs: 8,
  fsyncBuckets: 9,
  commitBuckets: 10,
  peerRttBuckets: 11,
  raftPosition: 12,
} as const;

const ms = (v: number | null | undefined): number | null =>
  v === null || v === undefined || !Number.isFinite(v) ? null : Math.round(v * 100) / 100;

/** The sample for one finished check. `evidence` gives peer RTT, leader changes and fsync buckets. */
export function summarizeCheck(report: DiagnosisReport, evidence: Evidence | undefined): MinuteSample {
  const byName = new Map((evidence?.members ?? []).map((m) => [m.target.name, m]));
  return {
    v: 1,
    t: Date.parse(report.collectedAt),
    s: report.status,
    m: report.members.map((row): MinuteMember => {
      const probed = byName.get(row.name);
      const metrics = probed?.metrics;
      const status = probed?.status.ok ? probed.status.data : undefined;
      const data = metrics?.ok ? metrics.data : undefined;
      const rtt = (data?.peers ?? []).flatMap((p) =>
        p.rttP99Seconds === undefined ? [] : [p.rttP99Seconds],
      );
      return [
        row.name,
        row.walFsyncP99Ms,
        row.backendCommitP99Ms,
        rtt.length ? ms(Math.max(...rtt) * 1000) : null,
        data && data.windowSeconds > 0 ? data.deltas.leaderChanges : null,
        row.dbSizeBytes,
        row.dbSizeInUseBytes,
        ms(row.tookMs),
        row.clockOffsetMs,
        data?.walFsyncWindow ? bucketCounts(data.walFsyncWindow) : [],
        data?.backendCommitWindow ? bucketCounts(data.backendCommitWindow) : [],
        data?.peerRttWindow ? bucketCounts(data.peerRttWindow) : [],
        status ? [status.revision, status.raftTerm, status.raftIndex] : null,
      ];
    }),
    // A known bug of the release (diagnosis LATENT_CAUSES) holds as long as the release runs: a
    // risk, not a reading, so the minute history (since when, trends) does not keep it.
    f: report.findings.filter((f) => f.cause !== 'known-bug').map((f) => [f.cause, f.severity, f.members]),
  };
}

/** A cumulative Prometheus histogram as the sample's non-cumulative [le ms, count] pairs. */
export function bucketCounts(h: Histogram): Array<[number | null, number]> {
  const out: Array<[number | null, number]> = [];
  let below = 0;
  for (const b of [...h.buckets].sort((x, y) => x.le - y.le)) {
    const count = Math.max(0, Math.round(b.count - below));
    below = Math.max(below, b.count);
    if (count > 0) out.push([Number.isFinite(b.le) ? ms(b.le * 1000) : null, count]);
  }
  return out;
}

/** Back to a cumulative histogram (seconds), for histogramQuantile. */
export function toHistogram(pairs: Array<[number | null, number]>): Histogram {
  const sorted = [...pairs].sort(
    (a, b) => (a[0] ?? Number.POSITIVE_INFINITY) - (b[0] ?? Number.POSITIVE_INFINITY),
  );
  let count = 0;
  const buckets = sorted.map(([le, c]) => {
    count += c;
    return { le: le === null ? Number.POSITIVE_INFINITY : le / 1000, count };
  });
  if (buckets.at(-1)?.le !== Number.POSITIVE_INFINITY) buckets.push({ le: Number.POSITIVE_INFINITY, count });
  return { buckets, sum: 0, count };
}

/** Adds bucket counts of two samples (same bounds add up). */
export function mergeBuckets(
  a: Array<[number | null, number]>,
  b: Array<[number | null, number]>,
): Array<[number | null, number]> {
  const sums = new Map<number | null, number>();
  for (const [le, c] of [...a, ...b]) sums.set(le, (sums.get(le) ?? 0) + c);
  return [...sums.entries()].sort(
    (x, y) => (x[0] ?? Number.POSITIVE_INFINITY) - (y[0] ?? Number.POSITIVE_INFINITY),
  );
}

/** The stored severities, worst first (the order of diagnosis/finding.ts SEVERITY_ORDER): a store folds them without the rule engine. */
const SEVERITY_ORDER: Record<MinuteSample['f'][number][1], number> = { critical: 0, warning: 1, info: 2 };

const STATUS_ORDER: Record<MinuteSample['s'], number> = { critical: 0, degraded: 1, unknown: 2, healthy: 3 };

/**
 * Folds one check (or a shorter roll-up: an hour is folded from its 5-minute ones) into a
 * roll-up (or starts one): latencies, took and DB size keep the
 * worst of the period, the in-use size the latest, leader changes and fsync buckets add up, the
 * clock offset keeps the largest in magnitude, findings the worst severity and every member named.
 */
export function rollUp(
  rollup: MinuteSample | undefined,
  sample: MinuteSample,
  periodStart: number,
): MinuteSample {
  if (!rollup) return { ...sample, t: periodStart, n: sample.n ?? 1 };
  const members = new Map(rollup.m.map((m) => [m[0], m]));
  for (const m of sample.m) {
    const old = members.get(m[0]);
    members.set(m[0], old ? mergeMember(old, m) : m);
  }
  return {
    v: 1,
    t: periodStart,
    s: STATUS_ORDER[sample.s] < STATUS_ORDER[rollup.s] ? sample.s : rollup.s,
    m: [...members.values()],
    f: mergeFindings(rollup.f, sample.f),
    n: (rollup.n ?? 1) + (sample.n ?? 1),
  };
}

function mergeMember(a: MinuteMember, b: MinuteMember): MinuteMember {
  const max = (x: number | null, y: number | null) => (x === null ? y : y === null ? x : Math.max(x, y));
  const sum = (x: number | null, y: number | null) => (x === null ? y : y === null ? x : x + y);
  const wider = (x: number | null, y: number | null) =>
    x === null ? y : y === null ? x : Math.abs(y) > Math.abs(x) ? y : x;
  return [
    a[0],
    max(a[1], b[1]),
    max(a[2], b[2]),
    max(a[3], b[3]),
    sum(a[4], b[4]),
    max(a[5], b[5]),
    b[6] ?? a[6],
    max(a[7], b[7]),
    wider(a[8], b[8]),
    mergeBuckets(a[9], b[9]),
    mergeBuckets(a[10] ?? [], b[10] ?? []),
    mergeBuckets(a[11] ?? [], b[11] ?? []),
    // The period's last raft position seen (a member that went down keeps its last one).
    b[12] ?? a[12] ?? null,
  ];
}

function mergeFindings(a: MinuteSample['f'], b: MinuteSample['f']): MinuteSample['f'] {
  const out = new Map<string, MinuteSample['f'][number]>();
  for (const [cause, severity, members] of [...a, ...b]) {
    const old = out.get(cause);
    if (!old) {
      out.set(cause, [cause, severity, [...members]]);
      continue;
    }
    const worse = SEVERITY_ORDER[severity] < SEVERITY_ORDER[old[1]] ? severity : old[1];
    out.set(cause, [cause, worse, [...new Set([...old[2], ...members])].sort()]);
  }
  return [...out.values()];
}
