import type { MemberEvidence } from '../../probes/evidence.js';
import { formatAge, formatList } from '../../format.js';
import type { Finding, Severity } from '../finding.js';
import type { Rule, RuleContext } from '../rule.js';
import { answered, participating } from '../support/members.js';
import { LEADER_CHANGE_RATE, tooManyEvents } from '../support/window-rate.js';

/** MIXIN etcdHighNumberOfLeaderChanges: increase(leader_changes_seen_total[15m]) >= 4. */
export const LEADER_CHANGES_LIMIT = 4;
export const LEADER_CHANGES_PERIOD_S = 15 * 60;
/**
 * The counter starts at 1: a member's first election counts as a change. A member that has run
 * longer than the period gives a per-period average, so one restart long ago never raises a
 * warning; for a younger member the changes since start are compared with the limit directly.
 */
export const STARTUP_ELECTIONS = 1;

interface ChurnReading {
  name: string;
  inWindow: number;
  /** The window's changes come at the alert's rate or faster (support/window-rate.ts): one in a few minutes. */
  churnInWindow: boolean;
  sinceStart: number;
  uptimeS: number | undefined;
  perPeriod: number;
}

/**
 * F4 leader instability (KB §1.1): leader changes in the probe window, too many changes for the
 * member's uptime, or no leader anywhere though quorum exists (MIXIN etcdNoLeader). Churn is a
 * symptom: slow disks, networks and CPU starvation explain it, so those rules link it.
 */
export const leaderChurnRule: Rule = {
  name: 'leader-churn',
  live: 'a /metrics window of leader changes',
  cause: 'leader-churn',
  needs: ['metrics'],
  explains: ['control-plane-restarts', 'apiserver-latency'],
  rank: 40,
  evaluate(evidence, ctx) {
    const readings = evidence.members.flatMap((m) => churnOf(m, ctx));
    const worst = [...readings].sort((a, b) => b.perPeriod - a.perPeriod || b.inWindow - a.inWindow)[0];
    const terms = termsOf(evidence.members);
    const explain = readings.map(
      (r) =>
        `${r.name}: ${r.inWindow} leader changes in the window, ${r.sinceStart} since start over ${r.uptimeS ?? '?'} s (${r.perPeriod.toFixed(1)} per 15 min; limit ${LEADER_CHANGES_LIMIT})`,
    );
    const noLeader =
      evidence.members.filter(answered).length > 0 && evidence.members.filter(participating).length === 0;
    const churning = worst !== undefined && (worst.churnInWindow || worst.perPeriod >= LEADER_CHANGES_LIMIT);
    if (!churning && !noLeader) return { explain };
    const severity: Severity =
      noLeader || (worst?.perPeriod ?? 0) >= 2 * LEADER_CHANGES_LIMIT ? 'critical' : 'warning';
    const finding: Finding = {
      cause: 'leader-churn',
      severity,
      members: [],
      nodes: [],
      summary: noLeader
        ? 'No member sees a leader: writes fail with `etcdserver: no leader` and `request timed out`'
        : churnSummary(worst),
      evidence: [
        ...readings
          .filter((r) => r.churnInWindow || r.perPeriod >= LEADER_CHANGES_LIMIT)
          .map(
            (r) =>
              `${r.name}: ${changes(r.inWindow)} in the probe window, ${r.sinceStart} since it started ${ageOf(r.uptimeS)} ago (alert etcdHighNumberOfLeaderChanges: >= 4 in 15 min)`,
          ),
        ...(terms ? [terms] : []),
      ],
      steps: [
        {
          text: 'Treat churn as a symptom: look at the disk (wal fsync), the peer network and CPU of the leader first (etcd FAQ: "disk latency is part of leader liveness")',
        },
        {
          text: 'If the cause cannot be fixed soon: raise --heartbeat-interval and --election-timeout identically on all members (etcd tuning guide; OpenShift "Slower" profile uses 500 / 2500 ms)',
        },
      ],
      unknowns: evidence.members.filter((m) => !m.metrics.ok).map((m) => `no /metrics from ${m.target.name}`),
    };
    return { finding, explain };
  },
};

/** `1 leader change`, `3 leader changes`. */
function changes(n: number): string {
  return `${n} leader change${n === 1 ? '' : 's'}`;
}

/**
 * `The leader keeps changing: 3 changes during the probe window, 7 since etcd-1 started`; one
 * change is an election, said as one (a member that went down takes its leadership with it).
 */
function churnSummary(worst: ChurnReading | undefined): string {
  const inWindow = worst?.inWindow ?? 0;
  const sinceStart = worst?.sinceStart ?? 0;
  const who = worst?.name ?? 'the member';
  const clients = 'clients see `etcdserver: leader changed`';
  if (Math.max(inWindow, sinceStart) <= 1)
    return `The leader changed ${inWindow === 1 ? 'during the probe window' : `once since ${who} started`}; ${clients}`;
  const window = inWindow ? `${inWindow} change${inWindow === 1 ? '' : 's'} during the probe window, ` : '';
  return `The leader keeps changing: ${window}${sinceStart} since ${who} started; ${clients}`;
}

function churnOf(m: MemberEvidence, ctx: RuleContext): ChurnReading[] {
  if (!m.metrics.ok) return [];
  const data = m.metrics.data;
  const started = data.gauges.processStartTimeSeconds;
  const uptimeS = started === undefined ? undefined : Math.max(1, ctx.now / 1000 - started);
  const sinceStart = Math.max(0, data.totals.leaderChanges - STARTUP_ELECTIONS);
  const perPeriod =
    uptimeS === undefined || uptimeS <= LEADER_CHANGES_PERIOD_S
      ? sinceStart
      : (sinceStart * LEADER_CHANGES_PERIOD_S) / uptimeS;
  return [
    {
      name: m.target.name,
      inWindow: data.deltas.leaderChanges,
      churnInWindow: tooManyEvents(data.deltas.leaderChanges, data.windowSeconds, LEADER_CHANGE_RATE),
      sinceStart,
      uptimeS: uptimeS && Math.round(uptimeS),
      perPeriod,
    },
  ];
}

/** raftTerm persists across restarts, unlike the counters (etcd-fault-signatures.md). */
function termsOf(members: MemberEvidence[]): string | undefined {
  const terms = members.flatMap((m) => (m.status.ok ? [`${m.target.name} ${m.status.data.raftTerm}`] : []));
  return terms.length ? `raft terms: ${formatList(terms)}` : undefined;
}

function ageOf(seconds: number | undefined): string {
  return seconds === undefined ? 'an unknown time' : formatAge(seconds * 1000);
}
