import type { DiagnosisReport } from '../contracts/report-json.js';
import type { Evidence } from '../probes/evidence.js';
import { CONTROL_PLANE_COMPONENTS } from '../probes/kubernetes/evidence.js';
import type { DayOfChecks, HistorySample } from '../state/history-sample.js';

/**
 * The sample for one finished diagnosis. `evidence` adds leader-change counters and pod restarts;
 * `day`, the day of watch checks a digest read for the cluster.
 */
export function summarizeDiagnosis(
  report: DiagnosisReport,
  evidence: Evidence | undefined,
  day?: DayOfChecks,
): HistorySample {
  const leaderChanges = new Map<string, number>();
  for (const m of evidence?.members ?? []) {
    if (m.metrics.ok) leaderChanges.set(m.target.name, m.metrics.data.totals.leaderChanges);
  }
  return {
    v: 1,
    t: Date.parse(report.collectedAt),
    s: report.status,
    m: report.members.map((m) => [
      m.name,
      m.walFsyncP99Ms,
      m.backendCommitP99Ms,
      m.tookMs === null ? null : Math.round(m.tookMs * 100) / 100,
      m.dbSizeBytes,
      m.dbSizeInUseBytes,
      leaderChanges.get(m.name) ?? null,
    ]),
    r: restartsByComponent(evidence),
    f: report.findings.map((f) => [f.cause, f.severity, f.members]),
    ...(day
      ? { d: [day.fsyncP99Ms, day.leaderChanges, day.checks] as [number | null, number | null, number] }
      : {}),
  };
}

function restartsByComponent(evidence: Evidence | undefined): Record<string, number> {
  const k8s = evidence?.kubernetes;
  if (!k8s?.ok || !k8s.data.pods.ok) return {};
  const out: Record<string, number> = {};
  for (const component of CONTROL_PLANE_COMPONENTS) out[component] = 0;
  for (const pod of k8s.data.pods.data) {
    out[pod.component] = (out[pod.component] ?? 0) + (pod.main?.restartCount ?? 0);
  }
  return out;
}
