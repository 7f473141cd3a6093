import type { Evidence } from '../../probes/evidence.js';
import type { BackupJob, SnapshotCheck } from '../../probes/backups-evidence.js';
import { formatAge, formatBytes } from '../../format.js';

const HOUR_MS = 3600_000;

/** The cluster's current revision: the highest any member's Status gave (a follower may lag a little). */
export function clusterRevision(evidence: Evidence): number | null {
  const revisions = evidence.members.flatMap((m) => (m.status.ok ? [m.status.data.revision] : []));
  return revisions.length ? Math.max(...revisions) : null;
}

export function ageHours(modifiedAt: number, now: number): number {
  return (now - modifiedAt) / HOUR_MS;
}

/** Revisions the cluster has moved on since a good snapshot; null when either is unknown, or the file is not good. */
export function behindRevisions(snapshot: SnapshotCheck, current: number | null): number | null {
  if (snapshot.state !== 'good' || snapshot.revision === null || current === null) return null;
  return Math.max(0, current - snapshot.revision);
}

/** The newest snapshot that reads as good (the list is newest first). */
export function newestGood(snapshots: readonly SnapshotCheck[]): SnapshotCheck | undefined {
  return snapshots.find((s) => s.state === 'good');
}

/** `snap-1.db: 3.2 h old, 12 MB, revision 1,234 (56 behind the cluster's 1,290), SHA-256 ok`. */
export function snapshotLine(s: SnapshotCheck, now: number, current: number | null): string {
  const head = `${s.file}: ${formatAge(now - s.modifiedAt)} old, ${formatBytes(s.sizeBytes)}`;
  if (s.state === 'damaged') return `${head}, DAMAGED: ${s.error ?? 'unreadable'}`;
  if (s.state === 'unchecked') return `${head}, ${s.error ?? 'not read'}`;
  const behind = behindRevisions(s, current);
  const rev =
    s.revision === null
      ? ''
      : `, revision ${s.revision.toLocaleString('en-US')}${behind === null ? '' : ` (${behind.toLocaleString('en-US')} behind the cluster's ${current?.toLocaleString('en-US')})`}`;
  const hash = s.hashOk === null ? 'no SHA-256 trailer (a copied db file?)' : 'SHA-256 ok';
  return `${head}${rev}, ${hash}`;
}

/** The newest success among the backup jobs (epoch ms), if any succeeded. */
export function lastJobSuccess(jobs: readonly BackupJob[]): number | undefined {
  const times = jobs.flatMap((j) => (j.lastSuccessfulAt === undefined ? [] : [j.lastSuccessfulAt]));
  return times.length ? Math.max(...times) : undefined;
}

/** `CronJob kube-system/etcd-backup (0 3 * * *): last success 5.0 h ago; last run etcd-backup-29 failed: BackoffLimitExceeded`. */
export function jobLine(j: BackupJob, now: number): string {
  const schedule = j.schedule
    ? ` (${j.schedule}${j.suspended ? ', suspended' : ''})`
    : j.suspended
      ? ' (suspended)'
      : '';
  const success =
    j.lastSuccessfulAt === undefined
      ? 'no success recorded'
      : `last success ${formatAge(now - j.lastSuccessfulAt)} ago`;
  const run = j.lastRun;
  const last = !run
    ? ''
    : run.state === 'failed'
      ? `; last run ${run.name} failed${run.reason ? `: ${run.reason}` : ''}`
      : run.state === 'running'
        ? `; ${run.name} running`
        : '';
  return `${j.kind} ${j.namespace}/${j.name}${schedule}: ${success}${last}`;
}
