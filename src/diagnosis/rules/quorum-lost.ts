import { formatList } from '../../report/format.js';
import type { Finding } from '../finding.js';
import type { Rule } from '../rule.js';
import { clusterSize, failureOf, participating, quorumOf } from './support.js';

/**
 * Fewer members take part in consensus than quorum (⌊n/2⌋+1, WEB faq.md). With 2 of 3 gone the
 * survivor has no leader (`etcd_server_has_leader 0`) and writes fail after 3 s
 * (etcd-fault-signatures.md). MIXIN etcdInsufficientMembers: healthy < (count+1)/2 for 3m, critical.
 */
export const quorumLostRule: Rule = {
  name: 'quorum-lost',
  cause: 'quorum-lost',
  needs: [],
  explains: ['member-down', 'leader-churn', 'slow-reads', 'control-plane-restarts', 'apiserver-latency'],
  rank: 0,
  evaluate(evidence) {
    const size = clusterSize(evidence);
    const quorum = quorumOf(size);
    const live = evidence.members.filter(participating);
    const explain = [`${live.length} of ${size} members take part in consensus; quorum is ${quorum}`];
    if (size === 0 || live.length >= quorum) return { explain };
    const lost = evidence.members.filter((m) => !participating(m));
    const names = lost.map((m) => m.target.name);
    const finding: Finding = {
      cause: 'quorum-lost',
      severity: 'critical',
      members: names,
      nodes: [],
      summary: `Quorum is lost: only ${live.length} of ${size} members work (quorum is ${quorum}); ${formatList(names)} ${names.length === 1 ? 'is' : 'are'} out, and the cluster accepts no writes`,
      evidence: lost.map((m) => {
        if (m.status.ok)
          return `${m.target.name} answers but sees no leader (raft term ${m.status.data.raftTerm})`;
        return failureOf(m.status) ?? `${m.target.name} did not answer`;
      }),
      steps: [
        {
          text: `Bring back ${formatList(names)} one at a time, starting with the member whose data is most recent; do not remove members while quorum is lost`,
        },
        {
          text: 'If a majority lost its data: restore from the latest snapshot into a new cluster (etcd recovery guide, `etcdutl snapshot restore`)',
        },
      ],
      unknowns: [],
    };
    return { finding, explain: [...explain, `fired: ${formatList(names)} out`] };
  },
};
