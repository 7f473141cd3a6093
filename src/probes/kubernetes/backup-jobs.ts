import type { V1CronJob, V1Job } from '@kubernetes/client-node';
import type { KubernetesClients } from '../../clients/kubernetes.js';
import type { BackupJob, BackupJobRun } from '../backups-evidence.js';
import type { Probe } from '../probe.js';
import { toEpochMs } from './epoch.js';
import { kubeCall } from './kube-call.js';

/**
 * A backup of etcd, by its name: `etcd` and `backup` or `snapshot` somewhere in `namespace/name`
 * (kubermatic's `etcd-backup-*`, OpenShift's `etcd-backup` CronJob in `openshift-etcd`, a
 * hand-made `kube-system/etcd-snapshot`). Other backups (Velero, databases) are not etcd's.
 */
const ETCD = /etcd/i;
const BACKUP = /backup|snapshot/i;
/** Jobs listed at most (cluster-wide, one page): enough for the backup Jobs of any control plane. */
const JOB_LIST_LIMIT = 1000;

export interface BackupJobsContext {
  clients: KubernetesClients;
}

export function isBackupName(namespace: string, name: string): boolean {
  const where = `${namespace}/${name}`;
  return ETCD.test(where) && BACKUP.test(where);
}

/**
 * The etcd backup CronJobs and Jobs the Kubernetes API shows, with when each last succeeded (the
 * CronJob's `status.lastSuccessfulTime`, Kubernetes 1.21+) and how its newest run ended. Needs
 * RBAC `list` on `cronjobs` and `jobs` (batch); a 403 is this probe's failure, nothing else's.
 */
export function createBackupJobsProbe(timeoutMs: number): Probe<BackupJobsContext, BackupJob[]> {
  return {
    kind: 'k8s-backup-jobs',
    asks: 'list the backup CronJobs and Jobs',
    timeoutMs,
    async collect(ctx, signal) {
      const { clients } = ctx;
      const [cronJobs, jobs] = await Promise.all([
        kubeCall(clients, { verb: 'list', resource: 'cronjobs.batch' }, signal, timeoutMs, (o) =>
          clients.batch.listCronJobForAllNamespaces({}, o),
        ),
        kubeCall(clients, { verb: 'list', resource: 'jobs.batch' }, signal, timeoutMs, (o) =>
          clients.batch.listJobForAllNamespaces({ limit: JOB_LIST_LIMIT }, o),
        ),
      ]);
      return summarizeBackupJobs(cronJobs.items, jobs.items);
    },
  };
}

/** The backup CronJobs (each with its newest owned Job) and the backup Jobs no CronJob owns. */
export function summarizeBackupJobs(cronJobs: V1CronJob[], jobs: V1Job[]): BackupJob[] {
  const crons = cronJobs.filter((c) => isBackupName(c.metadata?.namespace ?? '', c.metadata?.name ?? ''));
  const ownedBy = (job: V1Job) => job.metadata?.ownerReferences?.find((r) => r.kind === 'CronJob')?.name;
  const fromCrons = crons.map((cron): BackupJob => {
    const namespace = cron.metadata?.namespace ?? '';
    const name = cron.metadata?.name ?? '';
    const owned = jobs.filter((j) => j.metadata?.namespace === namespace && ownedBy(j) === name);
    return {
      kind: 'CronJob',
      namespace,
      name,
      schedule: cron.spec?.schedule ?? null,
      suspended: cron.spec?.suspend === true,
      lastSuccessfulAt: toEpochMs(cron.status?.lastSuccessfulTime) ?? newestSuccess(owned),
      lastScheduleAt: toEpochMs(cron.status?.lastScheduleTime),
      lastRun: newestRun(owned),
    };
  });
  const standalone = jobs.filter(
    (j) => !ownedBy(j) && isBackupName(j.metadata?.namespace ?? '', j.metadata?.name ?? ''),
  );
  const fromJobs = standalone.map(
    (job): BackupJob => ({
      kind: 'Job',
      namespace: job.metadata?.namespace ?? '',
      name: job.metadata?.name ?? '',
      schedule: null,
      suspended: job.spec?.suspend === true,
      lastSuccessfulAt: newestSuccess([job]),
      lastScheduleAt: undefined,
      lastRun: runOf(job),
    }),
  );
  return [...fromCrons, ...fromJobs].sort(
    (a, b) => a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name),
  );
}

function newestSuccess(jobs: V1Job[]): number | undefined {
  const times = jobs
    .filter((j) => (j.status?.succeeded ?? 0) > 0)
    .map((j) => toEpochMs(j.status?.completionTime))
    .filter((t): t is number => t !== undefined);
  return times.length ? Math.max(...times) : undefined;
}

function newestRun(jobs: V1Job[]): BackupJobRun | undefined {
  const started = (j: V1Job) =>
    toEpochMs(j.status?.startTime) ?? toEpochMs(j.metadata?.creationTimestamp) ?? 0;
  const newest = [...jobs].sort((a, b) => started(b) - started(a))[0];
  return newest ? runOf(newest) : undefined;
}

function runOf(job: V1Job): BackupJobRun {
  const name = job.metadata?.name ?? '';
  const failed = job.status?.conditions?.find((c) => c.type === 'Failed' && c.status === 'True');
  if (failed) {
    const reason = [failed.reason, failed.message].filter(Boolean).join(': ') || undefined;
    return { name, state: 'failed', at: toEpochMs(failed.lastTransitionTime), reason };
  }
  if ((job.status?.succeeded ?? 0) > 0)
    return { name, state: 'succeeded', at: toEpochMs(job.status?.completionTime), reason: undefined };
  return { name, state: 'running', at: toEpochMs(job.status?.startTime), reason: undefined };
}
