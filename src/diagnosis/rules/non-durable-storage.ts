import type { Evidence } from '../../probes/evidence.js';
import type { EtcdPodSpec, KubernetesEvidence, WarningEvent } from '../../probes/kubernetes/evidence.js';
import { formatAge, formatList } from '../../format.js';
import type { Finding, Severity } from '../finding.js';
import type { Rule } from '../rule.js';
import {
  countIn,
  dataOf,
  failureText,
  kubernetesOf,
  nodesOfMembers,
  scansOfPod,
  unique,
} from '../support/kubernetes.js';
import { describeSignal, etcdSignalByMember } from '../support/logs.js';

/** kubelet records `Rebooted` when a node's boot id changes (NodeRebooted event). */
const REBOOTED = 'Rebooted';

interface Problem {
  spec: EtcdPodSpec;
  severity: Severity;
  text: string;
}

/**
 * F8 (KB §1.1, R8): etcd data that does not survive. An emptyDir with `medium: Memory` is tmpfs
 * and is cleared on reboot (Kubernetes docs, volumes "emptyDir"); any emptyDir is deleted with
 * its pod; `--unsafe-no-fsync` "Disables fsync, unsafe, will cause data loss." (WEB
 * configuration.md). The aftermath: a member that starts with an empty WAL (`starting member`,
 * not `restarting member`) and panics with `tocommit(...) is out of range`.
 */
export const nonDurableStorageRule: Rule = {
  name: 'non-durable-storage',
  cause: 'non-durable-storage',
  needs: ['kubernetes'],
  // A data dir lost on a reboot restarts the member as a new cluster: its peers log cluster ID mismatch.
  explains: ['member-down', 'cluster-mismatch'],
  rank: 8,
  evaluate(evidence, ctx) {
    const k = kubernetesOf(evidence);
    const specs = dataOf(k?.etcdPods);
    if (!k || !specs)
      return lostLogOnly(evidence, `no etcd pod specs: ${failureText(k?.etcdPods, 'etcd pods')}`);
    const problems = specs.flatMap((spec) => [...configProblems(spec), ...aftermath(k, spec, ctx.now)]);
    const explain = specs.map(
      (s) =>
        `${s.pod}: data dir ${s.dataDir ?? '?'} on ${describeVolume(s)}, unsafe-no-fsync ${s.unsafeNoFsync}`,
    );
    if (problems.length === 0) return { explain };
    return {
      finding: buildFinding(evidence, problems),
      explain: [...explain, ...problems.map((p) => p.text)],
    };
  },
};

/**
 * Without the pod specs (a log given alone): raft's panic `tocommit(N) is out of range
 * [lastIndex(M)]. Was the raft log corrupted, truncated, or lost?` (raft/log.go commitTo, every
 * version) says the member's log lacks entries it had acknowledged, so its data dir did not keep
 * what it wrote: tmpfs, --unsafe-no-fsync, a cache that lies about fsync, or a data dir replaced by
 * an older copy (etcd-io/etcd#12483). Which, the log cannot tell: a warning that names them.
 */
function lostLogOnly(evidence: Evidence, why: string): { finding?: Finding; explain: string[] } {
  const lost = etcdSignalByMember(evidence, (s) => s.signals.tocommitOutOfRange);
  const explain = [
    why,
    `raft log lost (tocommit out of range): ${lost.map((l) => `${l.member} ${l.count}`).join(', ') || 'none'}`,
  ];
  if (lost.length === 0) return { explain };
  const members = lost.map((l) => l.member);
  const finding: Finding = {
    cause: 'non-durable-storage',
    severity: 'warning',
    members,
    nodes: nodesOfMembers(evidence, members),
    summary: `${formatList(members)} lost raft log entries it had acknowledged (tocommit out of range): its data dir did not keep what it wrote`,
    evidence: lost.map(
      (l) =>
        `${l.member}: ${describeSignal(l, 'tocommit(…) is out of range')}${l.example ? `; e.g. ${l.example}` : ''}`,
    ),
    steps: [
      {
        text: `Find where ${formatList(members)} keeps its data dir: tmpfs or an emptyDir with medium Memory, --unsafe-no-fsync, a disk whose write cache lies about fsync, or a data dir restored from an older copy (KB R8)`,
      },
      {
        text: 'A member that lost its data is a failed member: remove it, then add it back empty (etcd runtime-configuration "Replace a failed machine")',
      },
    ],
    unknowns: ['only logs: where the data dir lives is not in them (the pod spec, the mount)'],
  };
  return { finding, explain: [...explain, `fired: ${formatList(members)}`] };
}

function describeVolume(spec: EtcdPodSpec): string {
  const v = spec.dataVolume;
  if (v.kind === 'hostPath') return `hostPath ${v.path}`;
  if (v.kind === 'emptyDir') return v.medium ? `emptyDir (medium: ${v.medium})` : 'emptyDir';
  if (v.kind === 'other') return `a ${v.source} volume`;
  return 'no volume (the container layer)';
}

function configProblems(spec: EtcdPodSpec): Problem[] {
  const out: Problem[] = [];
  const where = `${spec.pod} keeps its data dir ${spec.dataDir ?? ''}`.trimEnd();
  const v = spec.dataVolume;
  if (v.kind === 'emptyDir' && v.medium === 'Memory') {
    out.push({
      spec,
      severity: 'critical',
      text: `${where} on an emptyDir with medium: Memory (tmpfs): a reboot or power-off erases the member's data`,
    });
  } else if (v.kind === 'emptyDir') {
    out.push({
      spec,
      severity: 'warning',
      text: `${where} on an emptyDir: it is deleted when the pod leaves the node`,
    });
  } else if (v.kind === 'none') {
    out.push({
      spec,
      severity: 'warning',
      text: `${where} on no volume: it lives in the container's writable layer and goes with the container`,
    });
  }
  if (spec.unsafeNoFsync) {
    out.push({
      spec,
      severity: 'critical',
      text: `${spec.pod} runs with --unsafe-no-fsync: "Disables fsync, unsafe, will cause data loss." (etcd configuration docs)`,
    });
  }
  return out;
}

/** A reboot followed by a fresh WAL or the raft panic means the member lost its data. */
function aftermath(k: KubernetesEvidence, spec: EtcdPodSpec, now: number): Problem[] {
  const scans = scansOfPod(k, spec.namespace, spec.pod);
  const tocommit = countIn(scans, (s) => s.tocommitOutOfRange);
  const starting = countIn(scans, (s) => s.startingMember);
  const reboot = spec.node ? rebootOf(k, spec.node) : undefined;
  const restarted = dataOf(k.pods)?.find((p) => p.name === spec.pod)?.main?.restartCount ?? 0;
  const rebootText = reboot
    ? `${spec.node} rebooted ${reboot.lastSeen ? `${formatAge(now - reboot.lastSeen)} ago` : 'recently'} (${reboot.message})`
    : undefined;
  const out: Problem[] = [];
  if (tocommit.count > 0) {
    out.push({
      spec,
      severity: 'critical',
      text: `${spec.pod} panicked ${tocommit.count}×: ${tocommit.example ?? 'tocommit(...) is out of range'}${rebootText ? `; ${rebootText}` : ''}`,
    });
  }
  if (starting.count > 0 && (reboot || restarted > 0)) {
    out.push({
      spec,
      severity: 'critical',
      text: `${spec.pod} started with an empty WAL ("starting member", not "restarting member") after ${rebootText ?? `${restarted} restarts`}: its data dir did not survive`,
    });
  }
  return out;
}

function rebootOf(k: KubernetesEvidence, node: string): WarningEvent | undefined {
  return dataOf(k.events)?.find(
    (e) => e.reason === REBOOTED && e.object.kind === 'Node' && e.object.name === node,
  );
}

function buildFinding(evidence: Evidence, problems: Problem[]): Finding {
  const specs = unique(problems.map((p) => p.spec));
  const members = unique(specs.flatMap((s) => s.memberName ?? []));
  const nodes = unique(specs.flatMap((s) => s.node ?? []));
  const critical = problems.some((p) => p.severity === 'critical');
  const lostData = problems.some((p) => /panicked|empty WAL/.test(p.text));
  const first = problems[0];
  const summary = lostData
    ? `etcd on ${formatList(nodes)} lost its data: ${specs.map((s) => `${s.pod} keeps it on ${describeVolume(s)}`).join('; ')}, and the member came back empty`
    : `etcd data on ${formatList(nodes)} is not durable: ${first?.text ?? ''}`;
  return {
    cause: 'non-durable-storage',
    severity: critical ? 'critical' : 'warning',
    members,
    nodes,
    summary,
    evidence: problems.map((p) => p.text),
    steps: [
      {
        text: 'Take an etcdctl snapshot save from a healthy member now, before any change (etcd maintenance guide)',
      },
      {
        text: `Put the data dir of ${formatList(members.length > 0 ? members : nodes)} back on persistent local storage (a hostPath on an SSD; never tmpfs or --unsafe-no-fsync) (KB R8)`,
      },
      {
        text: 'A member that lost its data is a failed member: remove it, then add it back empty (etcd runtime-configuration "Replace a failed machine"); if a majority lost data, restore from the snapshot into a new cluster',
      },
      { text: 'If the disk was moved to tmpfs because it is slow: fix the disk instead (see slow-disk)' },
    ],
    unknowns: [
      'the filesystem under a hostPath is not visible through the API: a hostPath on a tmpfs mount looks durable here',
      ...(evidence.kubernetes?.ok && !evidence.kubernetes.data.logs.ok
        ? [`no etcd logs: ${evidence.kubernetes.data.logs.failure.message}`]
        : []),
    ],
  };
}
