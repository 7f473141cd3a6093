import type { V1Lease } from '@kubernetes/client-node';
import type { Probe } from '../probe.js';
import { type KubeProbeContext, toEpochMs } from './context.js';
import type { LeaseInfo } from './evidence.js';
import { kubeGet } from './kube-call.js';
import type { LeaseRef } from './layout.js';

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

export function summarizeLease(ref: LeaseRef, lease: V1Lease | undefined): LeaseInfo {
  const spec = lease?.spec;
  const holder = spec?.holderIdentity || undefined;
  return {
    namespace: ref.namespace,
    name: ref.name,
    component: ref.component,
    found: lease !== undefined,
    holder,
    holderNode: holderNode(holder),
    renewTime: toEpochMs(spec?.renewTime),
    acquireTime: toEpochMs(spec?.acquireTime),
    leaseDurationSeconds: spec?.leaseDurationSeconds,
    leaseTransitions: spec?.leaseTransitions,
  };
}

/** KCM and scheduler identities are `<hostname>_<uuid>` (K8S controllermanager.go). */
function holderNode(holder: string | undefined): string | undefined {
  const match = holder
    ? /^(.+)_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.exec(holder)
    : null;
  return match?.[1];
}
