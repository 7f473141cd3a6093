import { kubernetesLoader } from '../clients/cluster-reach.js';
import type { ClusterConfig } from '../config/schema.js';
import type { DoctorDeps } from './options.js';

export type BackupsCollection = NonNullable<Awaited<ReturnType<CollectBackups>>>;
export type CollectBackups = typeof import('../probes/collect-backups.js').collectBackups;
export type SnapshotChecks = Pick<
  import('../probes/collect-backups.js').CollectBackupsOptions,
  'cache' | 'slots'
>;

/** The doctor's cache of snapshot checks and its read slots, made when the first cluster with `backups` is run. */
export function lazySnapshotCache(): () => Promise<SnapshotChecks> {
  let checks: Promise<SnapshotChecks> | undefined;
  return () => {
    checks ??= import('../probes/backup-snapshots.js').then((m) => ({
      cache: m.createSnapshotCheckCache(),
      slots: m.createSnapshotReadSlots(),
    }));
    return checks;
  };
}

/**
 * The backups of a cluster with `backups`: the snapshot reader and, with `kubernetes`, the Kubernetes
 * client load only then. `listing` reads every listed snapshot (`/etcd backups`).
 */
export async function backupsEvidenceOf(
  cluster: ClusterConfig,
  how: 'diagnosis' | 'listing',
  deps: DoctorDeps,
  checks: () => Promise<SnapshotChecks>,
  signal: AbortSignal | undefined,
): Promise<BackupsCollection | undefined> {
  const m = await import('../probes/collect-backups.js');
  return m.collectBackups({
    cluster,
    budget: how === 'listing' ? m.LISTING_BUDGET : m.DIAGNOSIS_BUDGET,
    ...(await checks()),
    // Budgets run on the real clock; file ages are judged by the rule against the doctor's.
    now: Date.now,
    timeoutMs: deps.config.probes.timeoutMs,
    loadKubernetesClients: kubernetesLoader(cluster, deps.readFileBuffer),
    ...(signal ? { signal } : {}),
  });
}
