/**
 * The plan to get quorum back (etcd disaster recovery, https://etcd.io/docs/v3.5/op-guide/recovery/
 * and runtime-configuration.md "Restart cluster from majority failure"; OpenShift's "Restoring etcd
 * quorum" and "Restoring to a previous cluster state"; etcd-io/etcd#20217 asks for the best member
 * to restore from). Pure: the input is what a diagnosis read. etcd-doctor runs none of the steps:
 * with no quorum there is nothing left to guard them, so a person runs each, checking as told.
 */

export interface RecoveryMember {
  name: string;
  endpoint: string;
  peerUrl?: string;
  dataDir?: string;
  node?: string;
  /** Status, when the member answered. */
  status?: { revision: number; raftIndex: number; term: number; appliedIndex: number };
  /** A member that does not answer: where the watch last saw it (its minute history), if it did. */
  lastSeen?: LastSeen;
}

/** A down member's last state as the watch's history holds it. */
export interface LastSeen {
  /** ISO time of the watch check that saw it. */
  at: string;
  /** How long before this plan, in minutes. */
  ageMinutes: number;
  revision: number;
  term: number;
  raftIndex: number;
}

export interface RecoveryInput {
  cluster: string;
  members: RecoveryMember[];
  /** The newest verified snapshot, when the cluster has backups. */
  backup?: { file: string; revision: number | null; ageHours: number };
  distribution: 'kubeadm' | 'openshift' | 'unknown';
}

export interface RecoveryCandidate {
  member: string | null;
  source: 'member' | 'backup' | 'down';
  revision: number | null;
  raftIndex: number | null;
  term: number | null;
  appliedIndex: number | null;
  /** Revisions behind the best candidate; null when not known. */
  behind: number | null;
  note: string;
  /** A down member's last known state, from the watch's history (absent when the watch never saw it). */
  lastSeen?: LastSeen;
}

export interface RecoveryStep {
  on: string;
  action: string;
  command: string;
}

/** The JSON of `etcd-doctor recover --json` (docs/cli.md). */
export interface RecoveryPlanJson {
  cluster: string;
  restoreFrom: {
    member: string | null;
    source: 'member' | 'backup';
    revision: number | null;
    raftIndex: number | null;
    term: number | null;
    file?: string;
  } | null;
  candidates: RecoveryCandidate[];
  dataAtRisk: string;
  steps: RecoveryStep[];
}

function candidatesOf(input: RecoveryInput): RecoveryCandidate[] {
  const out: RecoveryCandidate[] = input.members.map((m) =>
    m.status
      ? {
          member: m.name,
          source: 'member',
          revision: m.status.revision,
          raftIndex: m.status.raftIndex,
          term: m.status.term,
          appliedIndex: m.status.appliedIndex,
          behind: null,
          note: `answers Status: revision ${m.status.revision}, raft term ${m.status.term}, index ${m.status.raftIndex}, applied ${m.status.appliedIndex}`,
        }
      : {
          member: m.name,
          source: 'down',
          revision: null,
          raftIndex: null,
          term: null,
          appliedIndex: null,
          behind: null,
          note: m.lastSeen
            ? `does not answer; the watch last saw it ${ageWords(m.lastSeen.ageMinutes)} (${m.lastSeen.at}) at revision ${m.lastSeen.revision}, raft term ${m.lastSeen.term}, index ${m.lastSeen.raftIndex}`
            : 'does not answer: its data may be gone, and its last state is not known here',
          ...(m.lastSeen ? { lastSeen: m.lastSeen } : {}),
        },
  );
  if (input.backup)
    out.push({
      member: null,
      source: 'backup',
      revision: input.backup.revision,
      raftIndex: null,
      term: null,
      appliedIndex: null,
      behind: null,
      note: `${input.backup.file}, verified, ${input.backup.ageHours.toFixed(1)} h old`,
    });
  return out;
}

/** Highest revision, then raft index, then applied index; a member before a backup at the same revision. */
function rank(a: RecoveryCandidate, b: RecoveryCandidate): number {
  return (
    (b.revision ?? -1) - (a.revision ?? -1) ||
    (b.raftIndex ?? -1) - (a.raftIndex ?? -1) ||
    (b.appliedIndex ?? -1) - (a.appliedIndex ?? -1) ||
    (a.source === 'member' ? -1 : 0) - (b.source === 'member' ? -1 : 0)
  );
}

export function planRecovery(input: RecoveryInput): RecoveryPlanJson {
  const candidates = candidatesOf(input);
  const usable = candidates.filter((c) => c.source !== 'down' && c.revision !== null).sort(rank);
  const best = usable[0];
  for (const c of candidates)
    if (best && c.revision !== null && best.revision !== null) c.behind = best.revision - c.revision;
  const restoreFrom = best
    ? {
        member: best.member,
        source: best.source as 'member' | 'backup',
        revision: best.revision,
        raftIndex: best.raftIndex,
        term: best.term,
        ...(best.source === 'backup' && input.backup ? { file: input.backup.file } : {}),
      }
    : null;
  return {
    cluster: input.cluster,
    restoreFrom,
    candidates,
    dataAtRisk: dataAtRiskOf(candidates, best),
    steps: best ? stepsFor(input, best) : [],
  };
}

function ageWords(minutes: number): string {
  if (minutes < 1) return 'under a minute ago';
  if (minutes < 120) return `${Math.round(minutes)} min ago`;
  return `${(minutes / 60).toFixed(1)} h ago`;
}

function dataAtRiskOf(candidates: RecoveryCandidate[], best: RecoveryCandidate | undefined): string {
  if (!best) return 'No member answers and no verified backup exists: there is nothing to restore from.';
  const down = candidates.filter((c) => c.source === 'down').map((c) => c.member);
  const parts = [
    `Restoring from ${best.member ?? 'the backup'} keeps revision ${best.revision}.`,
    ...candidates
      .filter((c) => c !== best && c.source !== 'down' && c.behind !== null)
      .map(
        (c) =>
          `${c.member ?? 'The backup'} is ${c.behind} revision${c.behind === 1 ? '' : 's'} behind it (choosing it loses those).`,
      ),
  ];
  for (const c of candidates) {
    if (c.source !== 'down' || !c.lastSeen || best.revision === null) continue;
    const ahead = c.lastSeen.revision - best.revision;
    parts.push(
      ahead > 0
        ? `${c.member} was last seen at revision ${c.lastSeen.revision}, ${ahead} ahead of ${best.member ?? 'the backup'}: if its data dir survives, check it first (etcdutl snapshot status <data dir>/member/snap/db); restoring elsewhere loses those revisions.`
        : `${c.member} was last seen at revision ${c.lastSeen.revision}, not ahead of ${best.member ?? 'the backup'}.`,
    );
  }
  if (down.length)
    parts.push(
      `${down.join(', ')} ${down.length === 1 ? 'does' : 'do'} not answer: a write only ${down.length === 1 ? 'it' : 'they'} acknowledged (past revision ${best.revision}) is lost; if one of them still has its data dir, read its revision first (etcdutl snapshot status <data dir>/member/snap/db).`,
    );
  return parts.join(' ');
}

function stepsFor(input: RecoveryInput, best: RecoveryCandidate): RecoveryStep[] {
  if (best.source === 'backup') return restoreSteps(input);
  const chosen = input.members.find((m) => m.name === best.member);
  if (!chosen) return [];
  return input.distribution === 'openshift' ? openshiftSteps(chosen) : forceNewClusterSteps(input, chosen);
}

const dir = (m: RecoveryMember) => m.dataDir ?? `<data dir of ${m.name}>`;
const peer = (m: RecoveryMember) => m.peerUrl ?? `<peer URL of ${m.name}>`;

/** systemd and kubeadm static pods: --force-new-cluster on the chosen member, the others back as learners. */
function forceNewClusterSteps(input: RecoveryInput, m: RecoveryMember): RecoveryStep[] {
  const kubeadm = input.distribution === 'kubeadm';
  const ep = `etcdctl --endpoints=${m.endpoint}`;
  const steps: RecoveryStep[] = [
    {
      on: 'every member',
      action: 'Stop etcd everywhere, so that nothing writes while you recover',
      command: kubeadm
        ? 'mv /etc/kubernetes/manifests/etcd.yaml /etc/kubernetes/etcd.yaml.recovery'
        : 'systemctl stop etcd',
    },
    {
      on: m.name,
      action: `Keep a copy of ${m.name}'s data dir before anything changes it`,
      command: `cp -a ${dir(m)} ${dir(m)}.before-recovery`,
    },
    {
      on: m.name,
      action: `Start ${m.name} once with --force-new-cluster: it becomes a one-member cluster holding its data`,
      command: kubeadm
        ? 'add "- --force-new-cluster" to the etcd command in /etc/kubernetes/etcd.yaml.recovery, then mv it back to /etc/kubernetes/manifests/etcd.yaml'
        : 'etcd <its usual flags> --force-new-cluster',
    },
    {
      on: m.name,
      action: `Check that it serves before going on: one member, itself the leader, revision ${m.status?.revision}`,
      command: `${ep} endpoint status -w table && ${ep} member list -w table`,
    },
    {
      on: m.name,
      action:
        'Restart it without --force-new-cluster (left in, every start would reset the membership again)',
      command: kubeadm
        ? 'remove the --force-new-cluster line from /etc/kubernetes/manifests/etcd.yaml (the kubelet restarts etcd)'
        : 'stop it, then start etcd with its usual flags (systemctl start etcd)',
    },
  ];
  for (const x of input.members.filter((o) => o.name !== m.name)) steps.push(...addBackSteps(m, x, ep));
  return steps;
}

/** One member back, as the Replace flow does it: an empty data dir, added as a learner, promoted. */
function addBackSteps(m: RecoveryMember, x: RecoveryMember, ep: string): RecoveryStep[] {
  return [
    {
      on: x.name,
      action: `Move ${x.name}'s old data dir aside: it belongs to the old cluster`,
      command: `mv ${dir(x)} ${dir(x)}.old`,
    },
    {
      on: m.name,
      action: `Add ${x.name} back as a learner (the Replace ${x.name} button of a diagnosis does this and the next two steps)`,
      command: `${ep} member add ${x.name} --learner --peer-urls=${peer(x)}`,
    },
    {
      on: x.name,
      action: `Start ${x.name} on its empty data dir, joining the cluster`,
      command:
        'etcd <its usual flags> --initial-cluster-state=existing --initial-cluster=<the ETCD_INITIAL_CLUSTER line member add printed>',
    },
    {
      on: m.name,
      action: `Once ${x.name} has caught up, promote it; check health before the next member`,
      command: `${ep} member promote <ID of ${x.name} from member list> && ${ep} endpoint health --cluster`,
    },
  ];
}

/** OpenShift: its documented quorum restore on the host of the chosen member. */
function openshiftSteps(m: RecoveryMember): RecoveryStep[] {
  const host = m.node ?? m.name;
  return [
    {
      on: 'every other control-plane node',
      action:
        'Stop etcd there: move its static pod manifest out of the manifests directory and its data dir aside',
      command: 'sudo mv -v /etc/kubernetes/manifests/etcd-pod.yaml /tmp && sudo mv -v /var/lib/etcd/ /tmp',
    },
    {
      on: host,
      action: `Restore quorum from ${m.name}'s data (revision ${m.status?.revision}): OpenShift's quorum restore keeps this member and makes it a one-member cluster`,
      command: 'sudo -E /usr/local/bin/quorum-restore.sh',
    },
    {
      on: 'a control-plane node missing /etc/kubernetes/manifests/etcd-pod.yaml',
      action:
        'The manifest of each revision is kept under static-pod-resources; the etcd operator writes it again on a forced redeployment',
      command:
        'ls /etc/kubernetes/static-pod-resources/etcd-pod-*/etcd-pod.yaml; oc patch etcd cluster -p=\'{"spec": {"forceRedeploymentReason": "recovery-\'"$( date --rfc-3339=ns )"\'"}}\' --type=merge',
    },
    {
      on: 'any host with oc',
      action: 'Check that every member is back before anything else',
      command:
        'oc get etcd -o=jsonpath=\'{range .items[0].status.conditions[?(@.type=="EtcdMembersAvailable")]}{.message}{"\\n"}{end}\'',
    },
  ];
}

/** No member has data: every member from the verified snapshot (etcdutl snapshot restore). */
function restoreSteps(input: RecoveryInput): RecoveryStep[] {
  const file = input.backup?.file ?? '<snapshot>';
  const initial = input.members.map((m) => `${m.name}=${peer(m)}`).join(',');
  const steps: RecoveryStep[] = [
    {
      on: 'every member',
      action: 'Stop etcd everywhere and keep each old data dir aside',
      command:
        input.distribution === 'kubeadm'
          ? 'mv /etc/kubernetes/manifests/etcd.yaml /etc/kubernetes/etcd.yaml.recovery'
          : 'systemctl stop etcd',
    },
    {
      on: 'every member',
      action: `Check the snapshot first (its hash and revision)`,
      command: `etcdutl snapshot status ${file} -w table`,
    },
  ];
  for (const m of input.members)
    steps.push({
      on: m.name,
      action: `Restore the snapshot into a new data dir for ${m.name}`,
      command: `etcdutl snapshot restore ${file} --name ${m.name} --initial-cluster ${initial} --initial-cluster-token ${input.cluster}-restored --initial-advertise-peer-urls ${peer(m)} --data-dir ${dir(m)}.restored`,
    });
  steps.push({
    on: 'every member',
    action: 'Point each member at its restored data dir and start them all; check health',
    command: 'etcdctl endpoint health --cluster',
  });
  return steps;
}
