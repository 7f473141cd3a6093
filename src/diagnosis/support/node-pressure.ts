import { formatAge } from '../../format.js';
import type { Evidence } from '../../probes/evidence.js';
import type { NodeConditionType } from '../../probes/kubernetes/evidence.js';
import { dataOf, kubernetesOf, memberOfNode, nodesOfMembers, scansOf } from './kubernetes.js';

/** Node conditions that starve etcd: the kubelet sets them from its eviction signals. */
export type PressureCondition = Extract<NodeConditionType, 'MemoryPressure' | 'DiskPressure' | 'PIDPressure'>;

/**
 * Evidence lines for the etcd rules (slow-disk: DiskPressure; cpu-starvation: MemoryPressure,
 * PIDPressure): control-plane nodes under pressure, limited to the nodes of `members` when given.
 * `master-2 (etcd member master-2): DiskPressure for 14 min (KubeletHasDiskPressure: ...)`.
 */
export function nodePressureEvidence(
  evidence: Evidence,
  conditions: readonly PressureCondition[],
  members: readonly string[] = [],
  now: number = evidence.collectedAt,
): string[] {
  const nodes = dataOf(kubernetesOf(evidence)?.nodes) ?? [];
  const wanted = members.length > 0 ? nodesOfMembers(evidence, members) : nodes.map((n) => n.name);
  return nodes
    .filter((n) => wanted.includes(n.name))
    .flatMap((node) =>
      conditions.flatMap((type) => {
        const c = node.conditions[type];
        if (c?.status !== 'True') return [];
        const member = memberOfNode(evidence, node.name);
        const since = c.since !== undefined ? ` for ${formatAge(now - c.since)}` : '';
        const why = [c.reason, c.message].filter(Boolean).join(': ');
        return [
          `${node.name}${member ? ` (etcd member ${member})` : ''}: ${type}${since}${why ? ` (${why})` : ''}`,
        ];
      }),
    );
}

/** The nodes of etcd members, for the `nodes` field of etcd findings. */

/**
 * Evidence lines for slow-disk from the etcd logs: `took too long`, `slow fdatasync` and late
 * heartbeats per member. Useful when /metrics cannot be reached (kubeadm binds them to 127.0.0.1).
 */
export function slowDiskLogEvidence(evidence: Evidence, members: readonly string[] = []): string[] {
  return scansOf(kubernetesOf(evidence), 'etcd').flatMap((scan) => {
    const member = (scan.node && memberOfNode(evidence, scan.node)) || scan.pod;
    if (members.length > 0 && !members.includes(member)) return [];
    const s = scan.signals;
    const parts = [
      s.tookTooLong.count > 0
        ? `${s.tookTooLong.count} × took too long (max ${seconds(s.tookTooLong.maxSeconds)})`
        : '',
      s.slowFdatasync.count > 0
        ? `${s.slowFdatasync.count} × slow fdatasync (max ${seconds(s.slowFdatasync.maxSeconds)})`
        : '',
      s.heartbeatLate.count > 0 ? `${s.heartbeatLate.count} × heartbeat sent late` : '',
    ].filter(Boolean);
    return parts.length > 0
      ? [`${member} etcd log${scan.previous ? ' (previous container)' : ''}: ${parts.join(', ')}`]
      : [];
  });
}

function seconds(value: number | undefined): string {
  if (value === undefined) return 'n/a';
  return value >= 1 ? `${Number(value.toFixed(2))} s` : `${Math.round(value * 1000)} ms`;
}
