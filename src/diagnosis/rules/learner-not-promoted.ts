import type { Evidence, MemberEvidence } from '../../probes/evidence.js';
import { BACKEND_COMMIT_P99_LIMIT_S, WAL_FSYNC_P99_LIMIT_S } from '../../etcd/latency-limits.js';
import { formatDuration, formatList, formatSecondsAsMs } from '../../format.js';
import type { Finding, RemediationStep, Severity } from '../finding.js';
import type { Rule } from '../rule.js';
import { LEARNER_SLOW_AFTER_MS, learnerProgress } from '../support/learners.js';
import { isLearner, memberNameById } from '../support/members.js';
import { PEER_RTT_MIN_SAMPLES, PEER_RTT_P99_LIMIT_S } from './peer-network.js';

/**
 * A learner (WEB learner.md) answers but is still a learner. Caught up (support/learners.ts), it only
 * waits for MemberPromote: an info finding with a Promote button. Behind, it is catching up; behind
 * for longer than LEARNER_SLOW_AFTER_MS of its process' life, something holds it back, and the
 * finding says what the evidence shows of the two things a learner needs: a disk that keeps up with
 * the entries it applies, and a peer link to the leader. A learner does not vote, so this never
 * touches quorum; it blocks the next member change (etcd allows one learner, --max-learners 1).
 */
export const learnerNotPromotedRule: Rule = {
  name: 'learner-not-promoted',
  live: "the learners' applied index now",
  cause: 'learner-not-promoted',
  needs: ['status'],
  rank: 30,
  evaluate(evidence, ctx) {
    const learners = evidence.members.filter((m) => m.status.ok && isLearner(evidence, m));
    const leader = leaderOf(evidence);
    const explain = [
      `${learners.length} learner(s) answer Status; leader ${leader?.target.name ?? 'unknown'}`,
    ];
    if (learners.length === 0 || !leader?.status.ok) return { explain };
    const assessed = learners.map((l) => assess(evidence, l, leader, ctx.now));
    const ready = assessed.filter((a) => a.caughtUp);
    const slow = assessed.filter((a) => !a.caughtUp && a.long);
    const severity: Severity = slow.length ? 'warning' : 'info';
    const finding: Finding = {
      cause: 'learner-not-promoted',
      severity,
      members: assessed.map((a) => a.name),
      nodes: [],
      summary: assessed.map((a) => a.summary).join('; '),
      evidence: assessed.flatMap((a) => a.evidence),
      steps: [
        ...ready.map(
          (a): RemediationStep => ({
            text: `Promote ${a.name} to a voting member (etcdctl member promote ${a.id}); it has caught up with the leader`,
            action: 'promote-learner',
            args: { member: a.name },
          }),
        ),
        ...(assessed.length > ready.length
          ? [
              {
                text: `Wait for ${formatList(assessed.filter((a) => !a.caughtUp).map((a) => a.name))} to catch up before promoting it; etcd refuses to promote a learner that is not in sync with the leader`,
              },
            ]
          : []),
        ...(slow.length
          ? [
              {
                text: `If ${formatList(slow.map((a) => a.name))} never catches up: remove it (etcdctl member remove <id>), fix its disk or peer link, and add it again as a learner with an empty data dir`,
              },
            ]
          : []),
      ],
      unknowns: assessed.flatMap((a) => a.unknowns),
    };
    const fired = assessed.map((a) => `${a.name} ${a.caughtUp ? 'caught up' : `${a.behind} behind`}`);
    return { finding, explain: [...explain, `fired: ${fired.join(', ')}`] };
  },
};

interface Assessed {
  name: string;
  id: string;
  caughtUp: boolean;
  behind: number;
  /** Behind for longer than LEARNER_SLOW_AFTER_MS of its process' life. */
  long: boolean;
  summary: string;
  evidence: string[];
  unknowns: string[];
}

/** The member the most answering members call leader, with its own Status. */
function leaderOf(evidence: Evidence): MemberEvidence | undefined {
  return evidence.members.find(
    (m) => m.status.ok && m.status.data.leaderId !== '0' && m.status.data.memberId === m.status.data.leaderId,
  );
}

function assess(evidence: Evidence, learner: MemberEvidence, leader: MemberEvidence, now: number): Assessed {
  const name = learner.target.name;
  const own = learner.status.ok ? learner.status.data : undefined;
  const lead = leader.status.ok ? leader.status.data : undefined;
  const id = own?.memberId ?? learner.target.id ?? '';
  const applied = own?.raftAppliedIndex ?? 0;
  const leaderApplied = lead?.raftAppliedIndex ?? 0;
  const progress = learnerProgress(applied, leaderApplied);
  const indexLine = `${name} (learner): applied index ${applied}, leader ${leader.target.name} ${leaderApplied} (${progress.behind} behind; caught up within 100)`;
  const startS = learner.metrics.ok ? learner.metrics.data.gauges.processStartTimeSeconds : undefined;
  const runningMs = startS === undefined ? undefined : now - startS * 1000;
  const running = runningMs === undefined ? '' : `, running for ${formatDuration(runningMs)}`;
  if (progress.caughtUp)
    return {
      name,
      id,
      caughtUp: true,
      behind: progress.behind,
      long: false,
      summary: `${name} is a learner that has caught up with the leader${running}: promote it to a voting member`,
      evidence: [indexLine],
      unknowns: [],
    };
  const long = runningMs !== undefined && runningMs >= LEARNER_SLOW_AFTER_MS;
  const why = [...noLeader(learner), ...diskReasons(learner), ...peerReasons(evidence, learner, leader)];
  const summary = long
    ? `${name} is a learner still ${progress.behind} entries behind the leader after ${formatDuration(runningMs ?? 0)}: ${why.length ? 'see its disk and peer link below' : 'neither its disk nor its peer link looks slow; read its log'}`
    : `${name} is a learner catching up: ${progress.behind} entries behind the leader${running}`;
  return {
    name,
    id,
    caughtUp: false,
    behind: progress.behind,
    long,
    summary,
    evidence: [indexLine, ...why],
    unknowns:
      runningMs === undefined
        ? [`${name}'s start time (no /metrics): how long it has been behind is not known`]
        : [],
  };
}

function noLeader(learner: MemberEvidence): string[] {
  if (!learner.status.ok || learner.status.data.leaderId !== '0') return [];
  return [`${learner.target.name} knows no leader: it does not reach the leader on its peer URL`];
}

/** Its disk: the WAL fsync and backend commit of the window against etcd's bounds (WEB faq.md). */
function diskReasons(learner: MemberEvidence): string[] {
  if (!learner.metrics.ok) return [];
  const { walFsync, backendCommit } = learner.metrics.data;
  const out: string[] = [];
  if ((walFsync.p99Seconds ?? 0) > WAL_FSYNC_P99_LIMIT_S)
    out.push(
      `its disk: wal fsync p99 ${formatSecondsAsMs(walFsync.p99Seconds)} (etcd FAQ: < 10 ms), mean ${formatSecondsAsMs(walFsync.meanSeconds)}`,
    );
  if ((backendCommit.p99Seconds ?? 0) > BACKEND_COMMIT_P99_LIMIT_S)
    out.push(
      `its disk: backend commit p99 ${formatSecondsAsMs(backendCommit.p99Seconds)} (etcd FAQ: < 25 ms)`,
    );
  if (learner.metrics.data.applyBacklog > 0)
    out.push(`its apply loop: ${learner.metrics.data.applyBacklog} committed entries not yet applied`);
  return out;
}

/**
 * Its peer link, seen from both ends: the leader's sends to it and the learner's to the leader
 * (failed sends in the window; round trip p99 over MIXIN etcdMemberCommunicationSlow's 150 ms).
 */
function peerReasons(evidence: Evidence, learner: MemberEvidence, leader: MemberEvidence): string[] {
  const learnerId = learner.status.ok ? learner.status.data.memberId : learner.target.id;
  const leaderId = leader.status.ok ? leader.status.data.memberId : leader.target.id;
  const link = (from: MemberEvidence, toId: string | undefined): string[] => {
    if (!from.metrics.ok || !toId) return [];
    const peer = from.metrics.data.peers.find((p) => p.peerId === toId);
    if (!peer) return [];
    const to = memberNameById(evidence, toId);
    const out: string[] = [];
    if (peer.sentFailuresInWindow > 0)
      out.push(
        `its peer link: ${from.target.name} -> ${to}: ${peer.sentFailuresInWindow} failed peer sends in the window`,
      );
    if (peer.rttSamples >= PEER_RTT_MIN_SAMPLES && (peer.rttP99Seconds ?? 0) > PEER_RTT_P99_LIMIT_S)
      out.push(
        `its peer link: ${from.target.name} -> ${to}: round trip p99 ${formatSecondsAsMs(peer.rttP99Seconds)} (alert etcdMemberCommunicationSlow > 150 ms)`,
      );
    return out;
  };
  return [...link(leader, learnerId), ...link(learner, leaderId)];
}
