import { formatList } from '../../format.js';
import type { Finding } from '../finding.js';
import type { Rule } from '../rule.js';
import { assessVantage, unseenNames } from '../vantage.js';
import { quorumOf } from '../../etcd/quorum.js';
import { clusterSize, failureOf, participating, votingMembers } from '../support/members.js';

/**
 * Fewer voting members take part in consensus than quorum (⌊n/2⌋+1, WEB faq.md). With 2 of 3
 * gone the survivor has no leader (`etcd_server_has_leader 0`) and writes fail after 3 s
 * (etcd-fault-signatures.md). MIXIN etcdInsufficientMembers: healthy < (count+1)/2 for 3m, critical.
 *
 * It needs evidence that etcd itself lost quorum: members that answer and see no leader, or the
 * apiserver failing its etcd checks and reads. Members etcd-doctor cannot check (diagnosis/vantage.ts)
 * are not counted as lost, learners never count, and a linearizable read that succeeded proves
 * quorum. A snapshot restore is never advised: it is only right when a majority lost its data.
 */
export const quorumLostRule: Rule = {
  name: 'quorum-lost',
  live: 'the members answering now',
  cause: 'quorum-lost',
  needs: [],
  explains: ['member-down', 'leader-churn', 'slow-reads', 'control-plane-restarts', 'apiserver-latency'],
  rank: 0,
  evaluate(evidence, ctx) {
    const vantage = ctx.vantage ?? assessVantage(evidence);
    const unseen = unseenNames(vantage);
    const size = clusterSize(evidence);
    const quorum = quorumOf(size);
    const voters = votingMembers(evidence);
    const live = voters.filter(participating);
    const lost = voters.filter((m) => !participating(m) && !unseen.has(m.target.name));
    const unknown = size - live.length - lost.length;
    const explain = [
      `${live.length} of ${size} voting members take part in consensus, ${lost.length} are out, ${unknown} unknown; quorum is ${quorum}`,
    ];
    if (vantage.quorumProven) return { explain: [...explain, 'a linearizable read succeeded: quorum holds'] };
    if (size === 0 || live.length + unknown >= quorum) return { explain };
    const names = lost.map((m) => m.target.name);
    const finding: Finding = {
      cause: 'quorum-lost',
      severity: 'critical',
      members: names,
      nodes: [],
      summary: `Quorum is lost: only ${live.length} of ${size} voting members work (quorum is ${quorum}); ${formatList(names)} ${names.length === 1 ? 'is' : 'are'} out, and the cluster accepts no writes`,
      evidence: [
        ...lost.map((m) => {
          if (m.status.ok)
            return `${m.target.name} answers but sees no leader (raft term ${m.status.data.raftTerm})`;
          return failureOf(m.status) ?? `${m.target.name} did not answer`;
        }),
        ...(vantage.apiserver.reachesEtcd === false ? vantage.apiserver.evidence : []),
      ],
      steps: [
        {
          text: `Bring back ${formatList(names)} one at a time, starting with the member whose data is most recent; do not remove members while quorum is lost`,
        },
        {
          text: 'Do not restore from a snapshot unless a majority of members lost their data directories: a restore builds a new cluster and drops every write since the snapshot (etcd disaster recovery guide)',
        },
        // Only when etcd-doctor saw every voter (a member it could not check may be fine) and one
        // of them answered it: with none, the plan has no member's data to choose from, and the
        // apiserver's word that etcd failed says nothing about whose data survives.
        ...(unknown === 0 && voters.some((m) => m.status.ok)
          ? [
              {
                text: 'If they cannot come back: the recovery plan says which member to restore from, what each choice loses, and the steps to run (read-only: etcd-doctor runs none of them)',
                action: 'recovery-plan' as const,
              },
            ]
          : []),
      ],
      unknowns: unknown > 0 ? [`${unknown} voting members could not be checked by etcd-doctor`] : [],
    };
    return { finding, explain: [...explain, `fired: ${formatList(names)} out`] };
  },
};
