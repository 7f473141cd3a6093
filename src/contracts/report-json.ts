import type { RuleTrace, Status } from '../diagnosis/diagnose.js';
import type { Cause, RemediationStep, Severity } from '../diagnosis/finding.js';
import type { AccessProblemKind, ProbeRecord } from '../probes/evidence.js';
import type { CheckDepth } from './check-depth.js';

/**
 * The report's JSON shape: what `--json`, the MCP tools and the offline analysis print, and what
 * other tools read (DESIGN.md). Types only; report/diagnosis-report.ts builds it from the evidence
 * and the diagnosis.
 */

/** Why etcd-doctor could not check a member (DESIGN.md: `reachable: null` and an `access` problem). */
export interface MemberAccess {
  kind: AccessProblemKind | 'unreachable-from-here';
  /** `no-access`: our own configuration or credentials; `unreachable-from-here`: the path from here. */
  cause: 'no-access' | 'unreachable-from-here';
  reason: string;
  fix: string | null;
}

/** One member line of the JSON contract (DESIGN.md), plus a few extra fields. */
export interface MemberRow {
  name: string;
  endpoint: string;
  id: string | null;
  /** null: etcd-doctor could not check it (see `access`); never read that as down. */
  reachable: boolean | null;
  isLeader: boolean;
  /** A non-voting member: counted in neither quorum nor failure tolerance. */
  isLearner: boolean;
  access: MemberAccess | null;
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
  /** etcd 3.6+: the version of the member's db file (Status storageVersion); absent before 3.6. */
  storageVersion?: string;
  /** etcd 3.6+: the downgrade the cluster is in (Status downgradeInfo); absent before 3.6. */
  downgrade?: { enabled: boolean; targetVersion: string };
  /** etcd 3.6+: the feature gates the member reports (/metrics etcd_server_feature_enabled). */
  featureGates?: Array<{ name: string; stage: string; enabled: boolean }>;
  /**
   * etcd's HTTP health when the read failed but Status answered: `path` says which etcd served
   * (`/readyz` with `/livez` on 3.6, 3.5.11+ and 3.4.29+; `/health` on older patches), with each check's result.
   */
  httpHealth?: {
    path: '/readyz' | '/health';
    ok: boolean;
    checks: Array<{ name: string; ok: boolean; reason?: string }>;
    live?: { ok: boolean; checks: Array<{ name: string; ok: boolean; reason?: string }> };
  };
}

/**
 * A finding as the JSON contract prints it. It restates Finding's fields (diagnosis/finding.ts) on
 * purpose, a declared exception to `duplicates`: the contract must not change when Finding does.
 */
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
  /**
   * Since when, from the watch's minute history: one entry per member the finding names (or one
   * for the cluster), only when the history's latest check shows the same cause. Absent without
   * history (the cluster is not watched, or Redis did not answer in time): never invented.
   */
  since?: SinceWhenJson[];
  /**
   * A symptom whose possible causes were not checked (their evidence was not read, as in a health
   * check): those causes. Absent when it was judged with them (the contract only grows).
   */
  uncheckedCauses?: Cause[];
}

/** `etcd-2 wal fsync p99 above 10 ms since 02:13 (47 min; 14:00-02:12 it was 2-4 ms)`, with its parts. */
export interface SinceWhenJson {
  /** null: the finding names no member (leader churn): the cluster. */
  member: string | null;
  cause: string;
  /** The first watch check of the current run of checks that found the cause. */
  startedAt: string;
  minutes: number;
  /** What the history measured for it (`wal fsync p99`); null when it keeps no metric for the cause. */
  metric: string | null;
  /** The metric over the checks before the run, when it was read. */
  before: { from: string; to: string; min: number; max: number; unit: 'ms' | 'bytes' | 'count' } | null;
  /** The sentence every view shows. */
  text: string;
  /**
   * A finding told as the past (info, from since-start figures): the last check of the last run that
   * showed the cause; `startedAt` is that run's first check, `minutes` its length.
   */
  lastSeenAt?: string;
}

/** One signal on one member, as the collected evidence dates it (`timeline[]` in the JSON). */
export interface TimelineEntry {
  /** The log signal or object event (`slowFdatasync`, `leaderElected`, `containerExit`, ...). */
  signal: string;
  /** The member or node it was seen on, when known. */
  member: string | null;
  /** The peer a peer signal names (`clockDrift`, `peerUnreachable`). */
  peer?: string;
  firstSeenAt: string;
  lastSeenAt: string;
  count: number;
  /** The worst duration seen, for duration signals (`slow fdatasync` up to 4.0 s). */
  maxSeconds?: number;
}

/**
 * A cluster's backups (`clusters[].backups`): `etcd-doctor backups --json`, and `backups` in a
 * diagnosis's JSON. Times are ISO 8601; ages in hours at `checkedAt`.
 */
export interface BackupsJson {
  cluster: string;
  /** `backups.dir`; null when only the Kubernetes backup jobs are read. */
  dir: string | null;
  pattern: string;
  maxAgeHours: number;
  checkedAt: string;
  /** The cluster's revision (the highest a member's Status gave); null when no member answered. */
  clusterRevision: number | null;
  /** Files in `dir` matching `pattern`; null when the directory was not read. */
  matched: number | null;
  /** The newest snapshot that reads as good, or null when there is none. */
  newestGood: SnapshotJson | null;
  /** Newest first, at most 10. */
  snapshots: SnapshotJson[];
  /** Why the directory could not be read; null when it was (or there is none). */
  error: string | null;
  /** The etcd backup CronJobs and Jobs Kubernetes shows; null without `kubernetes` or when they could not be listed. */
  jobs: BackupJobJson[] | null;
  jobsError: string | null;
}

export interface SnapshotJson {
  file: string;
  modifiedAt: string;
  ageHours: number;
  sizeBytes: number;
  /** `good`, `damaged` (truncated, a page that does not parse, a SHA-256 that does not match), `unchecked`. */
  state: 'good' | 'damaged' | 'unchecked';
  revision: number | null;
  /** The SHA-256 trailer matches; null without a trailer (a copied `member/snap/db`) or when not read. */
  hashOk: boolean | null;
  /** Revisions the cluster has moved on since; null when either revision is unknown. */
  behindRevisions: number | null;
  /** What is wrong with a damaged file, or why it was not read. */
  error: string | null;
}

export interface BackupJobJson {
  kind: 'CronJob' | 'Job';
  namespace: string;
  name: string;
  schedule: string | null;
  suspended: boolean;
  lastSuccessfulAt: string | null;
  lastScheduleAt: string | null;
  lastRun: {
    name: string;
    state: 'succeeded' | 'failed' | 'running';
    at: string | null;
    reason: string | null;
  } | null;
}

/** The report's `kind`: a live check (`health`, `diagnose`) or an offline analysis (`analyze`). */
export type ReportKind = CheckDepth | 'analyze';

/** `--json` output: `{ cluster, status, durationMs, members, findings, probes }` (DESIGN.md). */
export interface DiagnosisReport {
  cluster: string;
  status: Status;
  durationMs: number;
  members: MemberRow[];
  findings: FindingJson[];
  probes: ProbeRecord[];
  kind: ReportKind;
  collectedAt: string;
  explain?: RuleTrace[];
  /** Offline analyses (`analyze`): when each signal was seen, oldest first. */
  timeline?: TimelineEntry[];
  /** Offline analyses: the rules that need a live reading, not evaluated. */
  notEvaluated?: Array<{ rule: string; reason: string }>;
  /**
   * Offline analyses with no finding above info: the answer in one sentence (`Healthy as far as the
   * logs show: 50 etcd log lines …`, or too few lines to judge).
   */
  verdict?: string;
  /** When the cluster has `backups` (diagnose, `etcd-doctor backups`). */
  backups?: BackupsJson;
}
