import type { Evidence, EvidenceKind } from '../probes/evidence.js';
import { type Cause, type Finding, LATENT_CAUSES, SEVERITY_ORDER } from './finding.js';
import type { Rule, RuleContext } from './rule.js';
import { assessVantage, type Vantage } from './vantage.js';

export type Status = 'healthy' | 'degraded' | 'critical' | 'unknown';

export interface RuleTrace {
  rule: string;
  fired: boolean;
  skipped: boolean;
  explain: string[];
}

export interface Diagnosis {
  status: Status;
  /** Root cause first, then the symptoms it explains, then the rest; findings about our own view last. */
  findings: Finding[];
  trace: RuleTrace[];
  /** What limits etcd-doctor's own view: members it could not check, and why. */
  vantage: Vantage;
}

/**
 * Runs every rule, links symptoms to the causes that explain them, and ranks. Knows no rule by
 * name. When no member could be checked (the view is blind), only rules about etcd-doctor's own
 * view run: a cluster we cannot see is `unknown`, never down.
 */
export function diagnose(evidence: Evidence, rules: readonly Rule[], ctx: RuleContext): Diagnosis {
  const vantage = ctx.vantage ?? assessVantage(evidence);
  const ruleCtx: RuleContext = { ...ctx, vantage };
  const fired: Array<{ rule: Rule; finding: Finding }> = [];
  // Rules skipped for want of evidence, and those of them whose evidence this run did not ask for.
  const lackingEvidence = new Set<string>();
  const notAsked = new Set<string>();
  const trace: RuleTrace[] = rules.map((rule) => {
    if (ctx.offline && rule.live) {
      const explain = [`not evaluated: offline (it needs ${rule.live})`];
      return { rule: rule.name, fired: false, skipped: true, explain };
    }
    if (vantage.blind && rule.scope !== 'vantage' && !rule.judgesWithoutMembers) {
      const explain = [`not evaluated: etcd-doctor could not check any member (${blindReason(vantage)})`];
      return { rule: rule.name, fired: false, skipped: true, explain };
    }
    const missing = lacksEvidence(evidence, rule.needs);
    if (missing) {
      lackingEvidence.add(rule.name);
      if (notAskedFor(evidence, rule.needs)) notAsked.add(rule.name);
      // Without --explain nobody reads why: the reason is not written (a health check skips 13 rules).
      const explain = ctx.explain === false ? [] : [missingEvidence(evidence, rule.needs) ?? ''];
      return { rule: rule.name, fired: false, skipped: true, explain };
    }
    if (rule.timesLatency && vantage.observer.distortion) {
      const explain = [`not evaluated: ${vantage.observer.distortion}`];
      return { rule: rule.name, fired: false, skipped: true, explain };
    }
    const result = rule.evaluate(evidence, ruleCtx);
    if (result.finding) fired.push({ rule, finding: result.finding });
    return { rule: rule.name, fired: Boolean(result.finding), skipped: false, explain: result.explain };
  });
  linkCauses(fired);
  markUnchecked(fired, rules, { lackingEvidence, notAsked });
  for (const { rule, finding } of fired)
    if (finding.causedBy && rule.stepsWhenExplained)
      finding.steps = rule.stepsWhenExplained(finding.causedBy);
  const findings = rankFindings(fired).map((f) => f.finding);
  // A known bug of the release is a risk, not a fault: the status is what the cluster does now.
  const aboutCluster = fired
    .filter((f) => f.rule.scope !== 'vantage' && !LATENT_CAUSES.has(f.finding.cause))
    .map((f) => f.finding);
  return { status: vantage.blind ? 'unknown' : statusOf(evidence, aboutCluster), findings, trace, vantage };
}

function blindReason(vantage: Vantage): string {
  const reasons = [...new Set(vantage.unseen.map((u) => u.access?.reason ?? u.why))];
  return reasons.slice(0, 2).join('; ') || 'no member answered';
}

/**
 * True when evidence the rule needs was not asked for in this run (a health check reads no
 * /metrics or clocks): another run would read it. Evidence that could not be had (no kubernetes:
 * section, a /metrics that failed) is not "not asked".
 */
function notAskedFor(evidence: Evidence, needs: readonly EvidenceKind[]): boolean {
  return needs.some(
    (kind) =>
      kind !== 'memberList' &&
      kind !== 'alarms' &&
      kind !== 'kubernetes' &&
      kind !== 'backups' &&
      evidence.members.length > 0 &&
      evidence.members.every((m) => {
        const outcome = m[kind];
        return !outcome.ok && outcome.failure.kind === 'skipped';
      }),
  );
}

/** True when some kind of evidence the rule needs arrived from no member (missingEvidence says which). */
function lacksEvidence(evidence: Evidence, needs: readonly EvidenceKind[]): boolean {
  for (const kind of needs) if (!hasAny(evidence, kind)) return true;
  return false;
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
  if (kind === 'backups')
    return evidence.backups?.snapshots?.ok === true || evidence.backups?.jobs?.ok === true;
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
  if (kind === 'backups') {
    const b = evidence.backups;
    const failed = [b?.snapshots, b?.jobs].find((o) => o && !o.ok);
    return !b ? 'no backups config, or not asked' : failed && !failed.ok ? failed.failure.message : 'ok';
  }
  const first = evidence.members.map((m) => m[kind]).find((o) => !o.ok);
  return first && !first.ok ? first.failure.message : 'no members';
}

/**
 * A symptom no fired cause explains, when causes that could explain it went unjudged for want of
 * their evidence (every rule naming that cause skipped so; not offline, not for etcd-doctor's own
 * load): the report calls it a symptom and names those causes, never a root cause (issue 42: a
 * health check called slow reads the root cause of a slow disk it reads nothing of). Causes whose
 * rules ran and stayed quiet are ruled out, not listed.
 */
function markUnchecked(
  fired: Array<{ rule: Rule; finding: Finding }>,
  rules: readonly Rule[],
  skipped: { lackingEvidence: ReadonlySet<string>; notAsked: ReadonlySet<string> },
): void {
  for (const { finding } of fired) {
    if (finding.causedBy) continue;
    const explainers = rules.filter((r) => r.scope !== 'vantage' && r.explains?.includes(finding.cause));
    // A cause none of whose rules ran, one of them because this run did not ask for its evidence
    // (a health check's /metrics): another run would judge it.
    const unchecked = [...new Set(explainers.map((r) => r.cause))].filter((cause) => {
      const ofCause = explainers.filter((r) => r.cause === cause);
      return (
        ofCause.every((r) => skipped.lackingEvidence.has(r.name)) &&
        ofCause.some((r) => skipped.notAsked.has(r.name))
      );
    });
    if (unchecked.length > 0) finding.uncheckedCauses = unchecked;
  }
}

/**
 * A finding is caused by another when that one's rule declares it explains this cause. The most
 * fundamental explaining cause wins; a cause never explains itself, and chains stop at one level.
 */
function linkCauses(fired: Array<{ rule: Rule; finding: Finding }>): void {
  for (const symptom of fired) {
    const explainers = fired
      .filter((c) => c !== symptom && c.rule.explains?.includes(symptom.finding.cause))
      // An info finding (the past, or a weak sign) does not explain a live warning or critical one.
      .filter((c) => c.finding.severity !== 'info' || symptom.finding.severity === 'info')
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

/**
 * Root causes first (most severe, then most fundamental), each followed later by its symptoms;
 * findings about etcd-doctor's own view come after everything about the cluster.
 */
function rankFindings(fired: Array<{ rule: Rule; finding: Finding }>) {
  const latent = (f: { finding: Finding }) => LATENT_CAUSES.has(f.finding.cause);
  const cluster = fired.filter((f) => f.rule.scope !== 'vantage' && !latent(f));
  const roots = cluster.filter((f) => !f.finding.causedBy).sort(byImportance);
  const symptoms = cluster.filter((f) => f.finding.causedBy).sort(byImportance);
  const risks = fired.filter((f) => f.rule.scope !== 'vantage' && latent(f)).sort(byImportance);
  const vantage = fired.filter((f) => f.rule.scope === 'vantage').sort(byImportance);
  return [...roots, ...symptoms, ...risks, ...vantage];
}

function statusOf(evidence: Evidence, findings: Finding[]): Status {
  if (findings.some((f) => f.severity === 'critical')) return 'critical';
  if (findings.some((f) => f.severity === 'warning')) return 'degraded';
  const anyAnswer = evidence.members.some((m) => m.status.ok || m.health.ok);
  return anyAnswer ? 'healthy' : 'unknown';
}
