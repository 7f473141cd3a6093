import { formatList, formatMs } from '../format.js';

/** The parts of a report the summary reads; offline analyses share them (their causes may be new ones). */
export interface SummarizableReport {
  cluster: string;
  status: string;
  durationMs: number;
  kind?: string;
  /** Offline analyses: the one-line answer when nothing is above info. */
  verdict?: string;
  members: ReadonlyArray<{ name: string; reachable: boolean | null; isLeader: boolean }>;
  findings: ReadonlyArray<{
    cause: string;
    severity: string;
    members: readonly string[];
    summary: string;
    evidence: readonly string[];
    causedBy: string | null;
    /** Since when, from the watch's minute history (`findings[].since[]`). */
    since?: ReadonlyArray<{ text: string }>;
  }>;
}

/** Besides the root cause, the summary names this many further findings; the JSON has them all. */
const MORE_FINDINGS = 3;
/** Evidence lines quoted under the root cause. */
const ROOT_EVIDENCE = 2;

/**
 * A few lines for a model, root cause first: `Root cause: member-down on etcd-3 (critical): …`,
 * its first evidence, the other findings, then the cluster line, then a known bug of the release
 * (a risk, never the root cause). The full report is the JSON.
 */
export function summarizeReport(report: SummarizableReport): string {
  const faults = report.findings.filter((f) => f.cause !== 'known-bug');
  const [root, ...rest] = faults;
  const lines: string[] = [];
  if (root) {
    // Error lines with no known cause are no root cause: said as what they are.
    lines.push(
      `${root.cause === 'unexplained-errors' ? 'Not explained' : 'Root cause'}: ${findingLine(root)}`,
    );
    for (const s of root.since ?? []) lines.push(`  History: ${s.text}`);
    for (const e of root.evidence.slice(0, ROOT_EVIDENCE)) lines.push(`  - ${e}`);
    for (const f of rest.slice(0, MORE_FINDINGS))
      lines.push(`${f.causedBy ? `Symptom (caused by ${f.causedBy})` : 'Also'}: ${findingLine(f)}`);
    if (rest.length > MORE_FINDINGS)
      lines.push(`(+${rest.length - MORE_FINDINGS} more findings in the JSON)`);
  } else {
    lines.push(report.verdict ?? `No problems found on ${report.cluster}.`);
  }
  lines.push(clusterLine(report));
  for (const f of report.findings.filter((x) => x.cause === 'known-bug'))
    lines.push(`Known bug: ${findingLine(f)}`);
  return lines.join('\n');
}

function findingLine(f: SummarizableReport['findings'][number]): string {
  const where = f.members.length ? ` on ${formatList(f.members)}` : '';
  return `${f.cause}${where} (${f.severity}): ${f.summary}`;
}

function clusterLine(report: SummarizableReport): string {
  const answered = report.members.filter((m) => m.reachable === true).length;
  const leader = report.members.find((m) => m.isLeader)?.name;
  const what =
    report.kind === 'health' ? 'health check' : report.kind === 'diagnose' ? 'diagnosis' : 'analysis';
  const members = report.members.length
    ? `; ${answered} of ${report.members.length} members answered${leader ? `, leader ${leader}` : ', no leader'}`
    : '';
  return `Cluster ${report.cluster}: ${report.status.toUpperCase()}${members}; ${what} took ${formatMs(report.durationMs)}.`;
}
