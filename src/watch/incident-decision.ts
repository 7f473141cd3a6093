import type { DiagnosisReport, FindingJson } from '../contracts/report-json.js';
import { LATENT_CAUSES, VIEW_CAUSES } from '../diagnosis/finding.js';

/**
 * Consecutive bad checks that open an incident, and healthy ones that resolve it: one bad check is
 * often a blip, and a cluster that flaps should not open and close an incident every interval.
 */
export const OPEN_AFTER_CHECKS = 2;
export const RESOLVE_AFTER_CHECKS = 3;

/** Causes that open an incident at the first check: the cluster is down or refuses writes now. */
const OPEN_AT_ONCE = new Set(['member-down', 'quorum-lost']);

/** Consecutive bad (warning or worse) and healthy checks, kept between checks. */
export interface Streak {
  bad: number;
  good: number;
}

/** What an open incident is about: its root cause and severity when last posted. */
export interface IncidentSubject {
  cause: string;
  severity: 'critical' | 'warning';
  members: string[];
}

export type IncidentAction =
  | { kind: 'none' }
  | { kind: 'open'; subject: IncidentSubject }
  | { kind: 'update'; subject: IncidentSubject }
  | { kind: 'resolve' };

/**
 * Findings an incident is about: warning or worse, and about the cluster. View limits (our own
 * access, our network path, our own load: VIEW_CAUSES) never are: they say nothing about the cluster;
 * nor is a known bug of the release a member runs (LATENT_CAUSES): a risk, not a fault now.
 */
export function actionableFindings(report: DiagnosisReport): FindingJson[] {
  return report.findings.filter(
    (f) =>
      (f.severity === 'critical' || f.severity === 'warning') &&
      !VIEW_CAUSES.has(f.cause) &&
      !LATENT_CAUSES.has(f.cause),
  );
}

/** The finding that opens at once: a member down, quorum lost, or the NOSPACE alarm. */
function opensAtOnce(findings: FindingJson[]): boolean {
  return findings.some(
    (f) => OPEN_AT_ONCE.has(f.cause) || (f.cause === 'db-quota' && /NOSPACE/.test(f.summary)),
  );
}

/**
 * The root cause of a check as `/etcd watch` keeps it (its warning-or-worse causes, root first):
 * the first that is about the cluster, not our view of it (as actionableFindings).
 */
export function rootCauseOf(causes: ReadonlyArray<readonly [string, readonly string[]]>): string | undefined {
  return causes.find(
    ([cause]) => !VIEW_CAUSES.has(cause as never) && !LATENT_CAUSES.has(cause as never),
  )?.[0];
}

/** The new streak after one check: bad counts actionable checks, good counts healthy ones. */
export function nextStreak(report: DiagnosisReport, streak: Streak): Streak {
  if (actionableFindings(report).length > 0) return { bad: streak.bad + 1, good: 0 };
  if (report.status === 'healthy') return { bad: 0, good: streak.good + 1 };
  // Unknown (only view limits, or nothing could be read): neither side gains; a bad run is broken.
  return { bad: 0, good: streak.good };
}

/**
 * What the incident does after a check: open on the second bad check in a row (the first when the
 * cluster is down or full), update when the root cause or its severity changed, resolve after
 * three healthy checks in a row, nothing otherwise (an unchanged check posts nothing). A new root
 * cause is posted, like an open, once two checks in a row name it (`previousRoot` is the one
 * before), or at once when it is a member down, quorum lost or NOSPACE: a single check that names
 * another cause (a burst of late heartbeats as a slowed disk recovers) does not rewrite the thread.
 */
export function decideIncident(
  report: DiagnosisReport,
  streak: Streak,
  open: IncidentSubject | undefined,
  previousRoot?: string,
): IncidentAction {
  const findings = actionableFindings(report);
  const root = findings[0];
  if (!open) {
    if (!root) return { kind: 'none' };
    if (streak.bad >= OPEN_AFTER_CHECKS || opensAtOnce(findings))
      return { kind: 'open', subject: subjectOf(root) };
    return { kind: 'none' };
  }
  if (streak.good >= RESOLVE_AFTER_CHECKS) return { kind: 'resolve' };
  if (!root) return { kind: 'none' };
  const subject = subjectOf(root);
  if (subject.cause !== open.cause) {
    const confirmed = subject.cause === previousRoot || opensAtOnce(findings);
    return confirmed ? { kind: 'update', subject } : { kind: 'none' };
  }
  return subject.severity !== open.severity ? { kind: 'update', subject } : { kind: 'none' };
}

function subjectOf(f: FindingJson): IncidentSubject {
  return { cause: f.cause, severity: f.severity === 'critical' ? 'critical' : 'warning', members: f.members };
}
