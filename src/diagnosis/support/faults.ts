import type { Cause } from '../finding.js';
import type { CountStat } from '../../etcd/log-stat.js';
import type { Evidence } from '../../probes/evidence.js';
import type { ContainerLogScan, ContainerTermination } from '../../probes/kubernetes/evidence.js';
import { dataOf, kubernetesOf, memberOfNode, memberOfScan, scansOf } from './kubernetes.js';

/** A stat a scan has no reading of (evidence from before a signal existed). */
export const NO_STAT: CountStat = { count: 0, example: undefined };

/**
 * What a member stopped by a resource running out (disk, memory, file descriptors) explains: it is
 * down, its peers elect and cannot reach it, reads and the apiserver slow, its container restarts.
 */
export const EXHAUSTED_MEMBER_EXPLAINS: readonly Cause[] = [
  'member-down',
  'leader-churn',
  'peer-network',
  'slow-reads',
  'etcd-crash',
  'follower-behind',
  'control-plane-restarts',
  'apiserver-latency',
];

export interface EtcdExit {
  member: string;
  pod: string;
  node: string | undefined;
  restarts: number;
  termination: ContainerTermination;
}

/**
 * etcd containers whose last termination matches (`OOMKilled`, a message with `too many open
 * files`): the Pod objects, live or in a must-gather. The member is its node's (kubeadm names it
 * after the node), else the pod.
 */
export function etcdExits(evidence: Evidence, matches: (t: ContainerTermination) => boolean): EtcdExit[] {
  const pods = dataOf(kubernetesOf(evidence)?.pods) ?? [];
  return pods.flatMap((pod) => {
    const t = pod.main?.lastTermination;
    if (pod.component !== 'etcd' || !t || !matches(t)) return [];
    const member = (pod.node && memberOfNode(evidence, pod.node)) || pod.node || pod.name;
    return [{ member, pod: pod.name, node: pod.node, restarts: pod.main?.restartCount ?? 0, termination: t }];
  });
}

/** `etcd-master-2 last exited OOMKilled (exit code 137) at 2024-05-14T09:21:00Z, 14 restarts`. */
export function describeExit(e: EtcdExit): string {
  const t = e.termination;
  const at = t.finishedAt !== undefined ? ` at ${new Date(t.finishedAt).toISOString()}` : '';
  const restarts = e.restarts > 0 ? `, ${e.restarts} restart${e.restarts === 1 ? '' : 's'}` : '';
  return `${e.pod}'s etcd container last exited ${t.reason ?? 'terminated'} (exit code ${t.exitCode})${at}${restarts}`;
}

/** The etcd scans of one member, current and previous logs. */
export function scansOfMember(evidence: Evidence, member: string): ContainerLogScan[] {
  return scansOf(kubernetesOf(evidence), 'etcd').filter((s) => memberOfScan(evidence, s) === member);
}

/**
 * The etcd version a member runs: what its log's start says (`etcd Version: 3.4.13`, zap
 * `etcd-version`), else its pod's image tag (`registry.k8s.io/etcd:3.5.12-0` -> 3.5.12).
 */
export function etcdVersionOf(evidence: Evidence, member: string): string | undefined {
  const logged = scansOfMember(evidence, member)
    .map((s) => s.signals.etcdVersion)
    .find((v): v is string => typeof v === 'string');
  if (logged) return logged;
  const specs = dataOf(kubernetesOf(evidence)?.etcdPods) ?? [];
  const spec = specs.find(
    (s) => s.memberName === member || (s.node && memberOfNode(evidence, s.node) === member),
  );
  return /:v?(\d+\.\d+\.\d+)/.exec(spec?.image ?? '')?.[1];
}
