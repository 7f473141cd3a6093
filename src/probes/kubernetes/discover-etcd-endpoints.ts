import type { KubernetesClients } from '../../clients/kubernetes.js';
import { ProbeError } from '../probe.js';
import { createKubeProbeContext, DEFAULT_KUBE_PROBE_SETTINGS } from './context.js';
import { parseEtcdPodSpec } from './etcd-pod-spec.js';

export interface DiscoverEtcdOptions {
  distribution?: 'auto' | 'kubeadm' | 'openshift';
  timeoutMs?: number;
  now?: () => number;
}

/**
 * The etcd client URLs of a cluster configured with `kubernetes` only: the first
 * `--advertise-client-urls` entry of each etcd pod, ordered by node. Throws a ProbeError (403,
 * timeout, no etcd pods) that says why none were found.
 */
export async function discoverEtcdEndpoints(
  clients: KubernetesClients,
  opts: DiscoverEtcdOptions = {},
): Promise<string[]> {
  const ctx = createKubeProbeContext({
    clients,
    now: opts.now ?? Date.now,
    settings: {
      ...DEFAULT_KUBE_PROBE_SETTINGS,
      timeoutMs: opts.timeoutMs ?? DEFAULT_KUBE_PROBE_SETTINGS.timeoutMs,
    },
    distribution: opts.distribution,
  });
  const pods = (await ctx.controlPlanePods()).filter((p) => p.component === 'etcd');
  const specs = pods
    .map((p) => parseEtcdPodSpec(p.pod))
    .sort((a, b) => (a.node ?? a.pod).localeCompare(b.node ?? b.pod));
  const urls = [...new Set(specs.flatMap((s) => s.advertiseClientUrls.slice(0, 1)))];
  if (urls.length === 0) {
    const why =
      pods.length === 0
        ? 'found no etcd pods'
        : `found ${pods.length} etcd pods but none sets --advertise-client-urls`;
    throw new ProbeError('error', `${why} (${(await ctx.layout()).distribution} layout)`);
  }
  return urls;
}
