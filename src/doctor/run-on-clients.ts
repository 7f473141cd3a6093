import type { ClusterClients } from '../clients/cluster-clients.js';
import type { ClusterConfig } from '../config/schema.js';
import type { CheckDepth } from '../contracts/check-depth.js';
import type { DiagnosisReport } from '../contracts/report-json.js';
import { diagnose } from '../diagnosis/diagnose.js';
import type { Rule } from '../diagnosis/rule.js';
import { collectEtcdEvidence } from '../probes/collect-evidence.js';
import type { Evidence } from '../probes/evidence.js';
import type { KubernetesEvidence } from '../probes/kubernetes/evidence.js';
import type { Outcome } from '../probes/outcome.js';
import { buildReport } from '../report/diagnosis-report.js';
import { untilAborted } from '../timing.js';
import type { BackupsCollection } from './backups-evidence.js';
import { withKubernetes } from './kubernetes-evidence.js';
import type { DoctorDeps, RunOptions } from './options.js';

/** Membership changes are rare and deliberate; a health check may reuse a list this fresh. */
export const MEMBER_LIST_REUSE_MS = 10_000;

/** What every run shares: the config, the clocks, the rules, and how Kubernetes evidence is taken. */
export interface Pipeline {
  deps: DoctorDeps;
  now: () => number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  rules: readonly Rule[];
  collectKubernetes: (
    cluster: ClusterConfig,
    parts?: 'all' | 'vantage',
    /** The apiserver's /metrics window (0: one read). */
    windowMs?: number,
  ) => Promise<Outcome<KubernetesEvidence>> | undefined;
}

/** What Doctor.run started before the clients were ready: the clocks, the evidence already under way, the probe window. */
export interface RunStart {
  started: number;
  collectedAt: number;
  kubernetesP: Promise<Outcome<KubernetesEvidence>> | undefined;
  backupsP: Promise<BackupsCollection | undefined> | undefined;
  /** Ends the probe window: etcd-doctor's own load while it probed. */
  endObserving: () => Evidence['observer'];
  /** Other runs already probe the same hosts: this one sends fewer clock samples. */
  busy: boolean;
}

/**
 * One run on a cluster's clients: etcd's evidence (a health check reuses a member list up to 10 s
 * old), Kubernetes' when configured (or as a vantage point when no member answered), then the rules
 * and the report.
 */
export async function runOnClients(
  pipeline: Pipeline,
  entry: ClusterClients,
  depth: CheckDepth,
  opts: RunOptions,
  at: RunStart,
): Promise<DiagnosisReport> {
  const { deps, now, sleep, rules, collectKubernetes } = pipeline;
  const { started, collectedAt, kubernetesP } = at;
  const { etcd, http } = entry;
  const fresh = entry.memberList && performance.now() - entry.memberList.atMs < MEMBER_LIST_REUSE_MS;
  const recentMemberList = depth === 'health' && fresh ? entry.memberList?.outcome : undefined;
  // diagnose times GETs (the clock's round trips): the HTTP client is ready before the first one.
  if (depth !== 'health') await http.ready();
  const collected = await collectEtcdEvidence({
    cluster: entry.cluster,
    clients: etcd,
    httpGet: http.get,
    peerCertificate: http.peerCertificate,
    // etcd probes measure against the real clock: gRPC deadlines and the members' Date headers.
    now: Date.now,
    sleep,
    timeoutMs: deps.config.probes.timeoutMs,
    metricsWindowMs: deps.config.probes.metricsWindowMs,
    depth,
    ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
    ...(recentMemberList ? { recentMemberList } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
    ...(opts.scrapes ? { scrapes: opts.scrapes } : {}),
    tls: entry.tls,
    etcdPath: entry.etcdPath,
    busy: at.busy,
  });
  // Cancelled probes are no evidence about the cluster: no report is built from them.
  opts.signal?.throwIfAborted();
  if (collected.memberList.ok && !recentMemberList)
    entry.memberList = { outcome: collected.memberList, atMs: performance.now() };
  // No member answered a health check: ask the apiserver before concluding anything (its etcd
  // checks, a read through it), as diagnose always does.
  const vantageP =
    !kubernetesP && !collected.members.some((m) => m.status.ok || m.health.ok)
      ? collectKubernetes(entry.cluster, 'vantage')
      : kubernetesP;
  const kubernetes = vantageP ? await untilAborted(vantageP, opts.signal) : undefined;
  const backups = at.backupsP ? await untilAborted(at.backupsP, opts.signal) : undefined;
  const observer = at.endObserving();
  // The evidence is complete here and read-only from now on: rules, report and history see one value.
  const etcdEvidence: Evidence = {
    ...collected,
    collectedAt,
    ...(observer ? { observer } : {}),
    ...(backups ? { backups: backups.evidence, probes: [...collected.probes, ...backups.probes] } : {}),
  };
  const evidence = kubernetes ? await withKubernetes(etcdEvidence, kubernetes) : etcdEvidence;
  // Without --explain the rules' explain lines are never shown: they are not written.
  const compactionS = entry.cluster.maintenance?.compactionIntervalSeconds;
  const diagnosis = diagnose(evidence, rules, {
    now: now(),
    explain: opts.explain ?? false,
    ...(compactionS ? { compactionIntervalMs: compactionS * 1000 } : {}),
  });
  opts.onEvidence?.(evidence);
  const report = buildReport(evidence, diagnosis, {
    kind: depth,
    durationMs: performance.now() - started,
    explain: opts.explain ?? false,
  });
  deps.metrics?.observeReport(report);
  return report;
}
