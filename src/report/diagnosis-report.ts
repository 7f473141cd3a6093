import type { DiagnosisReport, FindingJson, MemberRow, ReportKind } from '../contracts/report-json.js';
import type { Diagnosis, RuleTrace } from '../diagnosis/diagnose.js';
import type { Finding } from '../diagnosis/finding.js';
import { isLearner } from '../diagnosis/support/members.js';
import type { Vantage } from '../diagnosis/vantage.js';
import type { Evidence, MemberEvidence } from '../probes/evidence.js';
import { backupsJson } from './backups-report.js';

export function buildReport(
  evidence: Evidence,
  diagnosis: Diagnosis,
  opts: { kind: ReportKind; durationMs: number; explain?: boolean },
): DiagnosisReport {
  const report: DiagnosisReport = {
    cluster: evidence.cluster,
    status: diagnosis.status,
    durationMs: Math.round(opts.durationMs),
    members: evidence.members.map((m) => memberRow(m, evidence, diagnosis.vantage)),
    findings: diagnosis.findings.map(findingJson),
    probes: evidence.probes,
    kind: opts.kind,
    collectedAt: new Date(evidence.collectedAt).toISOString(),
  };
  const backups = backupsJson(evidence);
  if (backups) report.backups = backups;
  if (opts.explain) report.explain = diagnosis.trace;
  if (opts.kind === 'analyze') report.notEvaluated = offlineSkips(diagnosis.trace);
  return report;
}

const OFFLINE_SKIP = /^not evaluated: offline \(it needs (.*)\)$/;

/** The rules an offline analysis could not run, each with the live reading it needs. */
function offlineSkips(trace: RuleTrace[]): Array<{ rule: string; reason: string }> {
  return trace.flatMap((t) => {
    const m = t.skipped ? OFFLINE_SKIP.exec(t.explain[0] ?? '') : null;
    return m?.[1] ? [{ rule: t.rule, reason: m[1] }] : [];
  });
}

function memberRow(m: MemberEvidence, evidence: Evidence, vantage: Vantage): MemberRow {
  const status = m.status.ok ? m.status.data : undefined;
  const metrics = m.metrics.ok ? m.metrics.data : undefined;
  const firstError = [m.status, m.health].find((o) => !o.ok);
  const unseen = vantage.unseen.find((u) => u.member === m);
  return {
    name: m.target.name,
    endpoint: m.target.endpoint,
    id: m.target.id ?? status?.memberId ?? null,
    reachable: unseen ? null : m.status.ok || m.health.ok,
    isLeader: status ? status.leaderId === status.memberId : false,
    isLearner: isLearner(evidence, m),
    access: unseen
      ? {
          kind: unseen.access?.kind ?? 'unreachable-from-here',
          cause: unseen.reason,
          reason: unseen.access ? unseen.access.reason : unseen.why,
          fix: unseen.access?.fix ?? null,
        }
      : null,
    tookMs: m.health.ok ? m.health.data.tookMs : null,
    dbSizeBytes: status?.dbSizeBytes ?? null,
    dbSizeInUseBytes: status?.dbSizeInUseBytes ?? null,
    version: status?.version ?? null,
    raftTerm: status?.raftTerm ?? null,
    walFsyncP99Ms: toMs(metrics?.walFsync.p99Seconds),
    walFsyncSamples: metrics ? metrics.walFsync.count : null,
    backendCommitP99Ms: toMs(metrics?.backendCommit.p99Seconds),
    clockOffsetMs: m.clock.ok ? m.clock.data.offsetMs : null,
    error: firstError && !firstError.ok ? firstError.failure.message : null,
    ...(status?.storageVersion ? { storageVersion: status.storageVersion } : {}),
    ...(status?.downgrade ? { downgrade: status.downgrade } : {}),
    ...(metrics?.featureGates ? { featureGates: metrics.featureGates } : {}),
    ...(m.httpHealth ? { httpHealth: m.httpHealth } : {}),
  };
}

function toMs(seconds: number | undefined): number | null {
  return seconds === undefined ? null : Math.round(seconds * 100_000) / 100;
}

function findingJson(f: Finding): FindingJson {
  return {
    cause: f.cause,
    severity: f.severity,
    members: f.members,
    nodes: f.nodes,
    summary: f.summary,
    evidence: f.evidence,
    remediation: f.steps.map((s) => s.text),
    causedBy: f.causedBy ?? null,
    steps: f.steps,
    unknowns: f.unknowns,
    ...(f.uncheckedCauses?.length ? { uncheckedCauses: f.uncheckedCauses } : {}),
  };
}
