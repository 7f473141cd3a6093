import type { DiagnosisReport } from '../contracts/report-json.js';
import { type Doctor, diagnoseWithEvidence } from '../doctor.js';
import { quorumOf } from '../etcd/quorum.js';
import type { Evidence } from '../probes/evidence.js';
import { planRecovery, type RecoveryInput, type RecoveryPlanJson } from './recovery-plan.js';

/** Where the watch last saw a member: epoch ms of the check, and its Status's revision, term and index. */
export interface LastKnownState {
  at: number;
  revision: number;
  term: number;
  raftIndex: number;
}

/** Where the watch last saw each member (history/last-known.ts); absent where there is no watch history. */
export type LastKnownReader = (cluster: string, now: number) => Promise<Map<string, LastKnownState>>;

export type RecoveryOutcome =
  | { kind: 'plan'; plan: RecoveryPlanJson; report: DiagnosisReport }
  /** The cluster has quorum: one line saying what to run instead. */
  | { kind: 'has-quorum'; line: string; report: DiagnosisReport }
  /** Nothing answered and no backup: nothing to judge or restore from. */
  | { kind: 'could-not-check'; line: string; report: DiagnosisReport };

/**
 * A diagnosis of the cluster, then the plan from what it read (src/lifecycle/recovery-plan.ts).
 * The plan is for a cluster that lost quorum: the quorum-lost finding decides, as it does for the
 * "Show the recovery plan" button on it.
 */
export async function recoveryPlanFor(
  deps: { doctor: Pick<Doctor, 'run' | 'cluster'>; lastKnown?: LastKnownReader },
  clusterName: string,
  signal?: AbortSignal,
): Promise<RecoveryOutcome> {
  const { report, evidence } = await diagnoseWithEvidence(deps.doctor, clusterName, signal);
  const lost = report.findings.some((f) => f.cause === 'quorum-lost') || belowQuorum(evidence);
  const answered = report.members.filter((m) => m.reachable).length;
  if (!lost && answered > 0)
    return {
      kind: 'has-quorum',
      report,
      line: `${clusterName} has quorum (${answered} of ${report.members.length} members answer, status ${report.status}): recover is for a cluster that lost quorum. Run etcd-doctor diagnose ${clusterName} instead; a lost member is replaced with the Replace button of its finding.`,
    };
  const now = Date.now();
  const lastKnown = deps.lastKnown
    ? await deps.lastKnown(clusterName, now).catch(() => undefined)
    : undefined;
  const input = recoveryInputOf(clusterName, report, evidence, now, lastKnown);
  if (answered === 0 && !input.backup)
    return {
      kind: 'could-not-check',
      report,
      line: `could not plan a recovery of ${clusterName}: no member answered etcd-doctor and it has no verified backup (etcd-doctor health ${clusterName} says why)`,
    };
  return { kind: 'plan', plan: planRecovery(input), report };
}

/**
 * Fewer voters serve a linearizable read (the health probe) than a quorum of the configured voters
 * (⌊n/2⌋+1): the cluster cannot commit. A member whose refusal is our own access counts as unknown,
 * so a cluster etcd-doctor cannot see is never called lost.
 */
function belowQuorum(evidence: Evidence | undefined): boolean {
  if (!evidence) return false;
  const voters = evidence.members.filter(
    (m) => !m.target.isLearner && !(m.status.ok && m.status.data.isLearner),
  );
  if (voters.some((m) => m.access?.ours)) return false;
  const serving = voters.filter((m) => m.health.ok).length;
  return serving < quorumOf(voters.length);
}

/** What the plan is made from: the diagnosis's members and backups, and where the watch last saw the down ones. */
export function recoveryInputOf(
  cluster: string,
  report: DiagnosisReport,
  evidence: Evidence | undefined,
  now: number,
  lastKnown?: ReadonlyMap<string, LastKnownState>,
): RecoveryInput {
  const k = evidence?.kubernetes?.ok ? evidence.kubernetes.data : undefined;
  const pods = k?.etcdPods.ok ? k.etcdPods.data : [];
  const listed = evidence?.memberList.ok ? evidence.memberList.data : [];
  const members = report.members.map((row) => {
    const probed = evidence?.members.find((m) => m.target.name === row.name);
    const status = probed?.status.ok ? probed.status.data : undefined;
    const pod = pods.find((p) => p.memberName === row.name);
    const peerUrl = listed.find((l) => l.name === row.name)?.peerUrls[0] ?? pod?.peerUrls[0];
    const seen = status ? undefined : lastKnown?.get(row.name);
    return {
      name: row.name,
      endpoint: row.endpoint,
      ...(peerUrl ? { peerUrl } : {}),
      ...(pod?.dataDir ? { dataDir: pod.dataDir } : {}),
      ...(pod?.node ? { node: pod.node } : {}),
      ...(status
        ? {
            status: {
              revision: status.revision,
              raftIndex: status.raftIndex,
              term: status.raftTerm,
              appliedIndex: status.raftAppliedIndex,
            },
          }
        : {}),
      ...(seen
        ? {
            lastSeen: {
              at: new Date(seen.at).toISOString(),
              ageMinutes: Math.max(0, (now - seen.at) / 60_000),
              revision: seen.revision,
              term: seen.term,
              raftIndex: seen.raftIndex,
            },
          }
        : {}),
    };
  });
  const good = report.backups?.newestGood;
  return {
    cluster,
    members,
    distribution: k?.distribution ?? 'unknown',
    ...(good
      ? {
          backup: {
            file: good.file,
            revision: good.revision,
            ageHours: (now - Date.parse(good.modifiedAt)) / 3_600_000,
          },
        }
      : {}),
  };
}
