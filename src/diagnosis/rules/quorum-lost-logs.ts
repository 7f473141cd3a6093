import type { Evidence } from '../../probes/evidence.js';
import type { ContainerLogScan } from '../../probes/kubernetes/evidence.js';
import { quorumOf } from '../../etcd/quorum.js';
import { formatList } from '../../format.js';
import type { Finding, Severity } from '../finding.js';
import type { Rule } from '../rule.js';
import { kubernetesOf, memberOfScan, scansOf, unique } from '../support/kubernetes.js';
import { formatSpan, peerWitnesses } from '../support/logs.js';
import { memberNameById, participating } from '../support/members.js';

/**
 * Campaigns at rising terms before a member's view counts as no quorum: one campaign that did not
 * win, then another at a higher term. A member cut off from its peers starts an election every
 * election timeout (1 s by default) at a rising term (etcd-fault-signatures.md: "it logs `is starting
 * a new election` every second or so"). With every peer it needs unreachable and none answering its
 * votes, a second campaign is enough; one alone is an ordinary election (inference).
 */
export const CAMPAIGNS_MIN = 2;

export interface View {
  member: string;
  scan: ContainerLogScan;
  size: number;
  unreachable: string[];
  campaigns: number;
  maxTerm: number;
  /**
   * Its vote requests carry only raft's bootstrap entries (logterm 1, an index no higher than the
   * voters: one ConfChange per initial member, raft/bootstrap.go): no leader ever reached it, so
   * there is no quorum it lost; cluster-never-formed reports it.
   */
  neverFormed: boolean;
}

/**
 * Quorum lost as one member sees it, from its log: it campaigns again and again at a rising term
 * (raft `became candidate at term N`, `became pre-candidate`) and cannot reach enough peers to win
 * (rafthttp `prober detected unhealthy status` / `health check for peer … could not connect`, `peer
 * became inactive`, never active again), and no peer answered its vote requests (raft `received
 * MsgVoteResp … from <peer>`). The cluster size is the member list's voters, else the peers it asked
 * for votes. It is one member's view: the others may reach each other and have a leader. Another
 * member's log with a leader elected, or a member that answers with a leader, says so: then the
 * member is cut off (peer-network), and this rule is silent. Live, the quorum-lost rule decides.
 */
export const quorumLostLogsRule: Rule = {
  name: 'quorum-lost-logs',
  cause: 'quorum-lost',
  needs: ['kubernetes'],
  rank: 0,
  explains: ['leader-churn', 'slow-reads', 'control-plane-restarts', 'apiserver-latency'],
  evaluate(evidence) {
    if (evidence.members.some(participating))
      return { explain: ['members answer with a leader: the quorum-lost rule decides'] };
    const all = isolatedViews(evidence);
    const views = all.filter((v) => !v.neverFormed);
    const unformed = all.filter((v) => v.neverFormed).map((v) => v.member);
    const explain = [
      views.length
        ? views
            .map(
              (v) =>
                `${v.member}: reaches ${v.size - 1 - v.unreachable.length} of ${v.size - 1} peers, ${v.campaigns} campaigns`,
            )
            .join('; ')
        : `no member's log shows it campaigning ${CAMPAIGNS_MIN} times without a leader while it reaches too few peers`,
      ...(unformed.length
        ? [
            `${formatList(unformed)}: never reached by a leader (bootstrap entries only): cluster-never-formed decides`,
          ]
        : []),
    ];
    const led = ledElsewhere(evidence, views);
    if (views.length === 0 || led) return { explain: led ? [...explain, led] : explain };
    const members = views.map((v) => v.member);
    const scansSeen = unique(scansOf(kubernetesOf(evidence), 'etcd').map((s) => memberOfScan(evidence, s)));
    const everyone =
      scansSeen.every((m) => members.includes(m)) && members.length >= quorumOf(views[0]?.size ?? 1);
    const severity: Severity = everyone ? 'critical' : 'warning';
    const first = views[0] as View;
    const finding: Finding = {
      cause: 'quorum-lost',
      severity,
      members,
      nodes: [],
      summary: everyone
        ? `Quorum is lost: ${formatList(members)} reach${members.length === 1 ? 'es' : ''} too few peers to elect a leader and keep campaigning without one (etcd logs)`
        : `Quorum is lost as ${first.member} sees it: it cannot reach ${formatList(first.unreachable)} and campaigned ${first.campaigns} times without a leader (term ${first.maxTerm}). This is one member's view: if the other members reach each other they have a leader and only ${first.member} is cut off`,
      evidence: views.map(describe),
      steps: [
        {
          text: `Check the path from ${formatList(members)} to its peers on the peer port (\`nc -zv <peer-ip> 2380\` from its node), and whether the peers run: \`etcdctl endpoint status --cluster\` from another member says whether they have a leader without it`,
        },
        {
          text: 'If the peers are down, bring them back one at a time; do not remove members or restore a snapshot while quorum may only look lost from one side (etcd disaster recovery guide)',
        },
      ],
      unknowns: everyone
        ? []
        : ["the other members' view: their logs are not in the collection, or say nothing of a leader"],
    };
    return { finding, explain: [...explain, `fired: ${formatList(members)} (${severity})`] };
  },
};

/** Each member whose log shows it campaigning again and again while it reaches too few peers to win. */
export function isolatedViews(evidence: Evidence): View[] {
  const listed = evidence.memberList.ok ? evidence.memberList.data.filter((m) => !m.isLearner).length : 0;
  return peerWitnesses(scansOf(kubernetesOf(evidence), 'etcd')).flatMap((scan): View[] => {
    const s = scan.signals;
    // The first candidacy and each one at a higher term than the last; with pre-vote the term
    // stays, and each `became pre-candidate` is a campaign.
    const rising = s.candidacies && s.candidacies.count > 0 ? s.candidacies.risingTerms + 1 : 0;
    const campaigns = Math.max(rising, s.campaign?.preCandidacies ?? 0);
    if (campaigns < CAMPAIGNS_MIN) return [];
    const answered = s.campaign?.answeredBy ?? [];
    // Unreachable: a peer its probes and streams lost and never found again, or one it asked for
    // votes in every campaign and that never answered.
    const unreachable = unique([
      ...s.peerUnreachable
        .filter((p) => !(p.lastActiveAt && p.lastSeenAt && p.lastActiveAt >= p.lastSeenAt))
        .map((p) => p.peerId),
      ...(s.campaign?.askedPeers ?? []),
    ]).filter((id) => !answered.includes(id));
    const peers = unique([
      ...(s.campaign?.askedPeers ?? []),
      ...s.peerUnreachable.map((p) => p.peerId),
      ...answered,
    ]);
    const size = Math.max(listed, peers.length + 1);
    if (size < 2 || size - unreachable.length >= quorumOf(size)) return [];
    if (leaderAfterCampaigns(scan)) return [];
    const member = memberOfScan(evidence, scan);
    const names = unreachable.map((id) => memberNameById(evidence, id));
    const last = s.campaign?.lastLog;
    const neverFormed = last !== undefined && last.term <= 1 && last.index <= size;
    return [
      {
        member,
        scan,
        size,
        unreachable: names,
        campaigns,
        maxTerm: s.candidacies?.maxTerm ?? 0,
        neverFormed,
      },
    ];
  });
}

/** The member saw a leader elected after its last campaign (or, without times, more elections than starts). */
function leaderAfterCampaigns(scan: ContainerLogScan): boolean {
  const s = scan.signals;
  const lastCampaign = s.candidacies?.lastSeenAt;
  const lastElected = s.leaderElected.lastSeenAt;
  if (lastCampaign && lastElected) return lastElected > lastCampaign;
  return s.leaderElected.count > s.startingMember.count + s.restartingMember.count;
}

/**
 * Another member had a leader while this one campaigned: it logged a leader elected and did not
 * lose it after, and its log goes on past the first campaign. Then the others keep quorum.
 */
function ledElsewhere(evidence: Evidence, views: View[]): string | undefined {
  const isolated = new Set(views.map((v) => v.member));
  const from = views
    .map((v) => v.scan.signals.candidacies?.firstSeenAt)
    .filter(Boolean)
    .sort()[0];
  const other = scansOf(kubernetesOf(evidence), 'etcd').find((scan) => {
    if (isolated.has(memberOfScan(evidence, scan))) return false;
    const { leaderElected: elected, leaderLost: lost } = scan.signals;
    if (elected.count === 0) return false;
    const keptLeader = lost.count === 0 || (lost.lastSeenAt ?? '') < (elected.lastSeenAt ?? '');
    const electedSince = from !== undefined && elected.lastSeenAt !== undefined && elected.lastSeenAt >= from;
    const logsOn = !from || !scan.lastLineAt || scan.lastLineAt >= from;
    return (keptLeader && logsOn) || electedSince;
  });
  return other
    ? `${memberOfScan(evidence, other)}'s log has a leader meanwhile: the others keep quorum`
    : undefined;
}

export function describe(v: View): string {
  const c = v.scan.signals.candidacies;
  const span = formatSpan(c?.firstSeenAt, c?.lastSeenAt);
  return `${v.member}: ${v.campaigns} campaigns without a leader (term ${v.maxTerm})${span ? `, ${span}` : ''}; cannot reach ${formatList(v.unreachable)} (${v.size} voting members, quorum ${quorumOf(v.size)})`;
}
