import { z } from 'zod';

/**
 * fio's JSON output (`--output-format=json`), the fields a disk verdict needs. fio 3.x reports
 * fdatasync latency under `jobs[].sync.lat_ns.percentile` and write IOPS under `jobs[].write.iops`.
 */
const fioSchema = z.object({
  jobs: z
    .array(
      z.object({
        write: z.object({ iops: z.number() }),
        sync: z.object({ lat_ns: z.object({ percentile: z.record(z.string(), z.number()).optional() }) }),
      }),
    )
    .min(1),
});

export interface FioResult {
  fdatasyncP99Ms: number;
  writeIops: number;
}

/** etcd FAQ / IBMFIO: the 99th percentile of fdatasync must stay under 10 ms. */
export const FSYNC_P99_GOOD_MS = 10;
/** OpenShift etcd-perf (PERFIMG): under 20 ms "the disk can be used to host etcd". */
export const FSYNC_P99_PERFIMG_MS = 20;
/** etcd hardware guide: 50 sequential IOPS is the minimum, 500 for heavily loaded clusters. */
export const IOPS_MIN = 50;
export const IOPS_RECOMMENDED = 500;

/** Finds the JSON object in a pod log (fio may print notes before it) and reads p99 and IOPS. */
export function parseFioOutput(log: string): { ok: true; result: FioResult } | { ok: false; error: string } {
  const start = log.indexOf('{');
  const end = log.lastIndexOf('}');
  if (start < 0 || end <= start) return { ok: false, error: 'fio printed no JSON' };
  let raw: unknown;
  try {
    raw = JSON.parse(log.slice(start, end + 1));
  } catch {
    return { ok: false, error: 'fio printed JSON that does not parse' };
  }
  const parsed = fioSchema.safeParse(raw);
  if (!parsed.success) return { ok: false, error: 'fio JSON without jobs[0].write.iops and sync latencies' };
  const job = parsed.data.jobs[0];
  const p99 = job?.sync.lat_ns.percentile?.['99.000000'];
  if (!job || p99 === undefined) return { ok: false, error: 'fio JSON has no fdatasync 99th percentile' };
  return { ok: true, result: { fdatasyncP99Ms: p99 / 1e6, writeIops: job.write.iops } };
}

/** The verdict lines, each against its source's threshold. */
export function fioVerdict(r: FioResult): { pass: boolean; lines: string[] } {
  const p99 = `${r.fdatasyncP99Ms.toFixed(r.fdatasyncP99Ms < 10 ? 2 : 1)} ms`;
  const lines = [
    r.fdatasyncP99Ms < FSYNC_P99_GOOD_MS
      ? `fdatasync p99 ${p99}: good (etcd FAQ: < ${FSYNC_P99_GOOD_MS} ms)`
      : `fdatasync p99 ${p99}: too slow (etcd FAQ: < ${FSYNC_P99_GOOD_MS} ms; OpenShift etcd-perf: < ${FSYNC_P99_PERFIMG_MS} ms${r.fdatasyncP99Ms < FSYNC_P99_PERFIMG_MS ? ', which it passes' : ', which it fails too'})`,
    `sequential write IOPS ${Math.round(r.writeIops)} (etcd hardware guide: at least ${IOPS_MIN}, ${IOPS_RECOMMENDED} for heavy load)`,
  ];
  return { pass: r.fdatasyncP99Ms < FSYNC_P99_GOOD_MS && r.writeIops >= IOPS_MIN, lines };
}
