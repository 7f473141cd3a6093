import { describeError } from '../errors.js';
import type { Evidence } from '../probes/evidence.js';
import type { DiagnosisReport } from '../contracts/report-json.js';
import { createChartRenderer } from './chart-renderer.js';
import type { MinuteSample } from '../state/minute-sample.js';
import { diagnosisChart, windowChart } from './diagnosis-chart.js';

/**
 * `etcd-doctor diagnose <cluster> --chart FILE`: the chart Slack would get (over the last hour of
 * the watch's history when `samples` hold it), or, when no finding has
 * a metric to chart, the WAL fsync p99 per member (the one figure every etcd user checks first).
 * Resolves with the line to show the user; never throws (the diagnosis is the answer).
 */
export async function saveChart(
  path: string,
  report: DiagnosisReport,
  evidence: Evidence,
  writeFile: (path: string, bytes: Buffer) => Promise<void>,
  samples: readonly MinuteSample[] = [],
  now: number = Date.now(),
): Promise<string> {
  const chart = diagnosisChart(report, evidence, samples, now) ?? windowChart('slow-disk', [], evidence);
  try {
    const image = await createChartRenderer().member(chart);
    await writeFile(path, image.png);
    return `chart: wrote ${path} (${image.title}, ${image.widthPx}x${image.heightPx} PNG)`;
  } catch (err) {
    return `chart: could not write ${path}: ${describeError(err)}`;
  }
}
