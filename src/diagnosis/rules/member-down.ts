import type { Evidence, MemberEvidence } from '../../probes/evidence.js';
import { formatList } from '../../format.js';
import type { Finding, Severity } from '../finding.js';
import type { Rule } from '../rule.js';
import { assessVantage, unseenNames } from '../vantage.js';
import { failureTolerance, quorumOf } from '../../etcd/quorum.js';
import { answered, clusterSize, failureOf, isLearner, memberNameById } from '../support/members.js';

/**
 * A member that answers neither Status nor a read. A refused connection means the process is
 * gone; a timeout with the port open means it is hung (SIGSTOP, D-state I/O): etcd-fault-signatures.md.
 * Failure tolerance is n − quorum over voting members (WEB faq.md "What is failure tolerance?":
 * 3→1, 5→2, 7→3). A learner does not vote (WEB learner.md): a down learner leaves quorum as it
 * was, so it is a warning (it cannot be promoted; a control-plane join is stuck), never critical.
 * Members etcd-doctor cannot check (diagnosis/vantage.ts) are unknown, not down.
 */
export const memberDownRule: Rule = {
  name: 'member-down',
  live: 'the members answering now',
  cause: 'member-down',
  needs: [],
  explains: ['leader-churn', 'slow-reads', 'peer-network'],
  rank: 10,
  evaluate(evidence, ctx) {
    const unseen = unseenNames(ctx.vantage ?? assessVantage(evidence));
    const down = evidence.members.filter((m) => !answered(m) && !unseen.has(m.target.name));
    const votersDown = down.filter((m) => !isLearner(evidence, m));
    const learnersDown = down.filter((m) => isLearner(evidence, m));
    const size = clusterSize(evidence);
    const quorum = quorumOf(size);
    const up = size - votersDown.length;
    const explain = [
      `${votersDown.length} of ${size} voting members and ${learnersDown.length} learners did not answer; quorum is ${quorum}`,
    ];
    if (down.length === 0) return { explain };
    if (up < quorum) return { explain: [...explain, 'quorum is lost: reported by quorum-lost instead'] };
    const tolerance = failureTolerance(size, up);
    const names = down.map((m) => m.target.name);
    const severity: Severity = votersDown.length > 0 && tolerance === 0 ? 'critical' : 'warning';
    const finding: Finding = {
      cause: 'member-down',
      severity,
      members: names,
      nodes: [],
      summary: summaryOf(evidence, { down, votersDown, learnersDown, up, size, tolerance }),
      evidence: [
        ...down.map((m) => failureOf(m.status) ?? failureOf(m.health) ?? `${m.target.name} did not answer`),
        ...down.flatMap((m) => (m.access ? [`${m.target.name}: ${m.access.reason}`] : [])),
        `quorum ${quorum} of ${size} voting members; failure tolerance left: ${tolerance} (etcd FAQ: 3 members tolerate 1)`,
        ...electionLine(evidence),
        ...(learnersDown.length
          ? ['learners do not vote: they count toward neither quorum nor failure tolerance']
          : []),
      ],
      steps: [
        {
          text: `Check the etcd process and node of ${formatList(names)} (kubectl -n kube-system logs etcd-<node> --previous, journalctl -u etcd)`,
        },
        ...down.map((m) => ({
          text: `Restart ${m.target.name} once it is understood why it stopped (one member at a time)`,
          action: 'restart-static-pod' as const,
          args: { member: m.target.name, component: 'etcd' },
        })),
        ...(learnersDown.length
          ? [
              {
                text: `A learner that cannot catch up blocks the next member change: once ${formatList(learnersDown.map((m) => m.target.name))} is back, promote it (etcdctl member promote) or remove it and join again`,
              },
            ]
          : []),
        ...replaceSteps(evidence, votersDown),
      ],
      unknowns: [],
    };
    return { finding, explain: [...explain, `fired: ${formatList(names)} down, tolerance ${tolerance}`] };
  },
};

const REPLACE_BY_HAND =
  'If the member is lost for good: remove it first, then add the replacement (etcd FAQ, runtime-configuration "Replace a failed machine")';

/**
 * The replacement (remove, add back as a learner, promote once caught up) is offered for one lost
 * voter at a time, and only while the cluster has no learner: etcd allows one learner
 * (--max-learners 1), and a second member down leaves the new learner's snapshot to a leader with
 * no failure margin. Otherwise the step stays advice; the action refuses the same cases itself.
 */
function replaceSteps(evidence: Evidence, votersDown: MemberEvidence[]): Finding['steps'] {
  const [only] = votersDown;
  const hasLearner =
    evidence.members.some((m) => isLearner(evidence, m)) ||
    (evidence.memberList.ok && evidence.memberList.data.some((m) => m.isLearner));
  if (votersDown.length !== 1 || !only || hasLearner) return [{ text: REPLACE_BY_HAND }];
  const name = only.target.name;
  return [
    {
      text: `If ${name} is lost for good (its disk or machine is gone): replace it. etcd-doctor removes it, adds it back as a learner with the same name and peer URLs, says how to start it with an empty data dir, and promotes it once it has caught up (etcd FAQ: remove first, then add)`,
      action: 'replace-member',
      args: { member: name },
    },
  ];
}

interface DownCounts {
  down: MemberEvidence[];
  votersDown: MemberEvidence[];
  learnersDown: MemberEvidence[];
  up: number;
  size: number;
  tolerance: number;
}

function summaryOf(evidence: Evidence, c: DownCounts): string {
  const hasLearners = evidence.members.some((m) => isLearner(evidence, m));
  const label = (m: MemberEvidence) =>
    isLearner(evidence, m) ? `${m.target.name} (a learner)` : m.target.name;
  const names = c.down.map(label);
  const spare = `the cluster can survive ${c.tolerance} more failure${c.tolerance === 1 ? '' : 's'}`;
  if (c.votersDown.length === 0) {
    return `${formatList(names)} ${names.length === 1 ? 'is' : 'are'} ${describeDown(c.down)}; learners do not vote, so quorum is unaffected: ${c.up} of ${c.size} voting members serve, and ${spare}. A learner that does not come back cannot be promoted: the control-plane join that added it is stuck`;
  }
  const members = hasLearners ? 'voting members' : 'members';
  return `${formatList(names)} ${names.length === 1 ? 'is' : 'are'} ${describeDown(c.down)}; ${c.up} of ${c.size} ${members} serve, and ${spare}`;
}

/**
 * The others had lost their leader when first asked and elected a new one while the check waited
 * (probes/election.ts): the member that went down was most likely the leader, and the election
 * was the cluster recovering from it, not a lost quorum.
 */
function electionLine(evidence: Evidence): string[] {
  const election = evidence.election;
  if (!election?.leaderId) return [];
  const seen = [
    ...(election.leaderless.length ? [`${formatList(election.leaderless)} answered with no leader`] : []),
    ...(election.interrupted.length
      ? [
          `the read${election.interrupted.length === 1 ? '' : 's'} of ${formatList(election.interrupted)} failed with \`leader changed\``,
        ]
      : []),
  ];
  const seconds = (election.waitedMs / 1000).toFixed(1);
  return [
    `${seen.join(' and ')} (an election): a quorum named ${memberNameById(evidence, election.leaderId)} leader ${seconds} s later`,
  ];
}

function describeDown(down: MemberEvidence[]): string {
  const hung = down.every((m) => !m.status.ok && m.status.failure.kind === 'timeout');
  if (hung) return 'hung (the port is open but nothing answers)';
  return 'down (not answering)';
}
