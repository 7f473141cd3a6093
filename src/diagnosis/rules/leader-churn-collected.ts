import type { Evidence } from '../../probes/evidence.js';
import type { Finding, Severity } from '../finding.js';
import type { Rule } from '../rule.js';
import { LEADER_CHANGES_LIMIT, LEADER_CHANGES_PERIOD_S, leaderChurnRule } from './leader-churn.js';
import { countIn, kubernetesOf, scansOf } from '../support/kubernetes.js';
import {
  describeSignal,
  etcdSignalByMember,
  formatSpan,
  type MemberSignal,
  spanSeconds,
} from '../support/logs.js';

interface Elections {
  signal: MemberSignal;
  /** Elections minus the one each start of the member logs. */
  changes: number;
}

/**
 * F4 leader instability from the etcd logs (`raft.node: <id> elected leader <id> at term <n>`,
 * which every member logs for every election it sees), for collected evidence. Each start of a
 * member logs one election, which is not churn. Same limit as the live rule (MIXIN
 * etcdHighNumberOfLeaderChanges: 4 in 15 min); over a longer log the rate per 15 min decides
 * how bad it is.
 */
export const leaderChurnCollectedRule: Rule = {
  name: 'leader-churn-logs',
  cause: 'leader-churn',
  needs: ['kubernetes'],
  ...(leaderChurnRule.explains ? { explains: leaderChurnRule.explains } : {}),
  rank: leaderChurnRule.rank,
  evaluate(evidence) {
    const starts = new Map(
      etcdSignalByMember(evidence, (s) => ({
        count: s.signals.startingMember.count + s.signals.restartingMember.count,
        example: undefined,
      })).map((s) => [s.member, s.count]),
    );
    // A change is an election seen (`elected leader`, less one per start), a leader lost (`lost
    // leader`), or a candidacy at a higher term than the last (`became candidate at term N`): a
    // member cut off from its peers campaigns at rising terms and never sees a leader.
    const lost = new Map(
      etcdSignalByMember(evidence, (s) => s.signals.leaderLost).map((s) => [s.member, s.count]),
    );
    const rising = new Map(
      etcdSignalByMember(evidence, (s) => {
        const c = s.signals.candidacies;
        return { count: c?.risingTerms ?? 0, example: c?.example };
      }).map((s) => [s.member, s.count]),
    );
    const elected = etcdSignalByMember(evidence, (s) => s.signals.leaderElected);
    const electedBy = new Map(elected.map((s) => [s.member, s.count]));
    // Each member's signal for its time span and example: its elections, else its lost leaders or candidacies.
    const signals = [
      ...elected,
      ...etcdSignalByMember(evidence, (s) => s.signals.leaderLost),
      ...etcdSignalByMember(evidence, (s) => s.signals.candidacies ?? { count: 0, example: undefined }),
    ];
    const byMember = new Map<string, Elections>();
    for (const signal of signals) {
      if (byMember.has(signal.member)) continue;
      const changes = Math.max(
        (electedBy.get(signal.member) ?? 0) - (starts.get(signal.member) ?? 0),
        lost.get(signal.member) ?? 0,
        rising.get(signal.member) ?? 0,
        0,
      );
      byMember.set(signal.member, { signal, changes });
    }
    const elections = [...byMember.values()];
    const worst = [...elections].sort((a, b) => b.changes - a.changes)[0];
    const explain = elections.map(
      (e) =>
        `${e.signal.member}: ${e.changes} leader changes in its log (${e.signal.count} lines, ${lost.get(e.signal.member) ?? 0} leaders lost, ${rising.get(e.signal.member) ?? 0} candidacies at a higher term, ${starts.get(e.signal.member) ?? 0} starts; limit ${LEADER_CHANGES_LIMIT})`,
    );
    if (!worst || worst.changes < LEADER_CHANGES_LIMIT) return { explain };
    const span = spanSeconds(worst.signal.firstSeenAt, worst.signal.lastSeenAt);
    const perPeriod =
      span && span > LEADER_CHANGES_PERIOD_S
        ? (worst.changes * LEADER_CHANGES_PERIOD_S) / span
        : worst.changes;
    const severity: Severity = perPeriod >= 2 * LEADER_CHANGES_LIMIT ? 'critical' : 'warning';
    const when = formatSpan(worst.signal.firstSeenAt, worst.signal.lastSeenAt);
    const finding: Finding = {
      cause: 'leader-churn',
      severity,
      members: [],
      nodes: [],
      summary: `The leader kept changing: ${worst.changes} leader changes in ${worst.signal.member}'s log${when ? ` (${when})` : ''}; clients see \`etcdserver: leader changed\``,
      evidence: [
        ...elections.map(
          (e) =>
            `${e.signal.member}: ${describeSignal(e.signal, 'elected leader, lost leader or became candidate')} (${e.changes} changes after its starts)`,
        ),
        ...clientLines(evidence),
      ],
      steps: [
        {
          text: 'Treat churn as a symptom: look at the disk (slow fdatasync), the peer network and CPU of the members first (etcd FAQ: "disk latency is part of leader liveness")',
        },
        {
          text: 'If the cause cannot be fixed soon: raise --heartbeat-interval and --election-timeout identically on all members (etcd tuning guide)',
        },
      ],
      unknowns: [
        'only logs: leader changes counted from `elected leader`, `lost leader` and `became candidate` lines, no /metrics counters',
      ],
    };
    return { finding, explain: [...explain, `fired: ${worst.changes} changes`] };
  },
};

/** `leader changed` and `request timed out` as the apiserver saw them. */
function clientLines(evidence: Evidence): string[] {
  const scans = scansOf(kubernetesOf(evidence), 'kube-apiserver');
  const changed = countIn(scans, (s) => s.leaderChanged).count;
  return changed > 0 ? [`kube-apiserver logs: ${changed} × etcdserver: leader changed`] : [];
}
