import type { MemberEvidence } from '../../probes/evidence.js';
import { histogramQuantile } from '../../etcd/histogram.js';
import { formatList, formatMs, formatSecondsAsMs } from '../../format.js';
import type { Finding, Severity } from '../finding.js';
import type { Rule } from '../rule.js';
import { assessVantage } from '../vantage.js';
import { answered } from '../support/members.js';
import { memberNameById } from '../support/members.js';
import { PEER_SEND_FAILURE_RATE, tooManyEvents } from '../support/window-rate.js';

/** MIXIN etcdMemberCommunicationSlow: p99 peer round trip > 0.15 s. (OpenShift docs ask < 50 ms.) */
export const PEER_RTT_P99_LIMIT_S = 0.15;
/** Peer RTT gets one observation per peer every ~30 s; fewer than this says little. */
export const PEER_RTT_MIN_SAMPLES = 3;

interface PeerProblem {
  from: string;
  to: string;
  text: string;
  /**
   * Seen only in the since-start round-trip histogram: etcd times each peer once every ~30 s, so a
   * 3 s window holds no round trip of its own, and a SIGSTOP minutes ago stays in that p99 forever.
   * Such a problem is told as the past, at info (a healed network is not an incident), unless the window's own round trips
   * (a watch's minutes between checks) are slow too.
   */
  past: boolean;
}

/**
 * F3 peer connectivity (KB §1.1): slow peer round trips, failed sends to a peer that answers us
 * (so the peer is up but unreachable on :2380), and a member that answers us but has no leader
 * while the others do (partitioned from its peers: etcd-fault-signatures.md "Partition").
 * Peers that do not answer us at all are member-down, not a network fault.
 */
export const peerNetworkRule: Rule = {
  name: 'peer-network',
  live: 'a /metrics window of peer traffic',
  cause: 'peer-network',
  needs: ['metrics'],
  explains: ['leader-churn', 'slow-reads', 'control-plane-restarts', 'apiserver-latency'],
  rank: 22,
  evaluate(evidence, ctx) {
    const up = new Set(evidence.members.filter(answered).map((m) => m.target.name));
    // Round trips on hosts that etcd-doctor itself keeps busy say nothing about the network.
    const distortion = (ctx.vantage ?? assessVantage(evidence)).observer.distortion;
    const problems = evidence.members.flatMap((m) => peerProblems(m, evidence, up, !distortion));
    const partitioned = partitionedMembers(evidence.members);
    const explain = [
      `${problems.length} slow or failing peer links (rtt p99 limit ${formatSecondsAsMs(PEER_RTT_P99_LIMIT_S)}), ${partitioned.length} members without a leader while others have one`,
      ...(distortion ? [`peer round trips not evaluated: ${distortion}`] : []),
      ...problems.map((p) => p.text),
    ];
    if (problems.length === 0 && partitioned.length === 0) return { explain };
    const names = blame(problems, partitioned);
    const pastOnly = partitioned.length === 0 && problems.every((p) => p.past);
    const severity: Severity = partitioned.length > 0 ? 'critical' : pastOnly ? 'info' : 'warning';
    const finding: Finding = {
      cause: 'peer-network',
      severity,
      members: names,
      nodes: [],
      summary:
        partitioned.length > 0
          ? `${formatList(partitioned.map((m) => m.target.name))} answers us but cannot reach its peers (no leader): a network partition on the peer port`
          : pastOnly
            ? `Peer round trips to ${formatList(names)} were slow at some time since the members started; no peer send failed in the last window, so it may be over`
            : `Peer traffic to ${formatList(names)} is slow or failing while ${names.length === 1 ? 'it answers' : 'they answer'} us: check the network on the peer port (2380)`,
      evidence: [
        ...partitioned.map(
          (m) =>
            `${m.target.name} answers Status but sees no leader (raft term ${m.status.ok ? m.status.data.raftTerm : '?'}) while the others have one`,
        ),
        ...problems.map((p) => p.text),
        ...tookLines(evidence.members, names),
      ],
      steps: [
        {
          text: `Check the path between the members on the peer port: \`nc -zv <peer-ip> 2380\` from each master, firewalls and security groups (KB F3)`,
        },
        {
          text: 'Check node health, reboots or upgrades in progress, and cloud instance state (OpenShift runbook etcdMembersDown)',
        },
        {
          text: 'Prioritise peer traffic over client traffic with `tc … prio` (etcd tuning guide, "Network")',
        },
      ],
      unknowns: evidence.members
        .filter((m) => answered(m) && !m.metrics.ok)
        .map((m) => `no /metrics from ${m.target.name}: peer figures incomplete`),
    };
    return { finding, explain };
  },
};

function peerProblems(
  m: MemberEvidence,
  evidence: Parameters<Rule['evaluate']>[0],
  up: Set<string>,
  judgeRtt: boolean,
): PeerProblem[] {
  if (!m.metrics.ok) return [];
  const now = windowRttP99(m);
  return m.metrics.data.peers.flatMap((peer) => {
    const to = memberNameById(evidence, peer.peerId);
    if (!up.has(to)) return [];
    const out: PeerProblem[] = [];
    // MIXIN etcdMembersDown's rate of failed sends (support/window-rate.ts), scaled to the window.
    if (
      tooManyEvents(
        peer.sentFailuresInWindow,
        m.metrics.ok ? m.metrics.data.windowSeconds : 0,
        PEER_SEND_FAILURE_RATE,
      )
    ) {
      out.push({
        from: m.target.name,
        to,
        text: `${m.target.name} -> ${to}: ${peer.sentFailuresInWindow} failed peer sends in the window, though ${to} answers us`,
        past: false,
      });
    }
    if (
      judgeRtt &&
      peer.rttSamples >= PEER_RTT_MIN_SAMPLES &&
      (peer.rttP99Seconds ?? 0) > PEER_RTT_P99_LIMIT_S
    ) {
      out.push({
        from: m.target.name,
        to,
        text: `${m.target.name} -> ${to}: peer round trip p99 ${formatSecondsAsMs(peer.rttP99Seconds)} (${peer.rttSamples} probes since the member started; alert etcdMemberCommunicationSlow > 150 ms)${now === undefined ? '' : `; in the last window ${formatSecondsAsMs(now)}`}`,
        past: now === undefined || now <= PEER_RTT_P99_LIMIT_S,
      });
    }
    return out;
  });
}

/** The p99 of the window's own round trips to every peer, when it holds enough of them (a watch's minutes). */
function windowRttP99(m: MemberEvidence): number | undefined {
  const window = m.metrics.ok ? m.metrics.data.peerRttWindow : undefined;
  if (!window || window.count < PEER_RTT_MIN_SAMPLES) return undefined;
  return histogramQuantile(0.99, window);
}

/** Members that answer Status but see no leader while a majority of answering members see one. */
function partitionedMembers(members: MemberEvidence[]): MemberEvidence[] {
  const withStatus = members.filter((m) => m.status.ok);
  const leaderless = withStatus.filter((m) => m.status.ok && m.status.data.leaderId === '0');
  const led = withStatus.length - leaderless.length;
  return led > leaderless.length ? leaderless : [];
}

/** The member most links point at (or the partitioned one) is the one to look at. */
function blame(problems: PeerProblem[], partitioned: MemberEvidence[]): string[] {
  if (partitioned.length > 0) return partitioned.map((m) => m.target.name);
  const counts = new Map<string, number>();
  for (const p of problems) {
    counts.set(p.to, (counts.get(p.to) ?? 0) + 1);
    counts.set(p.from, (counts.get(p.from) ?? 0) + 0.5);
  }
  const max = Math.max(...counts.values());
  return [...counts.entries()].filter(([, n]) => n === max).map(([name]) => name);
}

function tookLines(members: MemberEvidence[], names: string[]): string[] {
  return members
    .filter((m) => names.includes(m.target.name) && m.health.ok && m.metrics.ok)
    .map((m) => {
      const fsync = m.metrics.ok ? formatSecondsAsMs(m.metrics.data.walFsync.p99Seconds) : 'n/a';
      const took = m.health.ok ? formatMs(m.health.data.tookMs) : 'n/a';
      return `${m.target.name}: linearizable read took ${took} while wal fsync p99 is ${fsync} (a fast disk: the delay is on the network)`;
    });
}
