import type { KubernetesClients } from '../clients/kubernetes.js';
import type { ClusterConfig } from '../config/schema.js';
import {
  createBackupSnapshotsProbe,
  type SnapshotCheckBudget,
  type SnapshotCheckCache,
  type SnapshotReadSlots,
} from './backup-snapshots.js';
import type { BackupsEvidence } from './backups-evidence.js';
import { type ProbeRecord, probeRecord } from './evidence.js';
import type { Outcome } from './outcome.js';
import { runProbe } from './probe.js';

/**
 * A diagnosis reads newest first until a good snapshot, by its SHA-256 trailer and its newest
 * revision, within 10 s a file and 12 s in all; `/etcd backups` parses every page of up to ten, 30 s
 * a file, a minute in all. Measured 2026-12-05 on the shared 2-core VM (load 20): a 207 MB snapshot
 * of 200,000 keys takes 1.2 s by its hash and newest revision, 3.8-4.4 s with every page parsed; the
 * check holds the reader's page cache (at most 16 MiB, +19 MB heap measured), never the keys.
 */
export const DIAGNOSIS_BUDGET: SnapshotCheckBudget = {
  totalMs: 12_000,
  perFileMs: 10_000,
  until: 'first-good',
  pages: 'newest',
};
export const LISTING_BUDGET: SnapshotCheckBudget = {
  totalMs: 60_000,
  perFileMs: 30_000,
  until: 'all',
  pages: 'all',
};
/** A hung mount (NFS) never answers readdir: the probe's deadline is the budget plus this. */
const LISTING_GRACE_MS = 3000;

export interface CollectBackupsOptions {
  cluster: Pick<ClusterConfig, 'name' | 'backups' | 'kubernetes'>;
  budget: SnapshotCheckBudget;
  cache: SnapshotCheckCache;
  slots: SnapshotReadSlots;
  now: () => number;
  /** The Kubernetes requests' deadline (probes.timeoutMs). */
  timeoutMs: number;
  /** Loaded only for a cluster with `kubernetes` (the client is ~800 modules). */
  loadKubernetesClients: () => Promise<KubernetesClients>;
  signal?: AbortSignal;
}

/** The cluster's backups: the snapshot directory and the backup jobs, at once; undefined without `backups`. */
export async function collectBackups(
  opts: CollectBackupsOptions,
): Promise<{ evidence: BackupsEvidence; probes: ProbeRecord[] } | undefined> {
  const settings = opts.cluster.backups;
  if (!settings) return undefined;
  const probes: ProbeRecord[] = [];
  const record = <T>(name: string, outcome: Outcome<T>): Outcome<T> => {
    probes.push(probeRecord(name, outcome));
    return outcome;
  };
  const subject = `cluster ${opts.cluster.name}`;
  const signal = opts.signal ? { signal: opts.signal } : {};
  const dir = settings.dir;
  const snapshotsP = dir
    ? runProbe(
        createBackupSnapshotsProbe(opts.budget.totalMs + LISTING_GRACE_MS),
        {
          dir,
          pattern: settings.pattern,
          budget: opts.budget,
          cache: opts.cache,
          slots: opts.slots,
          now: opts.now,
        },
        { subject, now: opts.now, ...signal },
      ).then((o) => record('backups', o))
    : undefined;
  const jobsP = opts.cluster.kubernetes
    ? backupJobs(opts, subject).then((o) => record('k8s-backup-jobs', o))
    : undefined;
  const [snapshots, jobs] = await Promise.all([snapshotsP, jobsP]);
  const evidence: BackupsEvidence = {
    maxAgeHours: settings.maxAgeHours,
    pattern: settings.pattern,
    dir,
    ...(snapshots ? { snapshots } : {}),
    ...(jobs ? { jobs } : {}),
  };
  return { evidence, probes };
}

async function backupJobs(opts: CollectBackupsOptions, subject: string) {
  const started = opts.now();
  let clients: KubernetesClients;
  try {
    clients = await opts.loadKubernetesClients();
  } catch (err) {
    const message = `${subject}: ${err instanceof Error ? err.message : String(err)}`;
    return {
      ok: false as const,
      failure: { kind: 'error' as const, message },
      durationMs: opts.now() - started,
    };
  }
  // The Kubernetes client is loaded by now: this module's imports cost nothing more.
  const { createBackupJobsProbe } = await import('./kubernetes/backup-jobs.js');
  return runProbe(
    createBackupJobsProbe(opts.timeoutMs),
    { clients },
    {
      subject: `the apiserver of ${opts.cluster.name} (${clients.server})`,
      now: opts.now,
      ...(opts.signal ? { signal: opts.signal } : {}),
    },
  );
}
