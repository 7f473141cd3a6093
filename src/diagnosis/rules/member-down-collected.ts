import type { Evidence } from '../../probes/evidence.js';
import { formatList } from '../../format.js';
import type { Finding, Severity } from '../finding.js';
import type { Rule } from '../rule.js';
import { memberNameById } from '../support/members.js';
import { hostOfAddress, hostOfUrl } from '../../etcd/hosts.js';
import { failureTolerance, quorumOf } from '../../etcd/quorum.js';
import { kubernetesOf, memberOfScan, scansOf, unique } from '../support/kubernetes.js';
import { earliest, formatSpan, latest, peerWitnesses } from '../support/logs.js';

/** A killed member's last line and its peers' first failure to reach it lie this close (inference: the lab saw < 1 s). */
export const LOG_END_GRACE_MS = 5000;

export interface LoggedDown {
  member: string;
  reporters: string[];
  /** When the peers first logged it unreachable, and last did. */
  firstSeenAt: string | undefined;
  lastSeenAt: string | undefined;
  /** Its own log's last line, when its log is in the collection. */
  ownLastLineAt: string | undefined;
  lastError: string | undefined;
  /** The peer address the refused or failed dials went to (`127.0.0.2:2380`). */
  address: string | undefined;
  refused: boolean;
}

/**
 * Members the etcd logs show gone: their peers lost them (`peer became inactive`, failed health
 * checks) and never logged them active again, and either the member's own log stops there or
 * the peers' dials are refused (the process is gone; etcd-fault-signatures.md). A member whose
 * log goes on is cut off, not down: peer-network-logs reports it.
 */
export function membersDownInLogs(evidence: Evidence): LoggedDown[] {
  const scans = scansOf(kubernetesOf(evidence), 'etcd');
  const byPeer = new Map<string, LoggedDown>();
  const soleHost = soleHostOf(evidence, scans);
  for (const scan of peerWitnesses(scans)) {
    const reporter = memberOfScan(evidence, scan);
    for (const p of scan.signals.peerUnreachable) {
      if (p.lastActiveAt && (!p.lastSeenAt || p.lastActiveAt >= p.lastSeenAt)) continue;
      // It dialled the reporter after its failures, from a host no other member has: it runs. etcd
      // binds its peer listeners before it dials its peers (embed.StartEtcd: startPeerListeners,
      // then etcdserver.NewServer and its rafthttp transport, v3.2.3; configurePeerListeners in
      // v3.5.0 server/embed/etcd.go), so the refused dials were history (etcd-io/etcd#8268: dials
      // refused, then the peer's own connection refused for its certificate a second later).
      if (p.dialledUsSince && soleHost(p.peerId, p.address)) continue;
      const member = memberNameById(evidence, p.peerId);
      const seen = byPeer.get(member);
      byPeer.set(member, {
        member,
        reporters: unique([...(seen?.reporters ?? []), reporter]),
        firstSeenAt: earliest(seen?.firstSeenAt, p.firstSeenAt),
        lastSeenAt: latest(seen?.lastSeenAt, p.lastSeenAt),
        ownLastLineAt: undefined,
        lastError: p.lastError ?? seen?.lastError,
        address: p.address ?? seen?.address,
        refused: (seen?.refused ?? false) || /connection refused/.test(p.lastError ?? ''),
      });
    }
  }
  return [...byPeer.values()].flatMap((d) => {
    const own = scans.filter((s) => !s.previous && memberOfScan(evidence, s) === d.member);
    const ownLast = own.map((s) => s.lastLineAt).reduce(latest, undefined);
    const stopped =
      ownLast && d.firstSeenAt && Date.parse(ownLast) <= Date.parse(d.firstSeenAt) + LOG_END_GRACE_MS;
    if (own.length > 0 ? !stopped : !d.refused) return [];
    return [{ ...d, ownLastLineAt: ownLast }];
  });
}

/**
 * Whether a peer's dial address is on a host no other member has: by the member list's peer URLs
 * and the peers the logs dialled. Members sharing a host (a lab on 127.0.0.1) make a connection
 * from it anyone's.
 */
function soleHostOf(
  evidence: Evidence,
  scans: ReturnType<typeof scansOf>,
): (peerId: string, address: string | undefined) => boolean {
  const owners = new Map<string, Set<string>>();
  const own = (host: string | undefined, who: string) => {
    if (host) owners.set(host, (owners.get(host) ?? new Set()).add(who));
  };
  for (const m of evidence.memberList.ok ? evidence.memberList.data : [])
    for (const u of m.peerUrls) own(hostOfUrl(u), memberNameById(evidence, m.id));
  for (const scan of scans)
    for (const p of scan.signals.peerUnreachable)
      own(hostOfAddress(p.address), memberNameById(evidence, p.peerId));
  return (peerId, address) => {
    const host = hostOfAddress(address);
    const who = host ? owners.get(host) : undefined;
    return who !== undefined && who.size === 1 && who.has(memberNameById(evidence, peerId));
  };
}

/**
 * A member down, from the etcd logs of collected evidence (`etcd-doctor analyze`). Live, the
 * member-down rule asks the members themselves. A member with no log and no peer naming it is
 * not in the collection: nothing is said about it.
 */
export const memberDownCollectedRule: Rule = {
  name: 'member-down-logs',
  cause: 'member-down',
  needs: ['kubernetes'],
  explains: ['leader-churn', 'slow-reads', 'peer-network'],
  rank: 10,
  evaluate(evidence) {
    const down = membersDownInLogs(evidence);
    const size = clusterSizeInLogs(evidence, down);
    const explain = [
      `${down.length} members lost by their peers and not back by the end of the logs (of ${size} seen)`,
    ];
    if (down.length === 0) return { explain };
    const names = down.map((d) => d.member);
    const up = size - down.length;
    const tolerance = failureTolerance(size, up);
    // Without a member list the logs show only the members that wrote them: no quorum to count.
    const listed = evidence.memberList.ok;
    const severity: Severity = listed && tolerance <= 0 ? 'critical' : 'warning';
    const finding: Finding = {
      cause: 'member-down',
      severity,
      members: names,
      nodes: [],
      summary: `${formatList(names)} ${names.length === 1 ? 'is' : 'are'} ${down.every(onlyRefused) ? 'down, or no longer at that address' : 'down'} (etcd logs): ${down.map(describe).join('; ')}`,
      evidence: [
        ...down.map(
          (d) =>
            `${formatList(d.reporters)} lost ${d.member}${withSpace(formatSpan(d.firstSeenAt, d.lastSeenAt))}${d.lastError ? ` (${d.lastError})` : ''} and did not log it active again`,
        ),
        ...down.flatMap((d) => (d.ownLastLineAt ? [`${d.member}'s own log ends at ${d.ownLastLineAt}`] : [])),
        listed
          ? `quorum ${quorumOf(size)} of ${size} members in the member list; failure tolerance left: ${tolerance}`
          : `cluster size not in the collection (no member list): ${size} members seen in the logs, so no quorum is counted`,
      ],
      steps: [
        {
          text: `Check the etcd process and node of ${formatList(names)} (journalctl -u etcd, crictl ps -a, kubectl -n kube-system logs etcd-<node> --previous)${down.some(onlyRefused) ? ', and that its peer URL in `etcdctl member list` is still its address: a container or VM that came back on another IP leaves its old address refusing connections (`etcdctl member update <id> --peer-urls=<new url>`)' : ''}`,
        },
        {
          text: 'If the member is lost for good: remove it first, then add the replacement (etcd FAQ, runtime-configuration "Replace a failed machine")',
        },
      ],
      unknowns: [
        'only logs: the members were not asked; this is what their logs said at the end of the collection',
      ],
    };
    return { finding, explain: [...explain, `fired: ${formatList(names)}`] };
  },
};

/**
 * Known only from refused dials, with no log of its own: the process is gone, or its address now
 * belongs to another host (containers and VMs change IPs); one log cannot tell which.
 */
function onlyRefused(d: LoggedDown): boolean {
  return d.refused && !d.ownLastLineAt;
}

const withSpace = (text: string) => (text ? ` ${text}` : '');

function describe(d: LoggedDown): string {
  const own = d.ownLastLineAt ? `its log ends at ${d.ownLastLineAt.slice(11, 19)} and ` : '';
  const refused = onlyRefused(d) ? `, connections${d.address ? ` to ${d.address}` : ''} refused` : '';
  return `${own}${formatList(d.reporters)} lost it${refused}`;
}

/** Voters in the member list (from etcd_info or the logs' `added member` lines), else the members seen or lost. */
function clusterSizeInLogs(evidence: Evidence, down: LoggedDown[]): number {
  const listed = evidence.memberList.ok ? evidence.memberList.data.filter((m) => !m.isLearner).length : 0;
  const seen = scansOf(kubernetesOf(evidence), 'etcd').map((s) => memberOfScan(evidence, s));
  return Math.max(listed, unique([...seen, ...down.map((d) => d.member)]).length);
}
