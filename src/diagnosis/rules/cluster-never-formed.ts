import { formatList } from '../../format.js';
import type { Finding } from '../finding.js';
import type { Rule } from '../rule.js';
import { formatSpan } from '../support/logs.js';
import { participating } from '../support/members.js';
import { isolatedViews, type View } from './quorum-lost-logs.js';

/**
 * A cluster that never formed, from a member's log: it campaigns again and again at rising terms
 * and its vote requests carry only raft's bootstrap entries (`[logterm: 1, index: N]` with N no
 * higher than its voters: raft/bootstrap.go writes one ConfChange per initial member at term 1, and
 * the first leader's entry would raise both). No leader ever reached it, and no peer answered its
 * votes: the members of a new cluster cannot reach each other on the peer port (a firewall or
 * security group, a wrong `--initial-advertise-peer-urls` or `--initial-cluster`), or its peers were
 * never started. There is no quorum that was lost (quorum-lost-logs leaves these to this rule); the
 * cause is the peer path, so `peer-network` (opsnull/follow-me-install-kubernetes-cluster#342: the
 * peer port closed in the firewall; etcd#10721, the same shape). Live, members that answer with a
 * leader say the cluster runs, and this rule is silent.
 */
export const clusterNeverFormedRule: Rule = {
  name: 'cluster-never-formed',
  cause: 'peer-network',
  needs: ['kubernetes'],
  rank: 0,
  explains: ['quorum-lost', 'leader-churn', 'slow-reads', 'control-plane-restarts', 'apiserver-latency'],
  evaluate(evidence) {
    if (evidence.members.some(participating))
      return { explain: ['members answer with a leader: the cluster has formed'] };
    const views = isolatedViews(evidence).filter((v) => v.neverFormed);
    if (views.length === 0)
      return { explain: ["no member's log shows it campaigning from raft's bootstrap entries alone"] };
    const members = views.map((v) => v.member);
    const first = views[0] as View;
    const peers = first.size - 1;
    const finding: Finding = {
      cause: 'peer-network',
      severity: 'warning',
      members,
      nodes: [],
      summary: `The cluster never formed: ${formatList(members)} ${members.length === 1 ? 'has' : 'have'} never been reached by a leader and campaign${members.length === 1 ? 's' : ''} alone (term ${first.maxTerm}); none of ${first.member}'s ${peers} peer${peers === 1 ? '' : 's'} answered a vote request. The members cannot reach each other on the peer port, or the peers were never started`,
      evidence: views.map(describeUnformed),
      steps: [
        {
          text: `From ${first.member}'s node, check each peer's peer URL (\`nc -zv <peer-ip> 2380\`): firewalls and security groups must let the members reach each other on the peer port (KB F3)`,
        },
        {
          text: "Check that every member of --initial-cluster is started, and that each one's --initial-advertise-peer-urls is the address the others dial (the same --initial-cluster and --initial-cluster-token on all)",
        },
      ],
      unknowns: ["the peers' own logs: whether they run, and whom they reach"],
    };
    return { finding, explain: [`fired: ${formatList(members)} campaign from the bootstrap entries`] };
  },
};

function describeUnformed(v: View): string {
  const c = v.scan.signals.campaign;
  const last = c.lastLog ? `[logterm: ${c.lastLog.term}, index: ${c.lastLog.index}]` : '';
  const span = formatSpan(v.scan.signals.candidacies?.firstSeenAt, v.scan.signals.candidacies?.lastSeenAt);
  return `${v.member}: ${v.campaigns} campaigns up to term ${v.maxTerm}${span ? `, ${span}` : ''}, its last entry ${last} (raft's bootstrap entries of ${v.size} members only); no answer from ${formatList(v.unreachable)}`;
}
