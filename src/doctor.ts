import type { CheckDepth } from './contracts/check-depth.js';
import { createClientPool } from './clients/cluster-clients.js';
import type { ClusterConfig } from './config/schema.js';
import type { DiagnosisReport } from './contracts/report-json.js';
import { rules as defaultRules } from './diagnosis/rules/index.js';
import { backupsEvidenceOf, lazySnapshotCache } from './doctor/backups-evidence.js';
import { firstScrapesOf } from './doctor/first-scrapes-of.js';
import { kubernetesEvidenceOf } from './doctor/kubernetes-evidence.js';
import { loadModulesFor } from './doctor/lazy-modules.js';
import type { DoctorDeps, RunOptions } from './doctor/options.js';
import { type Pipeline, runOnClients } from './doctor/run-on-clients.js';
import { EtcdDoctorError } from './errors.js';
import type { Evidence } from './probes/evidence.js';
import type { FirstScrapes } from './probes/first-scrapes.js';
import { BUSY_SAME_HOST_RUNS, startObserverWindow } from './probes/observer-load.js';
import { createRunLoad, hostsOf } from './probes/run-load.js';
import { abortableSleep } from './timing.js';

export type { DoctorDeps, RunOptions } from './doctor/options.js';
export { MEMBER_LIST_REUSE_MS } from './doctor/run-on-clients.js';

/*
 * The Doctor: a cluster name in, a report out. The parts of one run are in src/doctor/: the options,
 * the run on a cluster's clients (evidence, rules, report), the lazily loaded modules, and the
 * Kubernetes and backups evidence.
 */

/** The chat-agnostic core: cluster name in, report out. The CLI and the worker both use it. */
export interface Doctor {
  clusterNames(): string[];
  /** Throws `cluster_unknown` listing the known clusters. */
  cluster(name: string): ClusterConfig;
  run(name: string, depth: CheckDepth, opts?: RunOptions): Promise<DiagnosisReport>;
  /**
   * The first /metrics scrape of each configured member, for a diagnose run a metrics window later
   * (pass it as `scrapes`): the digest's clusters wait out their windows holding only these, with
   * their connections closed before this returns. Undefined when there is nothing to keep (no
   * window, endpoints discovered through Kubernetes, TLS files unreadable, no member answered):
   * the run then takes both scrapes itself.
   */
  firstScrapes(name: string): Promise<FirstScrapes | undefined>;
  close(): Promise<void>;
}

/**
 * A full diagnosis of a cluster (its backups too when it has any configured) and the evidence it was
 * read from: what the lifecycle checks (upgrade-check, recover) judge beside the report.
 */
export async function diagnoseWithEvidence(
  doctor: Pick<Doctor, 'run' | 'cluster'>,
  clusterName: string,
  signal?: AbortSignal,
): Promise<{ cluster: ClusterConfig; report: DiagnosisReport; evidence: Evidence | undefined }> {
  const cluster = doctor.cluster(clusterName);
  let evidence: Evidence | undefined;
  const report = await doctor.run(clusterName, 'diagnose', {
    backups: Boolean(cluster.backups),
    onEvidence: (e) => {
      evidence = e;
    },
    ...(signal ? { signal } : {}),
  });
  return { cluster, report, evidence };
}

export function createDoctor(deps: DoctorDeps): Doctor {
  const now = deps.now ?? Date.now;
  const sleep = deps.sleep ?? abortableSleep;
  const rules = deps.rules ?? defaultRules;
  // Clients are kept per cluster, so a warm health check reuses its gRPC channels.
  const pool = createClientPool(deps);
  // Runs in flight in this process, and the most at once during each run (evidence.observer).
  const load = createRunLoad();

  const collectKubernetes = (cluster: ClusterConfig, parts: 'all' | 'vantage' = 'all', windowMs = 0) =>
    kubernetesEvidenceOf(cluster, parts, deps, now, windowMs);
  // Snapshots already read, by path, size, mtime and inode: a watch re-reads none of them.
  const snapshotChecks = lazySnapshotCache();
  const collectBackups = (cluster: ClusterConfig, depth: CheckDepth, opts: RunOptions) =>
    cluster.backups && (depth === 'diagnose' || opts.backups)
      ? backupsEvidenceOf(cluster, opts.backups ? 'listing' : 'diagnosis', deps, snapshotChecks, opts.signal)
      : undefined;
  const pipeline: Pipeline = { deps, now, sleep, rules, collectKubernetes };

  const doctor: Doctor = {
    clusterNames: () => deps.config.clusters.map((c) => c.name),
    cluster(name) {
      const found = deps.config.clusters.find((c) => c.name === name);
      if (!found) {
        throw new EtcdDoctorError(
          'cluster_unknown',
          `unknown cluster "${name}"; known clusters: ${doctor.clusterNames().join(', ')}`,
        );
      }
      return found;
    },
    async run(name, depth, opts = {}) {
      const cluster = doctor.cluster(name);
      opts.signal?.throwIfAborted();
      const loading = loadModulesFor(cluster, depth);
      if (loading) await loading;
      const started = performance.now();
      const collectedAt = now();
      const endRun = load.begin(hostsOf(cluster));
      const observer = startObserverWindow();
      // Kubernetes evidence (diagnose only) is collected at the same time as etcd's, and the apiserver's
      // /metrics read over the same window as the members'. A watch check or a digest run scrapes
      // the members once against a kept scrape: the apiserver is read once then (since-start averages).
      const apiserverWindowMs = opts.scrapes ? 0 : deps.config.probes.metricsWindowMs;
      const kubernetesP =
        depth === 'diagnose' ? collectKubernetes(cluster, 'all', apiserverWindowMs) : undefined;
      const backupsP = collectBackups(cluster, depth, opts);
      const held = pool.acquire(cluster, opts.keepClients ?? true);
      let ended = false;
      const endObserving = () => {
        ended = true;
        const peak = endRun();
        return { ...observer.stop(peak.runs), sameHostRuns: peak.sameHostRuns };
      };
      try {
        return await runOnClients(pipeline, await held.clients, depth, opts, {
          started,
          collectedAt,
          kubernetesP,
          backupsP,
          endObserving,
          busy: load.sameHostRuns(hostsOf(cluster)) >= BUSY_SAME_HOST_RUNS,
        });
      } finally {
        if (!ended) endObserving();
        pool.release(name, held);
      }
    },
    firstScrapes: (name) => firstScrapesOf(doctor.cluster(name), deps),
    close: () => pool.close(),
  };

  return doctor;
}
