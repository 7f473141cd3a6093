import type { Probe } from '../probe.js';
import type { KubeProbeContext } from './context.js';
import { summarizeLease } from './lease-summary.js';
import type { LeaseInfo } from './evidence.js';
import { kubeGet } from './kube-call.js';

/**
 * The leader-election leases of kube-controller-manager and kube-scheduler (KB §1.6): who holds
 * them, when they were last renewed and how often they changed hands. A lease that is not there
 * is an answer too (`found: false`).
 */
export function createLeasesProbe(timeoutMs: number): Probe<KubeProbeContext, LeaseInfo[]> {
  return {
    kind: 'k8s-leases',
    asks: 'get the leader-election leases',
    timeoutMs,
    async collect(ctx, signal) {
      const layout = await ctx.layout();
      return Promise.all(
        layout.leases.map(async (ref) => {
          const action = {
            verb: 'get',
            resource: 'leases.coordination.k8s.io',
            namespace: ref.namespace,
          } as const;
          const lease = await kubeGet(ctx.clients, action, signal, ctx.settings.timeoutMs, (o) =>
            ctx.clients.coordination.readNamespacedLease({ name: ref.name, namespace: ref.namespace }, o),
          );
          return summarizeLease(ref, lease);
        }),
      );
    },
  };
}

export { summarizeLease } from './lease-summary.js';
