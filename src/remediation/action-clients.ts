import { createEtcdClients, type EtcdClients, loadEtcdTls } from '../clients/etcd-clients.js';
import { etcdEndpointsOf, kubernetesLoader } from '../clients/cluster-reach.js';
import { createHttpGet, type HttpClient } from '../clients/http.js';
import { type ClusterConfig, RESERVED_ENV_PREFIXES } from '../config/schema.js';
import type { ActionClients } from './action.js';

export interface ActionClientDeps {
  readFileBuffer: (path: string) => Promise<Buffer>;
  fetch?: typeof fetch;
  /** The composition root's process env; only the variable named by `tickets.credentialEnv` is read. */
  processEnv: Record<string, string | undefined>;
  space(cluster: string, thread: string | undefined): Promise<void>;
}

let kubernetesPreloaded = false;

/**
 * Loads the Kubernetes client and the endpoint discovery once per process, in the background (a
 * failed load is seen again, and reported, by the action that needs it).
 */
export function preloadKubernetesModules(): void {
  if (kubernetesPreloaded) return;
  kubernetesPreloaded = true;
  void Promise.all([
    import('../clients/kubernetes.js'),
    import('../probes/kubernetes/discover-etcd-endpoints.js'),
    import('@kubernetes/client-node'),
  ]).catch(() => undefined);
}

/** Fresh clients per run, created on first use: a remediation never shares a probe's channels. */
export function createActionClients(
  cluster: ClusterConfig,
  deps: ActionClientDeps,
): ActionClients & { close(): Promise<void> } {
  let etcd: Promise<EtcdClients> | undefined;
  let http: Promise<HttpClient> | undefined;
  // Loaded when an action needs it: a static import put the Kubernetes client (~60 MiB RSS)
  // into every worker's start-up, with Kubernetes configured or not.
  const loadKube = kubernetesLoader(cluster, deps.readFileBuffer, 'action_failed');
  return {
    etcd() {
      etcd ??= (async () => {
        const endpoints = await etcdEndpointsOf(cluster, loadKube);
        const tls = await loadEtcdTls(cluster, deps);
        return createEtcdClients({ ...cluster, etcd: { ...cluster.etcd, endpoints } }, tls);
      })();
      return etcd;
    },
    kubernetes: loadKube,
    fetch: deps.fetch ?? fetch,
    async metrics(url, signal) {
      http ??= loadEtcdTls(cluster, deps).then((tls) => createHttpGet(tls));
      const res = await (await http).get(url, signal);
      if (res.status !== 200) throw new Error(`HTTP ${res.status}`);
      return res.body;
    },
    // The schema refuses these names too; this holds even for a config built in code.
    credential: (name) =>
      RESERVED_ENV_PREFIXES.some((p) => name.startsWith(p)) ? undefined : deps.processEnv[name],
    space: (thread) => deps.space(cluster.name, thread),
    async close() {
      if (etcd) (await etcd.catch(() => undefined))?.close();
      if (http) await (await http.catch(() => undefined))?.close();
    },
  };
}
