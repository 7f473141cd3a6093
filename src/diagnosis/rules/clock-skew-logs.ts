import { memberNameById } from '../support/members.js';
import type { Evidence } from '../../probes/evidence.js';
import { formatAge, formatList, formatMs } from '../../format.js';
import type { Finding } from '../finding.js';
import type { Rule, RuleContext } from '../rule.js';
import { liveClockSkew } from './clock-skew.js';
import { kubernetesOf, memberOfScan, nodesOfMembers, scansOf, unique } from '../support/kubernetes.js';

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
  /** When the last such line was written (ISO 8601), when the line says. */
  lastSeenAt: string | undefined;
}

/** Every `clock difference against peer` / `prober found high clock drift` line above 1 s, per reporter and peer. */
export function clockDriftReports(evidence: Evidence): ClockDriftReport[] {
  return scansOf(kubernetesOf(evidence), 'etcd').flatMap((scan) =>
    scan.signals.clockDrift
      .filter((d) => d.maxSeconds > CLOCK_DRIFT_LOG_LIMIT_S)
      .map((d) => ({
        reporter: memberOfScan(evidence, scan),
        peer: memberNameById(evidence, d.peerId),
        maxSeconds: d.maxSeconds,
        count: d.count,
        example: d.example,
        lastSeenAt: d.lastSeenAt,
      })),
  );
}

/**
 * F2 from the etcd logs, for when the clocks cannot be read directly; the member most reporters
 * name is the one whose clock is off. When at least two clocks were read, the clock-skew rule
 * decides about drift now; if those clocks agree, the logged drift is history that must not
 * vanish: an info finding says when it was last logged and what the clocks read now.
 */
export const clockSkewLogsRule: Rule = {
  name: 'clock-skew-logs',
  cause: 'clock-skew',
  needs: ['kubernetes'],
  explains: ['leader-churn'],
  rank: 25,
  evaluate(evidence, ctx) {
    const reports = merge(clockDriftReports(evidence));
    const clocksRead = evidence.members.filter((m) => m.clock.ok).length;
    const explain = [
      `${reports.length} reporter/peer pairs log a clock difference above ${CLOCK_DRIFT_LOG_LIMIT_S} s`,
    ];
    if (reports.length === 0) return { explain };
    if (clocksRead >= 2) {
      const live = liveClockSkew(evidence);
      if (live.named.length > 0)
        return {
          explain: [...explain, `${clocksRead} member clocks were read: the clock-skew rule decides`],
        };
      return {
        finding: historyFinding(evidence, reports, live.spreadMs, ctx),
        explain: [...explain, 'fired: logged drift, clocks agree now'],
      };
    }
    const skewed = blame(reports);
    const involved = reports.filter((r) => skewed.includes(r.peer) || skewed.includes(r.reporter));
    const worst = [...involved].sort((a, b) => b.maxSeconds - a.maxSeconds)[0] ?? reports[0];
    // The members the skewed one disagrees with: those that logged it, or those it logged.
    const reporters = unique(involved.map((r) => (skewed.includes(r.peer) ? r.reporter : r.peer))).filter(
      (m) => !skewed.includes(m),
    );
    const finding: Finding = {
      cause: 'clock-skew',
      severity: 'warning',
      members: skewed,
      nodes: nodesOfMembers(evidence, skewed),
      summary: `${formatList(skewed)}'s clock is ${worst?.maxSeconds.toFixed(1)} s off from ${formatList(reporters)} (etcd logs; etcd's limit is 1 s)`,
      evidence: [
        ...reports.map(
          (r) =>
            `${r.reporter} logged ${r.count} × clock difference against ${r.peer}, up to ${r.maxSeconds.toFixed(1)} s${lastSeen(r, ctx)}`,
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

/** The drift is in the logs, the clocks agree now: history, said at info level with when and what now. */
function historyFinding(
  evidence: Evidence,
  reports: ClockDriftReport[],
  spreadMs: number,
  ctx: RuleContext,
): Finding {
  const worst = [...reports].sort((a, b) => b.maxSeconds - a.maxSeconds)[0];
  const last = latest(reports);
  const members = unique(reports.flatMap((r) => [r.peer, r.reporter]));
  return {
    cause: 'clock-skew',
    severity: 'info',
    members,
    nodes: nodesOfMembers(evidence, members),
    summary: `etcd logged clock drift of up to ${worst?.maxSeconds.toFixed(1)} s (${formatList(unique(reports.map((r) => `${r.reporter} against ${r.peer}`)))})${last ? `, last ${formatAge(ctx.now - Date.parse(last))} ago (${last})` : ''}; the member clocks agree now, within ${formatMs(spreadMs)}`,
    evidence: [
      ...reports.map(
        (r) =>
          `${r.reporter} logged ${r.count} × clock difference against ${r.peer}, up to ${r.maxSeconds.toFixed(1)} s${lastSeen(r, ctx)}`,
      ),
      `now: the clocks of ${formatList(evidence.members.filter((m) => m.clock.ok).map((m) => m.target.name))} agree within ${formatMs(spreadMs)} (etcd's limit is 1 s)`,
    ],
    steps: [
      {
        text: 'Check that time sync is stable on every master (chronyc tracking, timedatectl): drift that comes and goes usually means an NTP source that flaps (etcd-io/etcd#7051)',
      },
    ],
    unknowns: [],
  };
}

function lastSeen(r: ClockDriftReport, ctx: RuleContext): string {
  return r.lastSeenAt
    ? `, last at ${r.lastSeenAt} (${formatAge(ctx.now - Date.parse(r.lastSeenAt))} ago)`
    : '';
}

function latest(reports: ClockDriftReport[]): string | undefined {
  return reports
    .map((r) => r.lastSeenAt)
    .filter((t): t is string => Boolean(t))
    .sort()
    .at(-1);
}

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
        lastSeenAt: [seen.lastSeenAt, r.lastSeenAt].filter(Boolean).sort().at(-1),
        ...(r.maxSeconds > seen.maxSeconds ? { maxSeconds: r.maxSeconds, example: r.example } : {}),
      });
  }
  return [...byPair.values()];
}

/**
 * The member in the most reporter/peer pairs: every other member disagrees with it, whether they
 * logged it or it logged them (etcd 3.4 logs the drift only on the member whose clock is ahead,
 * against each peer: etcd-fault-signatures.md). On a tie, the peer named by the most reporters;
 * with one reporter naming one peer, both clocks are suspect but the line names the peer.
 */
function blame(reports: ClockDriftReport[]): string[] {
  const pairs = new Map<string, number>();
  for (const r of reports)
    for (const m of new Set([r.peer, r.reporter])) pairs.set(m, (pairs.get(m) ?? 0) + 1);
  const most = Math.max(...pairs.values());
  const central = [...pairs.entries()].filter(([, n]) => n === most).map(([m]) => m);
  if (central.length === 1) return central;
  const votes = new Map<string, number>();
  for (const r of reports) votes.set(r.peer, (votes.get(r.peer) ?? 0) + 1);
  const max = Math.max(...votes.values());
  return [...votes.entries()].filter(([, n]) => n === max).map(([peer]) => peer);
}
