/**
 * How a person starts a member that etcd-doctor has added back as a learner. etcd's runtime
 * reconfiguration guide: the new member joins with `--initial-cluster-state existing` and an
 * `--initial-cluster` that lists every member with the new one's name, and an empty data dir (a
 * data dir left from the removed member holds its old ID, which the cluster refuses)
 * (WEB runtime-configuration.md "Add a new member", "Replace a failed machine").
 */
export interface JoinSpec {
  name: string;
  /** Member ID in hex, as `etcdctl member list` shows it. */
  id: string;
  peerUrls: string[];
  /** `name=peerURL,…` for every member, the new one under its name (what etcdctl member add prints). */
  initialCluster: string;
  distribution: 'kubeadm' | 'plain';
  promote: 'auto' | 'button';
}

/** kubeadm's static pod and data dir on every control-plane node (K8S kubeadm local.go). */
export const KUBEADM_ETCD_MANIFEST = '/etc/kubernetes/manifests/etcd.yaml';
export const KUBEADM_ETCD_DATA_DIR = '/var/lib/etcd';

/** `etcd-1=https://10.0.0.1:2380,…`, one entry per peer URL, as etcdctl member add prints ETCD_INITIAL_CLUSTER. */
export function initialClusterOf(
  members: Array<{ ID: string; name: string; peerURLs: string[] }>,
  added: { id: string; name: string },
): string {
  return members
    .flatMap((m) => m.peerURLs.map((url) => `${m.ID === added.id ? added.name : m.name}=${url}`))
    .join(',');
}

export function joinInstructions(spec: JoinSpec): string[] {
  const then =
    spec.promote === 'auto'
      ? 'etcd-doctor watches it catch up and promotes it'
      : 'etcd-doctor watches it catch up and then offers a Promote button';
  const flags = `--name ${spec.name} --initial-advertise-peer-urls ${spec.peerUrls.join(',')} --initial-cluster-state existing --initial-cluster ${spec.initialCluster}`;
  const lines = [
    `*How to start ${spec.name} again*: it is in the member list as a learner (id ${spec.id}), not started; ${then}.`,
    `1. On its machine, stop etcd if anything of it runs, and give it an *empty data dir*: move the old one aside (its WAL belongs to the removed member, whose ID the cluster now refuses).`,
    `2. Start etcd with the same name and peer URLs, joining the existing cluster (keep its other flags: client URLs, TLS files, data dir):`,
    `\`${flags}\``,
  ];
  if (spec.distribution === 'kubeadm')
    lines.push(
      `kubeadm: on node ${spec.name}, \`mv ${KUBEADM_ETCD_DATA_DIR} ${KUBEADM_ETCD_DATA_DIR}.removed\`, then \`kubeadm join phase control-plane-join etcd --control-plane --config <the node's join configuration>\`: it finds the member already added (same peer URL) and writes the static pod ${KUBEADM_ETCD_MANIFEST} with \`--initial-cluster-state=existing\`. Or edit ${KUBEADM_ETCD_MANIFEST} yourself: \`--initial-cluster-state=existing\` and \`--initial-cluster=${spec.initialCluster}\`; the kubelet starts it.`,
    );
  lines.push(
    `Do not start it as a new cluster (\`--initial-cluster-state new\`) and do not reuse the old data dir: either makes a member the cluster refuses.`,
  );
  return lines;
}
