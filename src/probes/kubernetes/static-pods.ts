import type { Outcome } from '../outcome.js';
import { type Probe, toFailure } from '../probe.js';
import type { KubeProbeContext } from './context.js';
import type { EtcdOperatorStatus, StaticPodsData, WarningEvent } from './evidence.js';
import { listWarningEvents } from './events.js';
import { kubeCall } from './kube-call.js';
import type { ControlPlaneLayout } from './layout.js';
import { expectedPods, parseEtcdOperator } from './static-pod-summary.js';

export { expectedPods, parseEtcdOperator } from './static-pod-summary.js';

/**
 * Static pods (KB F7): the mirror pod `<component>-<node>` each control-plane node should have
 * (kubelet generatePodName lower-cases the node name). On OpenShift also the operator's
 * `MissingStaticPod` events and the etcd operator's conditions.
 */
export function createStaticPodsProbe(timeoutMs: number): Probe<KubeProbeContext, StaticPodsData> {
  return {
    kind: 'k8s-static-pods',
    asks: 'check the static pods',
    timeoutMs,
    async collect(ctx, signal) {
      const layout = await ctx.layout();
      const [pods, nodes] = await Promise.all([ctx.controlPlanePods(), ctx.controlPlaneNodes()]);
      const present = new Set(pods.map(({ pod }) => `${pod.metadata?.namespace}/${pod.metadata?.name}`));
      const expected = nodes.flatMap((node) => expectedPods(layout, node.metadata?.name ?? '', present));
      if (layout.distribution !== 'openshift')
        return { expected, missingStaticPodEvents: [], etcdOperator: undefined, notes: [] };
      const [events, etcdOperator] = await Promise.all([
        missingStaticPodEvents(ctx, layout, signal),
        readEtcdOperator(ctx, signal),
      ]);
      return { expected, missingStaticPodEvents: events.events, etcdOperator, notes: events.notes };
    },
  };
}

async function missingStaticPodEvents(
  ctx: KubeProbeContext,
  layout: ControlPlaneLayout,
  signal: AbortSignal,
) {
  const settled = await Promise.allSettled(
    layout.operatorNamespaces.map((ns) => listWarningEvents(ctx, ns, 'reason=MissingStaticPod', signal)),
  );
  const events: WarningEvent[] = settled.flatMap((s) => (s.status === 'fulfilled' ? s.value : []));
  const notes = settled.flatMap((s, i) =>
    s.status === 'rejected'
      ? [`MissingStaticPod events in ${layout.operatorNamespaces[i]}: ${errorText(s.reason)}`]
      : [],
  );
  return { events: events.sort((a, b) => (b.lastSeen ?? 0) - (a.lastSeen ?? 0)), notes };
}

async function readEtcdOperator(
  ctx: KubeProbeContext,
  signal: AbortSignal,
): Promise<Outcome<EtcdOperatorStatus>> {
  const started = ctx.now();
  const action = { verb: 'get', resource: 'etcds.operator.openshift.io' } as const;
  try {
    const object: unknown = await kubeCall(ctx.clients, action, signal, ctx.settings.timeoutMs, (o) =>
      ctx.clients.custom.getClusterCustomObject(
        { group: 'operator.openshift.io', version: 'v1', plural: 'etcds', name: 'cluster' },
        o,
      ),
    );
    return { ok: true, data: parseEtcdOperator(object), durationMs: ctx.now() - started };
  } catch (err) {
    return {
      ok: false,
      failure: toFailure(err, 'etcds.operator.openshift.io/cluster', 'get'),
      durationMs: ctx.now() - started,
    };
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
