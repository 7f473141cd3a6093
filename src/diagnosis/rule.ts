import type { Evidence, EvidenceKind } from '../probes/evidence.js';
import type { Cause, Finding, RemediationStep } from './finding.js';
import type { Vantage } from './vantage.js';

export interface RuleContext {
  /** Epoch ms; rules compare timestamps against it instead of reading the clock. */
  now: number;
  /** What limits etcd-doctor's own view (diagnosis/vantage.ts); the engine fills it in. */
  vantage?: Vantage;
  /**
   * The evidence was collected earlier (`etcd-doctor analyze`): rules that need a live reading
   * (`Rule.live`) are reported as not evaluated instead of judging what is not there.
   */
  offline?: boolean;
  /**
   * False: nobody reads the rules' explain lines (no `--explain`), so a rule may skip writing them
   * (explainLines). Undefined counts as true: tests and `--explain` get every line.
   */
  explain?: boolean;
  /**
   * How often the cluster is expected to be compacted (cluster `maintenance.compactionIntervalSeconds`);
   * undefined: kube-apiserver's default --etcd-compaction-interval, 5 min.
   */
  compactionIntervalMs?: number;
}

/**
 * A rule's explain lines, written only when they are read: the per-member lines of the Status and
 * read rules (sizes, percentages, times) were the largest part of a warm health check's rule time.
 */
export function explainLines(ctx: RuleContext, lines: () => string[]): string[] {
  return ctx.explain === false ? [] : lines();
}

export interface RuleResult {
  finding?: Finding;
  /** Why it fired or did not, with the numbers compared (`etcd-doctor diagnose --explain`). */
  explain: string[];
}

/**
 * A rule is a pure function from evidence to at most one finding. It declares the evidence it
 * needs; when none of that evidence arrived the engine says so instead of running it.
 */
export interface Rule {
  readonly name: string;
  readonly cause: Cause;
  readonly needs: readonly EvidenceKind[];
  /**
   * Symptoms this cause explains (slow-disk explains leader-churn). The engine links them with
   * `causedBy`. Order rules by how fundamental they are with `rank` (lower is more fundamental).
   */
  readonly explains?: readonly Cause[];
  readonly rank: number;
  /**
   * `vantage`: the finding is about etcd-doctor's own view (access, network path, its own load), not
   * the cluster. Such rules run even when no member could be checked, and never set the status.
   */
  readonly scope?: 'vantage';
  /**
   * The rule judges evidence that is not the members' (backup files): it runs even when no member
   * could be checked, where a stale backup matters most. The status stays `unknown` then.
   */
  readonly judgesWithoutMembers?: boolean;
  /**
   * The rule judges latencies etcd-doctor times itself (round trips, a read's took). When its own
   * event loop was stalled during the probes, the engine reports it as not evaluated instead.
   */
  readonly timesLatency?: boolean;
  /**
   * A symptom's steps once the engine has linked it to the cause that explains it: its own steps
   * were written for it alone ("find out what is behind it") and no longer fit.
   */
  stepsWhenExplained?(cause: Cause): RemediationStep[];
  /**
   * The live reading the rule judges (`the member clocks, read now`): on collected evidence it is
   * not evaluated, with the reason `offline`.
   */
  readonly live?: string;
  evaluate(evidence: Evidence, ctx: RuleContext): RuleResult;
}
