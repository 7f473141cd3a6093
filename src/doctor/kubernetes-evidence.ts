import { kubernetesLoader } from '../clients/cluster-reach.js';
import type { ClusterConfig } from '../config/schema.js';
import type { Evidence } from '../probes/evidence.js';
import type { KubernetesEvidence } from '../probes/kubernetes/evidence.js';
import type { Outcome } from '../probes/outcome.js';
import type { DoctorDeps } from './options.js';

/**
 * The Kubernetes evidence of a cluster configured with `kubernetes`; undefined without. `windowMs`:
 * the apiserver's /metrics is read at both ends of a window that long (the run's own metrics window);
 * 0 reads it once.
 */
export function kubernetesEvidenceOf(
  cluster: ClusterConfig,
  parts: 'all' | 'vantage',
  deps: DoctorDeps,
  now: () => number,
  windowMs = 0,
): Promise<Outcome<KubernetesEvidence>> | undefined {
  const k8s = cluster.kubernetes;
  if (!k8s) return undefined;
  // The Kubernetes client (~800 modules) loads only for a cluster that has Kubernetes configured.
  return import('../probes/kubernetes/collect.js').then(({ collectKubernetesOutcome }) =>
    collectKubernetesOutcome(cluster, {
      now,
      parts,
      settings: {
        timeoutMs: deps.config.probes.timeoutMs,
        logTimeoutMs: 2 * deps.config.probes.timeoutMs,
        metricsWindowMs: windowMs,
      },
      loadClients: kubernetesLoader(cluster, deps.readFileBuffer),
    }),
  );
}

/** The etcd evidence with the Kubernetes evidence and its probe records added. */
export async function withKubernetes(
  evidence: Evidence,
  kubernetes: Outcome<KubernetesEvidence>,
): Promise<Evidence> {
  // Loaded already: the outcome came from this module.
  const { kubernetesProbeRecords } = await import('../probes/kubernetes/collect.js');
  return {
    ...evidence,
    kubernetes,
    probes: [
      ...evidence.probes,
      ...(kubernetes.ok
        ? kubernetesProbeRecords(kubernetes.data)
        : [
            {
              name: 'k8s',
              ok: false,
              durationMs: Math.round(kubernetes.durationMs),
              error: kubernetes.failure.message,
            },
          ]),
    ],
  };
}
