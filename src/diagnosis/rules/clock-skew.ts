import type { Evidence, MemberEvidence } from '../../probes/evidence.js';
import { formatList, formatMs } from '../../format.js';
import type { Finding } from '../finding.js';
import type { Rule } from '../rule.js';

/** etcd warns when `s.ClockDiff() > time.Second` (ETCD34/35 rafthttp/probing_status.go; KB §1.1 F2). */
export const CLOCK_DRIFT_LIMIT_MS = 1000;

interface Reading {
  member: MemberEvidence;
  offsetMs: number;
  uncertaintyMs: number;
}

/**
 * F2 clock drift between members, measured from each member's HTTP `Date` header (clock probe).
 * A member is skewed when its clock differs from the median of the others by more than 1 s plus
 * the measurement's own uncertainty. There is no etcd metric for drift (etcd-fault-signatures.md).
 */
export const clockSkewRule: Rule = {
  name: 'clock-skew',
  live: 'the member clocks, read now',
  cause: 'clock-skew',
  needs: ['clock'],
  explains: ['leader-churn'],
  rank: 25,
  evaluate(evidence) {
    const { readings, named } = liveClockSkew(evidence);
    const explain = readings.map(
      (r) =>
        `${r.member.target.name}: clock ${signed(r.offsetMs)} against ours (±${formatMs(r.uncertaintyMs)})`,
    );
    if (readings.length < 2)
      return { explain: [...explain, 'fewer than two clocks read: cannot compare members'] };
    if (named.length === 0) {
      return {
        explain: [
          ...explain,
          `no member differs from the others by more than ${formatMs(CLOCK_DRIFT_LIMIT_MS)}`,
        ],
      };
    }
    const names = named.map(({ r }) => r.member.target.name);
    const worst = named[0];
    const finding: Finding = {
      cause: 'clock-skew',
      severity: 'warning',
      members: names,
      nodes: [],
      summary: `${formatList(names)}'s clock is ${worst ? signed(worst.drift.ms) : ''} off from the other members (etcd's limit is 1 s)`,
      evidence: named.map(
        ({ r, drift }) =>
          `${r.member.target.name}: clock ${signed(drift.ms)} against the other members (±${formatMs(drift.uncertaintyMs)}, from HTTP Date headers; etcd warns above 1 s)`,
      ),
      steps: [
        {
          text: `Fix time sync on the node of ${formatList(names)}: check \`chronyc tracking\` or \`timedatectl\`, and point every master at the same NTP source (etcd-io/etcd#7051)`,
        },
        {
          text: 'Raft itself does not depend on wall clocks, but leases and TTLs do: fix the clock before chasing other symptoms (etcd-io/etcd#9768)',
        },
      ],
      unknowns: [],
    };
    return { finding, explain: [...explain, `fired: ${formatList(names)}`] };
  },
};

/**
 * The clocks read now: each member's offset, and those that disagree with most of the others by
 * more than 1 s plus the measurement's uncertainty. With two members both disagree, so the one
 * farther from our own clock is named. The logs rule uses it to tell old drift from current drift.
 */
export function liveClockSkew(evidence: Evidence): {
  readings: Reading[];
  named: Array<{ r: Reading; drift: ReturnType<typeof driftAgainstOthers> }>;
  /** The widest spread between two clocks read now, in ms. */
  spreadMs: number;
} {
  const readings: Reading[] = evidence.members.flatMap((member) =>
    member.clock.ok
      ? [{ member, offsetMs: member.clock.data.offsetMs, uncertaintyMs: member.clock.data.uncertaintyMs }]
      : [],
  );
  const offsets = readings.map((r) => r.offsetMs);
  const spreadMs = offsets.length ? Math.max(...offsets) - Math.min(...offsets) : 0;
  if (readings.length < 2) return { readings, named: [], spreadMs };
  const skewed = readings
    .map((r) => ({ r, drift: driftAgainstOthers(r, readings) }))
    .filter(({ drift }) => drift.disagreements * 2 > readings.length - 1);
  const named =
    readings.length === 2
      ? skewed.sort((a, b) => Math.abs(b.r.offsetMs) - Math.abs(a.r.offsetMs)).slice(0, 1)
      : skewed;
  return { readings, named, spreadMs };
}

/** How many members this one disagrees with beyond the limit, and its drift against their mean. */
function driftAgainstOthers(
  r: Reading,
  all: Reading[],
): { ms: number; uncertaintyMs: number; disagreements: number } {
  const others = all.filter((o) => o !== r);
  const disagreements = others.filter(
    (o) => Math.abs(r.offsetMs - o.offsetMs) - (r.uncertaintyMs + o.uncertaintyMs) > CLOCK_DRIFT_LIMIT_MS,
  ).length;
  const mean = others.reduce((sum, o) => sum + o.offsetMs, 0) / Math.max(1, others.length);
  const uncertainty = Math.max(...others.map((o) => o.uncertaintyMs), 0) + r.uncertaintyMs;
  return { ms: Math.round(r.offsetMs - mean), uncertaintyMs: uncertainty, disagreements };
}

function signed(ms: number): string {
  const text = formatMs(Math.abs(ms));
  return ms >= 0 ? `+${text}` : `-${text}`;
}
