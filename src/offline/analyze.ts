import type { DiagnosisReport } from '../report/diagnosis-report.js';
import type { CollectionSummary, ReadLimits } from './collection.js';

/** One signal on one member, as the collected evidence dates it (`timeline[]` in the JSON). */
export interface TimelineEntry {
  /** The log signal or object event (`slowFdatasync`, `leaderChanged`, `restart`, ...). */
  signal: string;
  /** The member or node it was seen on, when known. */
  member: string | null;
  firstSeenAt: string;
  lastSeenAt: string;
  count: number;
  /** The worst duration seen, for duration signals (`slow fdatasync` up to 4.0 s). */
  maxSeconds?: number;
}

/** `etcd-doctor analyze --json`: the `diagnose --json` shape plus what was read and when things happened. */
export interface OfflineReport extends DiagnosisReport {
  source: CollectionSummary[];
  timeline: TimelineEntry[];
}

export interface AnalyzeOptions {
  signal?: AbortSignal;
  explain?: boolean;
  /** Read for the path `-`. */
  stdin?: NodeJS.ReadableStream;
  limits?: ReadLimits;
}

/**
 * Runs the rules on collected evidence: a must-gather (directory, .tar.gz, .tar), a `kubectl
 * cluster-info dump` (directory or its stdout), or log files (`-` for stdin), several at once.
 * Throws OfflineInputError for input it cannot analyse, with the answer to give.
 */
export async function analyzePaths(
  paths: readonly string[],
  _opts: AnalyzeOptions = {},
): Promise<OfflineReport> {
  throw new Error(`offline analysis is not built yet (asked for ${paths.join(', ')})`);
}
