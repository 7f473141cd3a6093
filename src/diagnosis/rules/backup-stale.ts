import { formatAge } from '../../format.js';
import type { BackupsEvidence, Evidence, SnapshotCheck } from '../../probes/evidence.js';
import type { Finding, RemediationStep, Severity } from '../finding.js';
import type { Rule, RuleContext, RuleResult } from '../rule.js';
import {
  ageHours,
  clusterRevision,
  jobLine,
  lastJobSuccess,
  newestGood,
  snapshotLine,
} from '../support/backups.js';

/*
 * Without a recent good snapshot, a lost quorum loses every write since the last one: etcd's
 * disaster recovery restores "from a snapshot" (`etcdutl snapshot restore`) into a new cluster
 * (https://etcd.io/docs/v3.5/op-guide/recovery/; KB F8, R1), and a snapshot is only as good as its
 * integrity hash (`etcdctl snapshot save` appends a SHA-256 that `etcdutl snapshot restore` checks
 * unless told `--skip-hash-check`). Operators ask for exactly this check: "do we have a good backup,
 * and how old is it?" (etcd-io/etcd#21283, kubermatic/kubermatic#9454). The age limit is the user's
 * (`backups.maxAgeHours`); its default of 24 h, a daily backup, is our choice, not a published bound.
 */

/** Evidence lines quoted at most (the listing is `/etcd backups`). */
const MAX_LINES = 5;

interface Judged {
  severity: Severity;
  summary: string;
  damaged?: SnapshotCheck;
}

/**
 * The newest good snapshot older than `backups.maxAgeHours`, or none at all: a warning. Without
 * `backups.dir`, the newest success of the backup CronJobs and Jobs Kubernetes shows stands in.
 * A damaged newest snapshot beside a good one within the limit is said as info.
 */
export const backupStaleRule: Rule = {
  name: 'backup-stale',
  cause: 'backup-stale',
  needs: ['backups'],
  rank: 95,
  // Files and jobs, not members: a cluster etcd-doctor cannot reach is when a stale backup matters most.
  judgesWithoutMembers: true,
  evaluate(evidence, ctx) {
    const backups = evidence.backups;
    if (!backups) return { explain: ['no backups configured'] };
    const snapshots = backups.snapshots;
    if (snapshots?.ok) return judgeSnapshots(evidence, backups, snapshots.data.snapshots, ctx);
    return judgeJobs(backups, ctx);
  },
};

function judgeSnapshots(
  evidence: Evidence,
  backups: BackupsEvidence,
  list: SnapshotCheck[],
  ctx: RuleContext,
): RuleResult {
  const { now } = ctx;
  const where = `${backups.dir} (${backups.pattern})`;
  const limit = backups.maxAgeHours;
  const good = newestGood(list);
  const newest = list[0];
  const explain = [
    `${list.length} snapshots listed in ${where}; newest good: ${good ? `${good.file}, ${ageHours(good.modifiedAt, now).toFixed(1)} h old` : 'none'} (limit ${limit} h)`,
  ];
  const judged = judge(list, good, newest, limit, now, where);
  if (!judged) return { explain };
  const current = clusterRevision(evidence);
  const lines = list.slice(0, MAX_LINES).map((s) => snapshotLine(s, now, current));
  if (list.length > MAX_LINES) lines.push(`… ${list.length - MAX_LINES} more (/etcd backups lists them)`);
  const jobs = backups.jobs?.ok ? backups.jobs.data.map((j) => jobLine(j, now)) : [];
  return {
    finding: findingOf(judged, [...lines, ...jobs], steps(backups, judged, good)),
    explain,
  };
}

/** What the listing says, or nothing when the newest good snapshot is within the limit and newest. */
function judge(
  list: SnapshotCheck[],
  good: SnapshotCheck | undefined,
  newest: SnapshotCheck | undefined,
  limitHours: number,
  now: number,
  where: string,
): Judged | undefined {
  const fresh = (s: SnapshotCheck) => ageHours(s.modifiedAt, now) <= limitHours;
  const age = (s: SnapshotCheck) => formatAge(now - s.modifiedAt);
  if (!newest)
    return { severity: 'warning', summary: `No snapshot in ${where}: the cluster has no backup there` };
  const damaged = list.find((s) => s.state === 'damaged' && (!good || s.modifiedAt > good.modifiedAt));
  const newer = damaged
    ? `; the newer ${damaged.file} (${age(damaged)} old) is damaged: ${damaged.error}`
    : '';
  if (good && fresh(good)) {
    if (!damaged) return undefined;
    return {
      severity: 'info',
      damaged,
      summary: `The newest snapshot, ${damaged.file} (${age(damaged)} old), is damaged (${damaged.error}); the newest good one, ${good.file}, is ${age(good)} old (limit ${limitHours} h)`,
    };
  }
  // A newer file that could not be read in time is not called bad: say so, at info.
  const unread = list.find(
    (s) => s.state === 'unchecked' && fresh(s) && (!good || s.modifiedAt > good.modifiedAt),
  );
  if (unread && !damaged)
    return {
      severity: 'info',
      summary: `The newest snapshot, ${unread.file} (${age(unread)} old), was not verified (${unread.error}); ${good ? `the newest good one, ${good.file}, is ${age(good)} old` : 'no older one reads as good'} (limit ${limitHours} h)`,
    };
  if (!good)
    return {
      severity: 'warning',
      ...(damaged ? { damaged } : {}),
      summary: `No good snapshot in ${where}: ${damaged ? `the newest, ${damaged.file} (${age(damaged)} old), is damaged: ${damaged.error}` : `none of the ${list.length} read as an etcd snapshot`}`,
    };
  return {
    severity: 'warning',
    ...(damaged ? { damaged } : {}),
    summary: `The newest good snapshot, ${good.file}, is ${age(good)} old (limit ${limitHours} h)${newer}`,
  };
}

/** Without a readable directory: the backup jobs' newest success decides. */
function judgeJobs(backups: BackupsEvidence, ctx: RuleContext): RuleResult {
  const jobs = backups.jobs;
  if (!jobs?.ok) return { explain: ['no backup evidence arrived'] };
  const { now } = ctx;
  const limit = backups.maxAgeHours;
  const unknowns = backups.snapshots && !backups.snapshots.ok ? [backups.snapshots.failure.message] : [];
  const last = lastJobSuccess(jobs.data);
  const explain = [
    `${jobs.data.length} backup jobs in Kubernetes; newest success ${last === undefined ? 'none' : `${ageHours(last, now).toFixed(1)} h ago`} (limit ${limit} h)`,
  ];
  if (last !== undefined && ageHours(last, now) <= limit) return { explain };
  const summary =
    jobs.data.length === 0
      ? 'No etcd backup CronJob or Job in Kubernetes (a name with etcd and backup or snapshot) and no backup directory read: the cluster may have no backup'
      : last === undefined
        ? `No etcd backup job has succeeded (${jobs.data.length} found in Kubernetes)`
        : `The newest successful etcd backup job finished ${formatAge(now - last)} ago (limit ${limit} h)`;
  const judged: Judged = { severity: 'warning', summary };
  const finding = findingOf(
    judged,
    jobs.data.map((j) => jobLine(j, now)),
    steps(backups, judged, undefined),
  );
  finding.unknowns = unknowns;
  return { finding, explain };
}

function findingOf(judged: Judged, evidence: string[], steps: RemediationStep[]): Finding {
  return {
    cause: 'backup-stale',
    severity: judged.severity,
    members: [],
    nodes: [],
    summary: judged.summary,
    evidence,
    steps,
    unknowns: [],
  };
}

function steps(backups: BackupsEvidence, judged: Judged, good: SnapshotCheck | undefined): RemediationStep[] {
  const dir = backups.dir ?? '<backup dir>';
  const out: RemediationStep[] = [];
  if (judged.damaged)
    out.push({
      text: `Do not restore from ${judged.damaged.file}: move it aside and find out what damaged it (a copy cut short, a full volume, bad storage)`,
    });
  if (backups.jobs?.ok && backups.jobs.data.length > 0)
    out.push({
      text: "Find out why the backup job stopped: `kubectl get cronjobs,jobs -A | grep -i etcd`, then the last Job's pod logs",
    });
  out.push({
    text: `Take one now from a healthy member: \`etcdctl snapshot save ${dir}/etcd-$(date -u +%Y%m%dT%H%M%SZ).db\`, then check it: \`etcdutl snapshot status <file>\` (etcd maintenance guide, "Snapshot backup")`,
  });
  if (!good)
    out.push({
      text: 'Until then a lost quorum cannot be restored (etcd disaster recovery: https://etcd.io/docs/v3.5/op-guide/recovery/)',
    });
  return out;
}
