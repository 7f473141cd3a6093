import type { Evidence } from '../../probes/evidence.js';
import { isLocalDialFailure } from '../../etcd/scan-faults.js';
import { formatAge, formatList } from '../../format.js';
import type { Finding } from '../finding.js';
import type { Rule } from '../rule.js';
import { answered, memberNameById } from '../support/members.js';
import { membersDownInLogs } from './member-down-collected.js';
import { peerWitnesses } from '../support/logs.js';
import {
  dataOf,
  kubernetesOf,
  memberOfNode,
  memberOfScan,
  nodesOfMembers,
  scansOf,
  unique,
} from '../support/kubernetes.js';

export interface PeerFailureReport {
  reporter: string;
  peer: string;
  /** `127.20.0.13:2380` when the error names the address dialled. */
  address: string | undefined;
  count: number;
  lastError: string | undefined;
  /** When the last such line was written (ISO 8601), when the line says. */
  lastSeenAt: string | undefined;
}

/** Every `could not connect` / `prober detected unhealthy status` / `peer became inactive` line, per reporter and peer. */
export function peerFailureReports(evidence: Evidence): PeerFailureReport[] {
  return peerWitnesses(scansOf(kubernetesOf(evidence), 'etcd')).flatMap((scan) =>
    // A dial that failed on its name lookup or for want of a descriptor never left the node:
    // dns-resolution and fd-exhaustion report it.
    scan.signals.peerUnreachable
      .filter((p) => !isLocalDialFailure(p.lastError ?? ''))
      .map((p) => ({
        reporter: memberOfScan(evidence, scan),
        peer: nameOfPeer(evidence, p.peerId, p.address),
        address: p.address,
        count: p.count,
        lastError: p.lastError,
        lastSeenAt: p.lastSeenAt,
      })),
  );
}

/**
 * F3 from the etcd logs, for when etcd's /metrics cannot be reached (kubeadm binds them to
 * 127.0.0.1:2381). When peer metrics arrived, the peer-network rule judges the links now; if they
 * show no failed send to the logged peers and every member answers with a leader, the logged
 * failures are history that must not vanish: an info finding with when they were last logged.
 */
export const peerNetworkLogsRule: Rule = {
  name: 'peer-network-logs',
  cause: 'peer-network',
  needs: ['kubernetes'],
  explains: ['leader-churn', 'slow-reads', 'control-plane-restarts', 'apiserver-latency'],
  rank: 22,
  evaluate(evidence, ctx) {
    // A peer that does not answer us either is down, not cut off: member-down reports it.
    const down = new Set(evidence.members.filter((m) => !answered(m)).map((m) => m.target.name));
    // Gone by the logs (its own log stops, or dials are refused) and not answering now: member-down-logs.
    const answering = new Set(evidence.members.filter(answered).map((m) => m.target.name));
    for (const d of membersDownInLogs(evidence)) if (!answering.has(d.member)) down.add(d.member);
    const reports = merge(peerFailureReports(evidence)).filter((r) => !down.has(r.peer));
    // Any /metrics that arrived counts: etcd creates a peer's failure counter on its first failure,
    // and a young member has no round-trip samples yet, so no peer series means no failure.
    const withPeerMetrics = evidence.members.filter((m) => m.metrics.ok).length;
    const explain = [
      `${reports.length} reporter/peer pairs log failed peer health checks to members that answer us`,
    ];
    if (reports.length === 0) return { explain };
    if (withPeerMetrics > 0) {
      const failingNow = reports.filter((r) => failingLive(evidence, r.peer));
      if (failingNow.length > 0 || !allLed(evidence))
        return {
          explain: [
            ...explain,
            `${withPeerMetrics} members sent peer metrics: the peer-network rule decides`,
          ],
        };
      return {
        finding: historyFinding(evidence, reports, ctx.now),
        explain: [...explain, 'fired: logged, fine now'],
      };
    }
    const blamed = blame(reports);
    const reporters = unique(reports.filter((r) => blamed.includes(r.peer)).map((r) => r.reporter));
    const failures = reports.filter((r) => blamed.includes(r.peer)).reduce((n, r) => n + r.count, 0);
    const error = reports.find((r) => blamed.includes(r.peer) && r.lastError)?.lastError;
    const upNames = evidence.members.filter(answered).map((m) => m.target.name);
    const stillServing = blamed.filter((b) => upNames.includes(b));
    const finding: Finding = {
      cause: 'peer-network',
      severity: 'warning',
      members: blamed,
      nodes: nodesOfMembers(evidence, blamed),
      summary: `${formatList(blamed)} cannot be reached on the peer port: ${failures} failed health checks from ${formatList(reporters)}${error ? ` (${error})` : ''}`,
      evidence: [
        ...reports.map(describe),
        ...(stillServing.length > 0
          ? [
              `${formatList(stillServing)} still answer${stillServing.length === 1 ? 's' : ''} us on the client port: the peer path is the problem`,
            ]
          : []),
      ],
      steps: [
        {
          text: 'Check the path between the members on the peer port: nc -zv <peer-ip> 2380 from each master, firewalls and security groups (KB F3)',
        },
        {
          text: 'Check node health, reboots or upgrades in progress, and cloud instance state (OpenShift runbook etcdMembersDown)',
        },
        { text: 'Prioritise peer traffic over client traffic with tc … prio (etcd tuning guide, "Network")' },
      ],
      unknowns: [
        'etcd peer metrics could not be read: this comes from the etcd logs, which may be hours old',
      ],
    };
    return { finding, explain: [...explain, `fired: ${formatList(blamed)}`] };
  },
};

function describe(r: PeerFailureReport): string {
  return `${r.reporter} -> ${r.peer}: ${r.count} failed peer health checks${r.lastError ? ` (${r.lastError})` : ''}${r.lastSeenAt ? `, last at ${r.lastSeenAt}` : ''}`;
}

/** Some member's metrics show failed sends to this peer in the window. */
function failingLive(evidence: Evidence, peer: string): boolean {
  return evidence.members.some(
    (m) =>
      m.metrics.ok &&
      m.metrics.data.peers.some(
        (p) => p.sentFailuresInWindow > 0 && memberNameById(evidence, p.peerId) === peer,
      ),
  );
}

/** Every member answers and sees a leader: the peer links carry raft now. */
function allLed(evidence: Evidence): boolean {
  return evidence.members.every((m) => m.status.ok && m.status.data.leaderId !== '0');
}

/** Peer failures in the logs, peer links fine now: history, at info level, with when and what now. */
function historyFinding(evidence: Evidence, reports: PeerFailureReport[], now: number): Finding {
  const peers = unique(reports.map((r) => r.peer));
  const last = reports
    .map((r) => r.lastSeenAt)
    .filter((t): t is string => Boolean(t))
    .sort()
    .at(-1);
  const failures = reports.reduce((n, r) => n + r.count, 0);
  return {
    cause: 'peer-network',
    severity: 'info',
    members: peers,
    nodes: nodesOfMembers(evidence, peers),
    summary: `etcd logged ${failures} failed peer health checks to ${formatList(peers)}${last ? `, last ${formatAge(now - Date.parse(last))} ago (${last})` : ''}; the peer links are fine now: no failed sends in the window and every member has a leader`,
    evidence: [
      ...reports.map(describe),
      `now: every member answers with a leader and no member's metrics show a failed peer send`,
    ],
    steps: [
      {
        text: 'If it comes back: check the path between the members on the peer port (nc -zv <peer-ip> 2380), firewalls and security groups (KB F3)',
      },
    ],
    unknowns: [],
  };
}

function merge(reports: PeerFailureReport[]): PeerFailureReport[] {
  const byPair = new Map<string, PeerFailureReport>();
  for (const r of reports) {
    const key = `${r.reporter}>${r.peer}`;
    const seen = byPair.get(key);
    byPair.set(
      key,
      seen
        ? {
            ...seen,
            count: seen.count + r.count,
            lastError: r.lastError ?? seen.lastError,
            lastSeenAt: [seen.lastSeenAt, r.lastSeenAt].filter(Boolean).sort().at(-1),
          }
        : { ...r },
    );
  }
  return [...byPair.values()];
}

function blame(reports: PeerFailureReport[]): string[] {
  const votes = new Map<string, number>();
  for (const r of reports) votes.set(r.peer, (votes.get(r.peer) ?? 0) + 1);
  const max = Math.max(...votes.values());
  return [...votes.entries()].filter(([, n]) => n === max).map(([peer]) => peer);
}

/** By member id when the member list knows it, else by the address dialled, else the id. */
function nameOfPeer(evidence: Evidence, peerId: string, address: string | undefined): string {
  const byId = memberNameById(evidence, peerId);
  if (byId !== peerId) return byId;
  return (address ? memberByAddress(evidence, address) : undefined) ?? peerId;
}

/** `127.20.0.13:2380` -> the member whose peer URL or node address it is. */
function memberByAddress(evidence: Evidence, address: string): string | undefined {
  const k = kubernetesOf(evidence);
  const host = address.replace(/:\d+$/, '');
  const spec = dataOf(k?.etcdPods)?.find((s) => s.peerUrls.some((u) => u.includes(`//${address}`)));
  if (spec?.memberName) return spec.memberName;
  const node = dataOf(k?.nodes)?.find((n) => n.internalIp === host);
  return node ? memberOfNode(evidence, node.name) : undefined;
}
