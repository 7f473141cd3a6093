import type { Evidence, EvidenceKind } from '../probes/evidence.js';
import { type Cause, type Finding, SEVERITY_ORDER } from './finding.js';
import type { Rule, RuleContext } from './rule.js';

export type Status = 'healthy' | 'degraded' | 'critical' | 'unknown';

export interface RuleTrace {
  rule: string;
  fired: boolean;
  skipped: boolean;
  explain: string[];
}

export interface Diagnosis {
  status: Status;
  /** Root cause first, then the symptoms it explains, then the rest. */
  findings: Finding[];
  trace: RuleTrace[];
}

/** Runs every rule, links symptoms to the causes that explain them, and ranks. Knows no rule by name. */
export function diagnose(evidence: Evidence, rules: readonly Rule[], ctx: RuleContext): Diagnosis {
  const fired: Array<{ rule: Rule; finding: Finding }> = [];
  const trace: RuleTrace[] = rules.map((rule) => {
    const missing = missingEvidence(evidence, rule.needs);
    if (missing) return { rule: rule.name, fired: false, skipped: true, explain: [missing] };
    const result = rule.evaluate(evidence, ctx);
    if (result.finding) fired.push({ rule, finding: result.finding });
    return { rule: rule.name, fired: Boolean(result.finding), skipped: false, explain: result.explain };
  });
  linkCauses(fired);
  const findings = rankFindings(fired).map((f) => f.finding);
  return { status: statusOf(evidence, findings), findings, trace };
}

/** A rule is skipped only when none of a kind of evidence it needs arrived from any member. */
export function missingEvidence(evidence: Evidence, needs: readonly EvidenceKind[]): string | undefined {
  for (const kind of needs) {
    if (!hasAny(evidence, kind))
      return `not evaluated: no ${kind} evidence arrived (${whyMissing(evidence, kind)})`;
  }
  return undefined;
}

function hasAny(evidence: Evidence, kind: EvidenceKind): boolean {
  if (kind === 'memberList' || kind === 'alarms') return evidence[kind].ok;
  if (kind === 'kubernetes') return evidence.kubernetes?.ok === true;
  return evidence.members.some((m) => m[kind].ok);
}

function whyMissing(evidence: Evidence, kind: EvidenceKind): string {
  if (kind === 'memberList' || kind === 'alarms') {
    const outcome = evidence[kind];
    return outcome.ok ? 'ok' : outcome.failure.message;
  }
  if (kind === 'kubernetes') {
    const k = evidence.kubernetes;
    return !k ? 'no kubernetes config' : k.ok ? 'ok' : k.failure.message;
  }
  const first = evidence.members.map((m) => m[kind]).find((o) => !o.ok);
  return first && !first.ok ? first.failure.message : 'no members';
}

/**
 * A finding is caused by another when that one's rule declares it explains this cause. The most
 * fundamental explaining cause wins; a cause never explains itself, and chains stop at one level.
 */
function linkCauses(fired: Array<{ rule: Rule; finding: Finding }>): void {
  for (const symptom of fired) {
    const explainers = fired
      .filter((c) => c !== symptom && c.rule.explains?.includes(symptom.finding.cause))
      .filter((c) => sameScope(c.finding, symptom.finding))
      .filter((c) => !symptom.rule.explains?.includes(c.finding.cause) || c.rule.rank < symptom.rule.rank)
      .sort(byImportance);
    const root = explainers[0];
    if (root) symptom.finding.causedBy = root.finding.cause;
  }
  // A cause that is itself explained cannot explain others: keep causedBy pointing at roots.
  const byCause = new Map<Cause, Finding>(fired.map((f) => [f.finding.cause, f.finding]));
  for (const { finding } of fired) {
    let parent = finding.causedBy ? byCause.get(finding.causedBy) : undefined;
    for (let hops = 0; parent?.causedBy && hops < fired.length; hops++) {
      finding.causedBy = parent.causedBy;
      parent = byCause.get(parent.causedBy);
    }
  }
}

/**
 * A cause explains a symptom on the same members; a cluster-wide finding (no members, like
 * leader churn or control-plane restarts) is explained by any cause, and explains any symptom.
 */
function sameScope(cause: Finding, symptom: Finding): boolean {
  if (cause.members.length === 0 || symptom.members.length === 0) return true;
  return symptom.members.some((m) => cause.members.includes(m));
}

function byImportance(a: { rule: Rule; finding: Finding }, b: { rule: Rule; finding: Finding }): number {
  return SEVERITY_ORDER[a.finding.severity] - SEVERITY_ORDER[b.finding.severity] || a.rule.rank - b.rule.rank;
}

/** Root causes first (most severe, then most fundamental), each followed later by its symptoms. */
function rankFindings(fired: Array<{ rule: Rule; finding: Finding }>) {
  const roots = fired.filter((f) => !f.finding.causedBy).sort(byImportance);
  const symptoms = fired.filter((f) => f.finding.causedBy).sort(byImportance);
  return [...roots, ...symptoms];
}

function statusOf(evidence: Evidence, findings: Finding[]): Status {
  if (findings.some((f) => f.severity === 'critical')) return 'critical';
  if (findings.some((f) => f.severity === 'warning')) return 'degraded';
  const anyAnswer = evidence.members.some((m) => m.status.ok || m.health.ok);
  return anyAnswer ? 'healthy' : 'unknown';
}
