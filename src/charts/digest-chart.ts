import { WAL_FSYNC_P99_LIMIT_S } from '../diagnosis/rules/slow-disk.js';
import type { HistorySample } from '../state/history-sample.js';
import type { DiagnosisReport } from '../contracts/report-json.js';
import type { ChartSeries, MemberChart } from './chart-data.js';

/** What the digest knows of one cluster it diagnosed: the report and its history samples, oldest first. */
export interface DigestCluster {
  cluster: string;
  report: DiagnosisReport;
  samples: readonly HistorySample[];
}

/** More panels than this make a picture nobody reads in Slack; the worst clusters come first. */
export const MAX_DIGEST_PANELS = 8;
const DAY_MS = 24 * 3600_000;

/**
 * A panel per cluster with a problem (status not healthy), worst first: each member's WAL fsync p99
 * in every diagnosis history kept (the digest reads 9 days), the root cause's members highlighted.
 * The fsync p99 is the one latency every sample stores; it is the trend the digest text gives too.
 */
export function digestPanels(clusters: readonly DigestCluster[]): MemberChart[] {
  return (
    clusters
      .filter((c) => c.report.status !== 'healthy')
      .map((c) => fsyncPanel(c))
      // A cluster that never answered /metrics (down since before the window) has nothing to draw.
      .filter((panel) => panel.series.some((s) => s.points.length > 0))
      .slice(0, MAX_DIGEST_PANELS)
  );
}

function fsyncPanel(c: DigestCluster): MemberChart {
  const names = [...new Set(c.samples.flatMap((s) => s.m.map((m) => m[0])))];
  const series: ChartSeries[] = names.map((name) => ({
    name,
    points: c.samples.flatMap((s) => {
      const value = s.m.find((m) => m[0] === name)?.[1];
      return value === null || value === undefined ? [] : [{ atMs: s.t, value }];
    }),
  }));
  const first = c.samples[0]?.t ?? 0;
  const last = c.samples.at(-1)?.t ?? 0;
  const days = Math.max(1, Math.round((last - first) / DAY_MS));
  return {
    cluster: c.cluster,
    metric: 'wal fsync p99',
    unit: 'ms',
    period: `over ${c.samples.length} diagnoses in ${days} day${days === 1 ? '' : 's'}`,
    series,
    // etcd FAQ: wal fsync p99 < 10 ms (slow-disk.ts).
    threshold: { value: WAL_FSYNC_P99_LIMIT_S * 1000, label: 'etcd FAQ: p99 < 10 ms' },
    highlight: c.report.findings[0]?.members ?? [],
  };
}
