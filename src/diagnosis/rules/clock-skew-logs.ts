import type { Evidence } from '../../probes/evidence.js';
import { formatList } from '../../report/format.js';
import type { Finding } from '../finding.js';
import type { Rule } from '../rule.js';
import {
  kubernetesOf,
  memberOfScan,
  nodesOfMembers,
  peerName,
  scansOf,
  unique,
} from './support-kubernetes.js';

/** etcd warns when `s.ClockDiff() > time.Second` (ETCD33/34/35 rafthttp/probing_status.go; KB F2). */
export const CLOCK_DRIFT_LOG_LIMIT_S = 1;

export interface ClockDriftReport {
  /** The member whose log said it (the one that measured). */
  reporter: string;
  /** The member named in the line (`against peer <id>`). */
  peer: string;
  maxSeconds: number;
  count: number;
  example: string;
}

/** Every `clock difference against peer` / `prober found high clock drift` line above 1 s, per reporter and peer. */
export function clockDriftReports(evidence: Evidence): ClockDriftReport[] {
  return scansOf(kubernetesOf(evidence), 'etcd').flatMap((scan) =>
    scan.signals.clockDrift
      .filter((d) => d.maxSeconds > CLOCK_DRIFT_LOG_LIMIT_S)
      .map((d) => ({
        reporter: memberOfScan(evidence, scan),
        peer: peerName(evidence, d.peerId),
        maxSeconds: d.maxSeconds,
        count: d.count,
        example: d.example,
      })),
  );
}

/** Evidence lines for the probe-based clock-skew rule to append (`master-1 logged 12 × ...`). */
export function clockDriftLogEvidence(evidence: Evidence): string[] {
  return merge(clockDriftReports(evidence)).map(
    (r) =>
      `${r.reporter} logged ${r.count} × clock difference against ${r.peer}, up to ${r.maxSeconds.toFixed(1)} s (etcd warns above 1 s)`,
  );
}

/**
 * F2 from the etcd logs, for when the clocks cannot be read directly. Defers to the clock-skew
 * rule when at least two members' clocks were read (no duplicate findings). The member most
 * reporters name is the one whose clock is off.
 */
export const clockSkewLogsRule: Rule = {
  name: 'clock-skew-logs',
  cause: 'clock-skew',
  needs: ['kubernetes'],
  explains: ['leader-churn'],
  rank: 25,
  evaluate(evidence) {
    const reports = merge(clockDriftReports(evidence));
    const clocksRead = evidence.members.filter((m) => m.clock.ok).length;
    const explain = [
      `${reports.length} reporter/peer pairs log a clock difference above ${CLOCK_DRIFT_LOG_LIMIT_S} s`,
    ];
    if (reports.length === 0) return { explain };
    if (clocksRead >= 2)
      return { explain: [...explain, `${clocksRead} member clocks were read: the clock-skew rule decides`] };
    const skewed = blame(reports);
    const worst =
      reports.filter((r) => skewed.includes(r.peer)).sort((a, b) => b.maxSeconds - a.maxSeconds)[0] ??
      reports[0];
    const reporters = unique(reports.filter((r) => skewed.includes(r.peer)).map((r) => r.reporter));
    const finding: Finding = {
      cause: 'clock-skew',
      severity: 'warning',
      members: skewed,
      nodes: nodesOfMembers(evidence, skewed),
      summary: `${formatList(skewed)}'s clock is ${worst?.maxSeconds.toFixed(1)} s off from ${formatList(reporters)} (etcd logs; etcd's limit is 1 s)`,
      evidence: [
        ...reports.map(
          (r) =>
            `${r.reporter} logged ${r.count} × clock difference against ${r.peer}, up to ${r.maxSeconds.toFixed(1)} s`,
        ),
        ...(worst ? [`e.g. ${worst.example}`] : []),
      ],
      steps: [
        {
          text: `Fix time sync on the node of ${formatList(skewed)}: check chronyc tracking or timedatectl, and point every master at the same NTP source (etcd-io/etcd#7051)`,
        },
        {
          text: 'Raft itself does not depend on wall clocks, but leases and TTLs do: fix the clock before chasing other symptoms (etcd-io/etcd#9768)',
        },
      ],
      unknowns: [
        'member clocks could not be read directly: this comes from the etcd logs, which may be hours old',
      ],
    };
    return { finding, explain: [...explain, `fired: ${formatList(skewed)}`] };
  },
};

/** One line per reporter and peer (a 3.4 member logs each drift twice: two probers). */
function merge(reports: ClockDriftReport[]): ClockDriftReport[] {
  const byPair = new Map<string, ClockDriftReport>();
  for (const r of reports) {
    const key = `${r.reporter}>${r.peer}`;
    const seen = byPair.get(key);
    if (!seen) byPair.set(key, { ...r });
    else
      byPair.set(key, {
        ...seen,
        count: seen.count + r.count,
        ...(r.maxSeconds > seen.maxSeconds ? { maxSeconds: r.maxSeconds, example: r.example } : {}),
      });
  }
  return [...byPair.values()];
}

/**
 * The peer named by the most reporters; with one reporter naming one peer, both clocks are
 * suspect but the line names the peer, so the peer is reported.
 */
function blame(reports: ClockDriftReport[]): string[] {
  const votes = new Map<string, number>();
  for (const r of reports) votes.set(r.peer, (votes.get(r.peer) ?? 0) + 1);
  const max = Math.max(...votes.values());
  return [...votes.entries()].filter(([, n]) => n === max).map(([peer]) => peer);
}
