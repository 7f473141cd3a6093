import type { Diagnosis, RuleTrace, Status } from '../diagnosis/diagnose.js';
import type { Cause, Finding, RemediationStep, Severity } from '../diagnosis/finding.js';
import type { Evidence, MemberEvidence, ProbeRecord } from '../probes/evidence.js';

/** One member line of the JSON contract (DESIGN.md), plus a few extra fields. */
export interface MemberRow {
  name: string;
  endpoint: string;
  id: string | null;
  reachable: boolean;
  isLeader: boolean;
  tookMs: number | null;
  dbSizeBytes: number | null;
  dbSizeInUseBytes: number | null;
  version: string | null;
  raftTerm: number | null;
  walFsyncP99Ms: number | null;
  /** fsyncs behind the p99 (no p99 is given for fewer than 20: an idle member). */
  walFsyncSamples: number | null;
  backendCommitP99Ms: number | null;
  clockOffsetMs: number | null;
  error: string | null;
}

export interface FindingJson {
  cause: Cause;
  severity: Severity;
  members: string[];
  nodes: string[];
  summary: string;
  evidence: string[];
  remediation: string[];
  causedBy: Cause | null;
  steps: RemediationStep[];
  unknowns: string[];
}

/** `--json` output: `{ cluster, status, durationMs, members, findings, probes }` (DESIGN.md). */
export interface DiagnosisReport {
  cluster: string;
  status: Status;
  durationMs: number;
  members: MemberRow[];
  findings: FindingJson[];
  probes: ProbeRecord[];
  kind: 'health' | 'diagnose';
  collectedAt: string;
  explain?: RuleTrace[];
}

export function buildReport(
  evidence: Evidence,
  diagnosis: Diagnosis,
  opts: { kind: 'health' | 'diagnose'; durationMs: number; explain?: boolean },
): DiagnosisReport {
  const report: DiagnosisReport = {
    cluster: evidence.cluster,
    status: diagnosis.status,
    durationMs: Math.round(opts.durationMs),
    members: evidence.members.map(memberRow),
    findings: diagnosis.findings.map(findingJson),
    probes: evidence.probes,
    kind: opts.kind,
    collectedAt: new Date(evidence.collectedAt).toISOString(),
  };
  if (opts.explain) report.explain = diagnosis.trace;
  return report;
}

function memberRow(m: MemberEvidence): MemberRow {
  const status = m.status.ok ? m.status.data : undefined;
  const metrics = m.metrics.ok ? m.metrics.data : undefined;
  const firstError = [m.status, m.health].find((o) => !o.ok);
  return {
    name: m.target.name,
    endpoint: m.target.endpoint,
    id: m.target.id ?? status?.memberId ?? null,
    reachable: m.status.ok || m.health.ok,
    isLeader: status ? status.leaderId === status.memberId : false,
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
  };
}
