import type { CheckDepth } from '../contracts/check-depth.js';
import type { ClusterConfig } from '../config/schema.js';

/**
 * The modules a run of this cluster loads lazily (undici for diagnose's GETs, the Kubernetes client
 * when it has `kubernetes`), loaded before its observer window opens: a first load blocks the
 * event loop for ~100-800 ms, which the window would count as etcd-doctor's own load.
 */
export function loadModulesFor(cluster: ClusterConfig, depth: CheckDepth): Promise<void> | undefined {
  // A health check of a cluster without Kubernetes loads nothing: no promise to wait for.
  if (depth === 'health' && !cluster.kubernetes) return undefined;
  return loadModules(cluster, depth);
}

export async function loadModules(cluster: ClusterConfig, depth: CheckDepth): Promise<void> {
  // One load per process, one module after the other: concurrent runs share it (and Jest's ESM
  // loader fails imports of overlapping graphs started at once).
  if (depth !== 'health') {
    httpModule ??= import('undici').then(() => undefined);
    await httpModule;
  }
  if (cluster.kubernetes) {
    kubernetesModules ??= (async () => {
      await import('../clients/kubernetes.js');
      await import('../probes/kubernetes/collect.js');
    })();
    await kubernetesModules;
  }
}

// Module-wide on purpose: one load per process, whichever Doctor runs first.
let httpModule: Promise<void> | undefined;
let kubernetesModules: Promise<void> | undefined;
