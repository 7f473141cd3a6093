import type { Evidence, EvidenceKind } from '../probes/evidence.js';
import type { Cause, Finding } from './finding.js';

export interface RuleContext {
  /** Epoch ms; rules compare timestamps against it instead of reading the clock. */
  now: number;
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
  evaluate(evidence: Evidence, ctx: RuleContext): RuleResult;
}
