import type { MemberEvidence } from '../../probes/evidence.js';
import { formatList } from '../../report/format.js';
import type { Finding } from '../finding.js';
import type { Rule } from '../rule.js';
import { answered, clusterSize, failureOf, quorumOf } from './support.js';

/**
 * A member that answers neither Status nor a read. A refused connection means the process is
 * gone; a timeout with the port open means it is hung (SIGSTOP, D-state I/O): etcd-fault-signatures.md.
 * Failure tolerance is n − quorum (WEB faq.md "What is failure tolerance?": 3→1, 5→2, 7→3).
 */
export const memberDownRule: Rule = {
  name: 'member-down',
  cause: 'member-down',
  needs: [],
  explains: ['leader-churn', 'slow-reads', 'peer-network'],
  rank: 10,
  evaluate(evidence) {
    const down = evidence.members.filter((m) => !answered(m));
    const size = clusterSize(evidence);
    const quorum = quorumOf(size);
    const up = size - down.length;
    const explain = [`${down.length} of ${size} members did not answer; quorum is ${quorum}`];
    if (down.length === 0) return { explain };
    if (up < quorum) return { explain: [...explain, 'quorum is lost: reported by quorum-lost instead'] };
    const tolerance = up - quorum;
    const names = down.map((m) => m.target.name);
    const finding: Finding = {
      cause: 'member-down',
      severity: tolerance === 0 ? 'critical' : 'warning',
      members: names,
      nodes: [],
      summary: `${formatList(names)} ${down.length === 1 ? 'is' : 'are'} ${describeDown(down)}; ${up} of ${size} members serve, and the cluster can survive ${tolerance} more failure${tolerance === 1 ? '' : 's'}`,
      evidence: [
        ...down.map((m) => failureOf(m.status) ?? failureOf(m.health) ?? `${m.target.name} did not answer`),
        `quorum ${quorum} of ${size}; failure tolerance left: ${tolerance} (etcd FAQ: 3 members tolerate 1)`,
      ],
      steps: [
        {
          text: `Check the etcd process and node of ${formatList(names)} (kubectl -n kube-system logs etcd-<node> --previous, journalctl -u etcd)`,
        },
        ...down.map((m) => ({
          text: `Restart ${m.target.name} once it is understood why it stopped (one member at a time)`,
          action: 'restart-static-pod' as const,
          args: { member: m.target.name, component: 'etcd' },
        })),
        {
          text: 'If the member is lost for good: remove it first, then add the replacement (etcd FAQ, runtime-configuration "Replace a failed machine")',
        },
      ],
      unknowns: [],
    };
    return { finding, explain: [...explain, `fired: ${formatList(names)} down, tolerance ${tolerance}`] };
  },
};

function describeDown(down: MemberEvidence[]): string {
  const hung = down.every((m) => !m.status.ok && m.status.failure.kind === 'timeout');
  if (hung) return 'hung (the port is open but nothing answers)';
  return 'down (not answering)';
}
