import type { BackupJobJson, BackupsJson, DiagnosisReport, SnapshotJson } from '../contracts/report-json.js';
import { type TextView, textView } from './chat-view.js';
import { formatAge, formatBytes } from '../format.js';

const HOUR_MS = 3600_000;

const age = (hours: number) => formatAge(hours * HOUR_MS);

const n = (v: number) => v.toLocaleString('en-US');

/** `` • `snap.db` 2.1 h old · 12 MB · revision 1,234 · 56 behind · SHA-256 ok ``. */
export function snapshotRow(s: SnapshotJson): string {
  const parts = [`• \`${s.file}\` ${age(s.ageHours)} old`, formatBytes(s.sizeBytes)];
  if (s.state === 'damaged') return [...parts, `DAMAGED: ${s.error ?? 'unreadable'}`].join(' · ');
  if (s.state === 'unchecked') return [...parts, s.error ?? 'not read'].join(' · ');
  if (s.revision !== null) parts.push(`revision ${n(s.revision)}`);
  if (s.behindRevisions !== null) parts.push(`${n(s.behindRevisions)} behind`);
  parts.push(s.hashOk === null ? 'no SHA-256 trailer' : 'SHA-256 ok');
  return parts.join(' · ');
}

function jobRow(j: BackupJobJson, checkedAt: number): string {
  const ago = (at: string | null) => (at ? `${age((checkedAt - Date.parse(at)) / HOUR_MS)} ago` : 'never');
  const schedule = j.schedule ? ` \`${j.schedule}\`` : '';
  const suspended = j.suspended ? ' (suspended)' : '';
  const run = j.lastRun;
  const last =
    run?.state === 'failed'
      ? ` · last run \`${run.name}\` FAILED${run.reason ? `: ${run.reason}` : ''}`
      : run?.state === 'running'
        ? ` · \`${run.name}\` running`
        : '';
  return `• ${j.kind} \`${j.namespace}/${j.name}\`${schedule}${suspended} · last success ${ago(j.lastSuccessfulAt)}${last}`;
}

/** The listing's lines: where, each snapshot newest first, the verdict, the backup jobs. */
export function backupsLines(report: DiagnosisReport): string[] {
  const b = report.backups;
  if (!b) return [`*${report.cluster}* has no \`backups\` in the config: nothing to list.`];
  const lines = [whereLine(b)];
  if (b.error) lines.push(`The directory could not be read: ${b.error}`);
  else if (b.dir !== null) {
    if (b.snapshots.length === 0) lines.push(`No file matches \`${b.pattern}\` there.`);
    lines.push(...b.snapshots.map(snapshotRow));
    if (b.matched !== null && b.matched > b.snapshots.length)
      lines.push(
        `…and ${b.matched - b.snapshots.length} older files (the newest ${b.snapshots.length} are listed).`,
      );
  }
  lines.push(verdictLine(report, b));
  const checkedAt = Date.parse(b.checkedAt);
  if (b.jobs) {
    lines.push(
      b.jobs.length ? '*Backup jobs in Kubernetes:*' : 'No etcd backup CronJob or Job in Kubernetes.',
    );
    lines.push(...b.jobs.map((j) => jobRow(j, checkedAt)));
  } else if (b.jobsError) lines.push(`Backup jobs: ${b.jobsError}`);
  return lines;
}

function whereLine(b: BackupsJson): string {
  const rev =
    b.clusterRevision === null
      ? 'revision unknown (no member answered)'
      : `at revision ${n(b.clusterRevision)}`;
  const where =
    b.dir === null ? 'Kubernetes backup jobs only (no backups.dir)' : `\`${b.dir}\` (\`${b.pattern}\`)`;
  return `Backups of *${b.cluster}*: ${where}, limit ${b.maxAgeHours} h; the cluster is ${rev}.`;
}

function verdictLine(report: DiagnosisReport, b: BackupsJson): string {
  const stale = report.findings.find((f) => f.cause === 'backup-stale');
  if (stale) return `${stale.severity === 'info' ? 'ℹ️' : '⚠️'} \`backup-stale\`: ${stale.summary}`;
  const good = b.newestGood;
  if (good) return `✅ Newest good: \`${good.file}\`, ${age(good.ageHours)} old (within ${b.maxAgeHours} h).`;
  // No finding and no good snapshot: the jobs decided (no readable directory), or nothing could.
  return b.jobs !== null
    ? '✅ A backup job succeeded within the limit.'
    : 'No verdict: neither the directory nor the backup jobs could be read.';
}

/** `/etcd backups <cluster>`'s answer. */
export function backupsView(report: DiagnosisReport): TextView {
  const stale = report.findings.find((f) => f.cause === 'backup-stale' && f.severity !== 'info');
  return textView(backupsLines(report), stale ? 'warning' : 'info', {
    title: `Backups of ${report.cluster}`,
  });
}

/** The digest's words for a cluster's backups: `backup 2.1 h old (rev 1,234, 56 behind)`. */
export function backupDigestPart(b: BackupsJson): string {
  if (b.dir === null) return jobsDigestPart(b);
  if (b.error) return 'backups not read';
  const good = b.newestGood;
  const newest = b.snapshots[0];
  const damaged = newest && newest.state === 'damaged' ? `; newest \`${newest.file}\` DAMAGED` : '';
  if (!good) return newest ? `no good backup${damaged}` : 'no backup';
  const behind = good.behindRevisions === null ? '' : `, ${n(good.behindRevisions)} behind`;
  const stale = good.ageHours > b.maxAgeHours ? ` (over ${b.maxAgeHours} h)` : '';
  return `backup ${age(good.ageHours)} old${stale} (\`${good.file}\`${behind})${damaged}`;
}

/** Without a directory: the newest success of the backup jobs. */
function jobsDigestPart(b: BackupsJson): string {
  if (!b.jobs) return 'backup jobs not read';
  const times = b.jobs.flatMap((j) => (j.lastSuccessfulAt ? [Date.parse(j.lastSuccessfulAt)] : []));
  if (times.length === 0) return b.jobs.length ? 'no backup job succeeded' : 'no backup job';
  const hours = (Date.parse(b.checkedAt) - Math.max(...times)) / HOUR_MS;
  return `backup job succeeded ${age(hours)} ago${hours > b.maxAgeHours ? ` (over ${b.maxAgeHours} h)` : ''}`;
}
