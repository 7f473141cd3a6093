import { row } from './stats.js';

/**
 * The performance issue's goals, each judged by the section that measures it and gathered here, so
 * one run prints them side by side as met or not met from its own numbers (bench/run.ts prints the
 * table after the sections; a section run alone prints its own lines).
 */
export interface GoalResult {
  /** What is measured, as the issue names it. */
  figure: string;
  /** This run's figure, with its unit. */
  measured: string;
  /** The goal, with its unit. */
  goal: string;
  met: boolean;
  /** What the same run measured beside it (etcdctl, the raw RPCs), to read the figure against. */
  beside?: string;
}

const results: GoalResult[] = [];

export function recordGoal(result: GoalResult): void {
  results.push(result);
}

export const verdict = (met: boolean): string => (met ? 'met' : 'not met');

/** The table of every goal this run measured, or nothing when no section measured one. */
export function goalsTable(): string {
  if (!results.length) return '';
  return [
    '## Goals of the performance issue, judged from this run',
    '',
    row(['figure', 'this run', 'goal', 'verdict', 'beside it in the same run']),
    row(['---', '---', '---', '---', '---']),
    ...results.map((r) => row([r.figure, r.measured, r.goal, verdict(r.met), r.beside ?? ''])),
    '',
    'Each row comes from the section above that measured it; a goal whose section did not run is not listed.',
    '',
  ].join('\n');
}
