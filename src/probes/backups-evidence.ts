import type { Outcome } from './outcome.js';

/**
 * What etcd-doctor learned about a cluster's backups (`clusters[].backups`): the snapshot files in
 * `dir`, each read with the snapshot reader, and the backup CronJobs and Jobs Kubernetes shows.
 * Times are epoch ms; ages are judged by the rule against `RuleContext.now`.
 */
export interface BackupsEvidence {
  maxAgeHours: number;
  pattern: string;
  /** Unset: only the Kubernetes backup jobs are read (`backups` without `dir`). */
  dir: string | undefined;
  /** Absent without `dir`. */
  snapshots?: Outcome<SnapshotDirData>;
  /** Absent without `kubernetes`. */
  jobs?: Outcome<BackupJob[]>;
}

/**
 * `good`: it reads as an etcd snapshot and its SHA-256 trailer matches (or it has none, as a copied
 * `member/snap/db`); `damaged`: truncated, a page that does not parse, or a trailer that does not
 * match; `unchecked`: not read (out of time, or past the newest ones).
 */
export type SnapshotState = 'good' | 'damaged' | 'unchecked';

export interface SnapshotCheck {
  /** The file's name in `dir`. */
  file: string;
  modifiedAt: number;
  sizeBytes: number;
  state: SnapshotState;
  /** The store's revision in the snapshot; null when it could not be read. */
  revision: number | null;
  /** The SHA-256 trailer matches; null without a trailer or when the file was not read that far. */
  hashOk: boolean | null;
  /** What is wrong with a damaged file, or why it was not checked; null for a good one. */
  error: string | null;
}

export interface SnapshotDirData {
  dir: string;
  pattern: string;
  /** Files in `dir` whose names match `pattern` (only the newest are checked). */
  matched: number;
  /** Newest first (by modification time), at most MAX_SNAPSHOTS_LISTED. */
  snapshots: SnapshotCheck[];
}

/** A backup CronJob or a Job of its own (not a CronJob's), as the Kubernetes API shows it. */
export interface BackupJob {
  kind: 'CronJob' | 'Job';
  namespace: string;
  name: string;
  /** The CronJob's `spec.schedule`; null for a Job. */
  schedule: string | null;
  suspended: boolean;
  /** CronJob `status.lastSuccessfulTime`, or the newest successful Job's `completionTime`. */
  lastSuccessfulAt: number | undefined;
  /** CronJob `status.lastScheduleTime`. */
  lastScheduleAt: number | undefined;
  /** The newest Job run (the Job itself, or the CronJob's newest owned Job). */
  lastRun: BackupJobRun | undefined;
}

export interface BackupJobRun {
  name: string;
  state: 'succeeded' | 'failed' | 'running';
  /** Completion, failure or start time. */
  at: number | undefined;
  /** The Failed condition's reason and message (`BackoffLimitExceeded: Job has reached…`). */
  reason: string | undefined;
}
