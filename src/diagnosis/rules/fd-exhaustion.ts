import type { Evidence } from '../../probes/evidence.js';
import { formatList } from '../../format.js';
import type { Finding, Severity } from '../finding.js';
import type { Rule } from '../rule.js';
import { describeExit, etcdExits, NO_STAT, EXHAUSTED_MEMBER_EXPLAINS } from '../support/faults.js';
import { kubernetesOf, memberOfScan, nodesOfMembers, scansOf, unique } from '../support/kubernetes.js';
import { countsByMember, describeSignal, etcdSignalByMember } from '../support/logs.js';

const TOO_MANY_FILES = /too many open files/;

/**
 * A member out of file descriptors. Go returns EMFILE as `too many open files` on accept, dial and
 * open: the member then refuses new client and peer connections and cannot open WAL or snapshot
 * files (`failed to purge wal file open …: too many open files`, etcd-io/etcd#2928, #7643). etcd
 * warns first at 80 % of its limit (ETCD33 capnslog `80% of the file descriptor limit is used [used
 * = N, limit = M]`, ETCD34/35/36 zap `80% of file descriptors are used`, etcdserver/metrics.go
 * monitorFileDescriptor). Every client connection holds a descriptor (xiang90 in
 * kubernetes/kubernetes#6057); a client that never closes its connections is the usual culprit
 * (etcd-io/etcd#2928). Live and in a must-gather, an etcd container's last termination message (its
 * log tail) with the same text counts too. The warning alone is a warning; EMFILE itself, critical.
 */
export const fdExhaustionRule: Rule = {
  name: 'fd-exhaustion',
  cause: 'fd-exhaustion',
  needs: ['kubernetes'],
  rank: 5,
  explains: EXHAUSTED_MEMBER_EXPLAINS,
  evaluate(evidence) {
    const out = etcdSignalByMember(evidence, (s) => s.signals.fdExhausted ?? NO_STAT);
    const near = etcdSignalByMember(evidence, (s) => s.signals.fdNearLimit ?? NO_STAT);
    const exits = etcdExits(evidence, (t) => TOO_MANY_FILES.test(t.message ?? ''));
    const explain = [
      `too many open files: ${countsByMember(out)}; 80 % warnings: ${countsByMember(near)}; container exits on it: ${exits.length}`,
    ];
    const exhausted = unique([...out.map((s) => s.member), ...exits.map((e) => e.member)]);
    const members = unique([...exhausted, ...near.map((s) => s.member)]);
    if (members.length === 0) return { explain };
    const severity: Severity = exhausted.length > 0 ? 'critical' : 'warning';
    const limits = limitsOf(
      evidence,
      near.map((s) => s.member),
    );
    const finding: Finding = {
      cause: 'fd-exhaustion',
      severity,
      members,
      nodes: nodesOfMembers(evidence, members),
      summary:
        exhausted.length > 0
          ? `${formatList(exhausted)} ran out of file descriptors (too many open files): ${exhausted.length === 1 ? 'it refuses' : 'they refuse'} new client and peer connections and cannot open files`
          : `${formatList(members)} ${members.length === 1 ? 'has' : 'have'} used 80 % of ${members.length === 1 ? 'its' : 'their'} file descriptors${limits ? ` (${limits})` : ''}: at the limit new connections are refused`,
      evidence: [
        ...out.map((s) => `${s.member}: ${describeSignal(s, 'too many open files')}`),
        ...near.map((s) => `${s.member}: ${describeSignal(s, '80% of file descriptors used')}`),
        ...(limits ? [`etcd's last count: ${limits}`] : []),
        ...exits.map((e) => `${describeExit(e)}: ${e.termination.message ?? ''}`),
        ...[...out, ...near].slice(0, 1).flatMap((s) => (s.example ? [`e.g. ${s.example}`] : [])),
      ],
      steps: [
        {
          text: `Find who holds the connections on ${formatList(members)}: \`ls /proc/$(pidof etcd)/fd | wc -l\` against \`grep 'open files' /proc/$(pidof etcd)/limits\`, and \`ss -tn state established '( sport = :2379 )'\` counted by client address; a client that opens a connection per request and never closes it is the usual cause (etcd-io/etcd#2928)`,
        },
        {
          text: "Raise the limit where etcd runs (systemd `LimitNOFILE=`, the container runtime's `nofile` ulimit) and restart the member, one member at a time (etcd reserves 150 descriptors for itself and refuses clients beyond the rest: embed/etcd.go)",
        },
      ],
      unknowns: [],
    };
    return { finding, explain: [...explain, `fired: ${formatList(members)}`] };
  },
};

/** `master-2: 88863 of 102400 in use` from each member's last 80 % warning. */
function limitsOf(evidence: Evidence, members: string[]): string | undefined {
  const parts = scansOf(kubernetesOf(evidence), 'etcd').flatMap((scan) => {
    const stat = scan.signals.fdNearLimit;
    const member = memberOfScan(evidence, scan);
    if (!stat?.used || !stat.limit || !members.includes(member)) return [];
    return [`${member}: ${stat.used} of ${stat.limit} in use`];
  });
  return parts.length > 0 ? unique(parts).join(', ') : undefined;
}
