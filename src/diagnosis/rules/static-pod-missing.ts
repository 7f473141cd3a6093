import type { Evidence } from '../../probes/evidence.js';
import type {
  ControlPlaneNode,
  ExpectedStaticPod,
  KubernetesEvidence,
  StaticPodsData,
} from '../../probes/kubernetes/evidence.js';
import { formatAge, formatList } from '../../format.js';
import type { Finding, RemediationStep } from '../finding.js';
import type { Rule } from '../rule.js';
import { dataOf, failureText, kubernetesOf, memberOfNode, unique } from '../support/kubernetes.js';

/**
 * KB F7 bot rule (inference): a control-plane node Ready for at least 5 min has had time to start
 * its static pods. OpenShift itself waits terminationGracePeriod + 150 s before `MissingStaticPod`.
 */
export const NODE_READY_MIN_MS = 5 * 60_000;

/** Operator conditions that say a static pod did not roll out (CEOP, library-go condition.go). */
const STATIC_POD_CONDITIONS = [
  'StaticPodsDegraded',
  'NodeInstallerDegraded',
  'MissingStaticPodControllerDegraded',
  'EtcdMembersDegraded',
];

/**
 * F7: a static pod manifest is missing on a master: the node is Ready but the kubelet has no
 * mirror pod `<component>-<node>`. A missing etcd manifest takes that member down.
 */
export const staticPodMissingRule: Rule = {
  name: 'static-pod-missing',
  cause: 'static-pod-missing',
  needs: ['kubernetes'],
  explains: ['member-down', 'quorum-lost'],
  rank: 6,
  evaluate(evidence, ctx) {
    const k = kubernetesOf(evidence);
    const data = dataOf(k?.staticPods);
    const nodes = dataOf(k?.nodes);
    if (!k || !data || !nodes) {
      return {
        explain: [
          `no static pod check: ${failureText(k?.staticPods, 'static pods') ?? failureText(k?.nodes, 'nodes')}`,
        ],
      };
    }
    const settled = nodes.filter((n) => readyFor(n, ctx.now) >= NODE_READY_MIN_MS);
    const missing = data.expected.filter((e) => !e.present && settled.some((n) => n.name === e.node));
    const explain = [
      `${data.expected.filter((e) => !e.present).length} of ${data.expected.length} expected mirror pods absent; ${settled.length} of ${nodes.length} control-plane nodes Ready for ${formatAge(NODE_READY_MIN_MS)} or more`,
    ];
    if (missing.length === 0) return { explain };
    return { finding: buildFinding(evidence, k, data, nodes, missing, ctx.now), explain };
  },
};

function readyFor(node: ControlPlaneNode, now: number): number {
  const ready = node.conditions.Ready;
  if (ready?.status !== 'True') return -1;
  return ready.since !== undefined ? now - ready.since : Number.POSITIVE_INFINITY;
}

function buildFinding(
  evidence: Evidence,
  k: KubernetesEvidence,
  data: StaticPodsData,
  nodes: ControlPlaneNode[],
  missing: ExpectedStaticPod[],
  now: number,
): Finding {
  const byNode = unique(missing.map((m) => m.node));
  const perNode = byNode.map(
    (node) => `${formatList(missing.filter((m) => m.node === node).map((m) => m.component))} on ${node}`,
  );
  const etcdGone = missing.filter((m) => m.component === 'etcd');
  const members = unique(etcdGone.flatMap((m) => memberOfNode(evidence, m.node) ?? []));
  const openshift = k.distribution === 'openshift';
  return {
    cause: 'static-pod-missing',
    severity: etcdGone.length > 0 || byNode.length * 2 > nodes.length ? 'critical' : 'warning',
    members,
    nodes: byNode,
    summary: `Static pods are missing on ${formatList(byNode)}: ${perNode.join('; ')}`,
    evidence: [
      ...byNode.map((node) => {
        const ready = nodes.find((n) => n.name === node)?.conditions.Ready;
        const pods = missing.filter((m) => m.node === node).map((m) => `${m.namespace}/${m.podName}`);
        return `${node} is Ready${ready?.since ? ` for ${formatAge(now - ready.since)}` : ''} but has no mirror pod ${formatList(pods)}`;
      }),
      ...data.missingStaticPodEvents
        .slice(0, 3)
        .map((e) => `event MissingStaticPod (${e.count}×): ${e.message}`),
      ...operatorLines(data),
    ],
    steps: openshift ? openshiftSteps() : kubeadmSteps(missing),
    unknowns: [
      ...data.notes,
      ...nodes
        .filter((n) => readyFor(n, now) < NODE_READY_MIN_MS)
        .map(
          (n) =>
            `${n.name} is not Ready or became Ready less than ${formatAge(NODE_READY_MIN_MS)} ago: its static pods may still be starting`,
        ),
    ],
  };
}

function operatorLines(data: StaticPodsData): string[] {
  const op = data.etcdOperator;
  if (!op?.ok) return [];
  const degraded = op.data.conditions
    .filter((c) => STATIC_POD_CONDITIONS.includes(c.type) && c.status === 'True')
    .map(
      (c) =>
        `etcd operator ${c.type}=True${c.reason ? ` (${c.reason})` : ''}${c.message ? `: ${c.message}` : ''}`,
    );
  const behind = op.data.nodeStatuses
    .filter(
      (n) =>
        n.targetRevision !== undefined && n.targetRevision !== 0 && n.currentRevision !== n.targetRevision,
    )
    .map((n) => `etcd operator: ${n.node} at revision ${n.currentRevision ?? 0}, target ${n.targetRevision}`);
  return [...degraded, ...behind];
}

function kubeadmSteps(missing: ExpectedStaticPod[]): RemediationStep[] {
  const nodes = unique(missing.map((m) => m.node));
  return [
    {
      text: `On ${formatList(nodes)}, check /etc/kubernetes/manifests: the kubelet runs one static pod per file there (etcd.yaml, kube-apiserver.yaml, kube-controller-manager.yaml, kube-scheduler.yaml)`,
    },
    {
      text: 'Restore each missing file from a healthy master (change its node name and IPs), or regenerate it: kubeadm init phase etcd local / kubeadm init phase control-plane <component> (kubeadm docs); compare before restoring etcd on an existing cluster',
    },
    {
      text: 'Find out what deleted them (config management, a cleanup script, a failed upgrade) before they disappear again',
    },
  ];
}

function openshiftSteps(): RemediationStep[] {
  return [
    { text: 'Do not hand-edit /etc/kubernetes/manifests on OpenShift: the static-pod operators own them' },
    {
      text: 'Let the operator roll out a new revision: oc patch etcd cluster --type=merge -p \'{"spec":{"forceRedeploymentReason":"recover-missing-static-pods"}}\' (same for kubeapiserver, kubecontrollermanager, kubescheduler)',
    },
    {
      text: 'Watch oc get etcd cluster -o yaml (nodeStatuses, StaticPodsDegraded) until every node reaches the target revision',
    },
  ];
}
