import type { DiagnosisReport, FindingJson } from '../contracts/report-json.js';
import type { MinuteSample } from '../state/minute-sample.js';

/**
 * Why a member that is down now stopped answering, from what the watch saw of it just before (issue
 * 39 item 4: "a member that stopped answering after either says why instead of a bare member-down,
 * from the watch's last samples"). A member out of file descriptors stops accepting connections
 * (`accept: too many open files`, KB §fd); one out of memory is killed (OOMKilled) or dies in the Go
 * runtime (`fatal error: runtime: out of memory`); one whose disk is full cannot write its WAL and
 * exits (etcd's wal and snap writes are fatal on error). Seen on that member in its last
 * answering minutes, each is the likely reason it is down now.
 */
const DEADLY: Readonly<Record<string, { what: string; step: string }>> = {
  'fd-exhaustion': {
    what: 'near or out of file descriptors',
    step: 'raise its open-file limit (LimitNOFILE or the container runtime default) and find what held them (client connections, watches) before starting it again',
  },
  'out-of-memory': {
    what: 'near or out of memory',
    step: 'look at its last state (OOMKilled) and its memory limit; raise the limit or cut what grew (a large database, many watchers, expensive ranges) before starting it again',
  },
  'disk-full': {
    what: 'out of disk space',
    step: 'free space on its data dir volume (WAL and snapshots) before starting it again; etcd exits when a WAL write fails',
  },
};

/** How long before its last answer a deadly finding still explains the member's death. */
const BEFORE_LAST_ANSWER_MS = 15 * 60_000;

/** The report with, on each member-down finding, what the watch saw that member run out of before it went down. */
export function addBeforeDown(report: DiagnosisReport, samples: readonly MinuteSample[]): DiagnosisReport {
  if (samples.length === 0 || !report.findings.some((f) => f.cause === 'member-down')) return report;
  const findings = report.findings.map((f) => (f.cause === 'member-down' ? explained(f, samples) : f));
  return { ...report, findings };
}

function explained(f: FindingJson, samples: readonly MinuteSample[]): FindingJson {
  const seen = f.members.flatMap((member) => {
    const last = lastDeadly(samples, member);
    return last ? [{ member, ...last }] : [];
  });
  if (seen.length === 0) return f;
  const lines = seen.map(
    (s) =>
      `before ${s.member} stopped answering (last answered at ${clock(s.lastAnswerAt)}), the watch saw it ${DEADLY[s.cause]?.what} (${s.cause} [${s.severity}] at ${clock(s.at)})`,
  );
  const steps = seen.flatMap((s) => {
    const step = DEADLY[s.cause]?.step;
    return step ? [{ text: `${s.member}: ${step}` }] : [];
  });
  const first = seen[0];
  const why = first ? `; the watch saw ${first.member} ${DEADLY[first.cause]?.what} just before` : '';
  return {
    ...f,
    summary: `${f.summary}${why}`,
    evidence: [...lines, ...f.evidence],
    steps: [...steps, ...f.steps],
  };
}

/**
 * The newest deadly finding on `member` within BEFORE_LAST_ANSWER_MS of its last answering check
 * (the newest sample without `member-down` on it; the report being answered says it is down now).
 */
function lastDeadly(
  samples: readonly MinuteSample[],
  member: string,
): { cause: string; severity: string; at: number; lastAnswerAt: number } | undefined {
  const down = (s: MinuteSample) =>
    s.f.some(([cause, , members]) => cause === 'member-down' && members.includes(member));
  const newestFirst = [...samples].sort((a, b) => b.t - a.t);
  const lastAnswer = newestFirst.find((s) => !down(s) && s.m.some(([name]) => name === member));
  if (!lastAnswer) return undefined;
  for (const s of newestFirst) {
    if (s.t > lastAnswer.t) continue;
    if (lastAnswer.t - s.t > BEFORE_LAST_ANSWER_MS) break;
    const hit = s.f.find(([cause, , members]) => cause in DEADLY && members.includes(member));
    if (hit) return { cause: hit[0], severity: hit[1], at: s.t, lastAnswerAt: lastAnswer.t };
  }
  return undefined;
}

const clock = (ms: number) => `${new Date(ms).toISOString().slice(11, 16)} UTC`;
