import type { Outcome } from '../../probes/outcome.js';
import type { Evidence } from '../../probes/evidence.js';
import type {
  ContainerLogScan,
  ControlPlaneComponent,
  KubernetesEvidence,
} from '../../probes/kubernetes/evidence.js';
import type { CountStat, LogSignals } from '../../etcd/scan-logs.js';

/** The Kubernetes evidence when it arrived at all. */
export function kubernetesOf(evidence: Evidence): KubernetesEvidence | undefined {
  return evidence.kubernetes?.ok ? evidence.kubernetes.data : undefined;
}

export function dataOf<T>(outcome: Outcome<T> | undefined): T | undefined {
  return outcome?.ok ? outcome.data : undefined;
}

export function failureText(outcome: Outcome<unknown> | undefined, what: string): string | undefined {
  if (!outcome) return `no ${what}`;
  return outcome.ok ? undefined : outcome.failure.message;
}

/** The node an etcd member runs on: from the etcd pods' `--name`, else a node of the same name (kubeadm). */
export function nodeOfMember(evidence: Evidence, member: string): string | undefined {
  const k = kubernetesOf(evidence);
  const spec = dataOf(k?.etcdPods)?.find((s) => s.memberName === member);
  if (spec?.node) return spec.node;
  return dataOf(k?.nodes)?.find((n) => n.name === member)?.name;
}

/** The etcd member on a node: its pod's `--name`, else a member named after the node. */
export function memberOfNode(evidence: Evidence, node: string): string | undefined {
  const spec = dataOf(kubernetesOf(evidence)?.etcdPods)?.find((s) => s.node === node);
  if (spec?.memberName) return spec.memberName;
  const listed = evidence.memberList.ok ? evidence.memberList.data.find((m) => m.name === node) : undefined;
  return listed?.name ?? evidence.members.find((m) => m.target.name === node)?.target.name;
}

export function nodesOfMembers(evidence: Evidence, members: readonly string[]): string[] {
  return unique(members.flatMap((m) => nodeOfMember(evidence, m) ?? []));
}

/** The log scans of one component, current and previous. */
export function scansOf(
  k: KubernetesEvidence | undefined,
  component: ControlPlaneComponent,
): ContainerLogScan[] {
  return dataOf(k?.logs)?.scans.filter((s) => s.component === component) ?? [];
}

/** A pod's log scans: its current log, and its previous one when the container restarted. */
export function scansOfPod(
  k: KubernetesEvidence | undefined,
  namespace: string,
  pod: string,
): ContainerLogScan[] {
  return dataOf(k?.logs)?.scans.filter((s) => s.namespace === namespace && s.pod === pod) ?? [];
}

/** One count summed over several scans, with the last example found. */
export function countIn(
  scans: readonly ContainerLogScan[],
  pick: (signals: LogSignals) => CountStat,
): CountStat {
  return scans.reduce<CountStat>(
    (sum, scan) => ({
      count: sum.count + pick(scan.signals).count,
      example: pick(scan.signals).example ?? sum.example,
    }),
    { count: 0, example: undefined },
  );
}

/** The member whose etcd pod wrote a log scan (kubeadm: `--name` = node name). */
export function memberOfScan(evidence: Evidence, scan: ContainerLogScan): string {
  return (scan.node && memberOfNode(evidence, scan.node)) || scan.node || scan.pod;
}

export function unique<T>(items: readonly T[]): T[] {
  return [...new Set(items)];
}

export function plural(n: number, word: string, many = `${word}s`): string {
  return `${n} ${n === 1 ? word : many}`;
}
