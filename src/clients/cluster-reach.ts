import type { ClusterConfig } from '../config/schema.js';
import { describeError, EtcdDoctorError, type ErrorCode } from '../errors.js';
import type { KubernetesClients } from './kubernetes.js';

/**
 * How etcd-doctor reaches a cluster beyond its configured URLs, in one place (issue 41): its
 * Kubernetes clients from the cluster's `kubernetes:` section, and its etcd client URLs, configured
 * or read from the etcd pods. The probes, the remediation actions and the space scan take theirs
 * from here: one way to load the kubeconfig, one timeout and one error for the discovery.
 */

/** The etcd pods' flags are read in one list call, or a few for OpenShift's layout. */
export const ENDPOINT_DISCOVERY_TIMEOUT_MS = 5000;

type ReadFileBuffer = (path: string) => Promise<Buffer>;

/**
 * The cluster's Kubernetes clients, loaded on first use and then shared: the client (~800 modules,
 * ~60 MiB RSS) loads only for a cluster that has `kubernetes:` and a run that needs it. Without the
 * section, a call fails with noKubernetes's words and `code`.
 */
export function kubernetesLoader(
  cluster: ClusterConfig,
  readFileBuffer: ReadFileBuffer,
  code: ErrorCode = 'config_invalid',
): () => Promise<KubernetesClients> {
  let loaded: Promise<KubernetesClients> | undefined;
  return () => {
    const k8s = cluster.kubernetes;
    if (!k8s) return Promise.reject(new EtcdDoctorError(code, noKubernetes(cluster.name)));
    loaded ??= import('./kubernetes.js').then(({ loadKubernetesClients }) =>
      loadKubernetesClients(k8s, { readFile: async (p) => (await readFileBuffer(p)).toString('utf8') }),
    );
    return loaded;
  };
}

/** What a cluster without a `kubernetes:` section cannot do. */
export function noKubernetes(cluster: string): string {
  return `cluster ${cluster} has no kubernetes: section in the config`;
}

/**
 * The cluster's etcd client URLs: `etcd.endpoints`, or, for a cluster configured with `kubernetes:`
 * only, the client URLs in its etcd pods' flags. One error when they cannot be had, naming why.
 */
export async function etcdEndpointsOf(
  cluster: ClusterConfig,
  loadKubernetes: () => Promise<KubernetesClients>,
): Promise<string[]> {
  if (cluster.etcd.endpoints) return cluster.etcd.endpoints;
  try {
    if (!cluster.kubernetes) throw new Error('no kubernetes config');
    const { discoverEtcdEndpoints } = await import('../probes/kubernetes/discover-etcd-endpoints.js');
    return await discoverEtcdEndpoints(await loadKubernetes(), {
      timeoutMs: ENDPOINT_DISCOVERY_TIMEOUT_MS,
      ...(cluster.kubernetes.distribution ? { distribution: cluster.kubernetes.distribution } : {}),
    });
  } catch (err) {
    throw new EtcdDoctorError(
      'config_invalid',
      `cluster ${cluster.name} lists no etcd.endpoints and they could not be discovered through Kubernetes: ${describeError(err).replace(/^unexpected error: /, '')}`,
      { cause: err },
    );
  }
}
