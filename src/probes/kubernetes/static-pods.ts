import type { Outcome } from '../outcome.js';
import { type Probe, toFailure } from '../probe.js';
import { type KubeProbeContext, toEpochMs } from './context.js';
import {
  CONTROL_PLANE_COMPONENTS,
  type EtcdOperatorStatus,
  type ExpectedStaticPod,
  type OperatorCondition,
  type StaticPodsData,
  type WarningEvent,
} from './evidence.js';
import { listWarningEvents } from './events.js';
import { kubeCall } from './kube-call.js';
import type { ControlPlaneLayout } from './layout.js';

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

export function expectedPods(
  layout: ControlPlaneLayout,
  node: string,
  present: Set<string>,
): ExpectedStaticPod[] {
  return CONTROL_PLANE_COMPONENTS.map((component) => {
    const { namespace, prefix } = layout.mirrorPods[component];
    const podName = `${prefix}-${node.toLowerCase()}`;
    return { node, component, namespace, podName, present: present.has(`${namespace}/${podName}`) };
  });
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

/** `.status.conditions` and `.status.nodeStatuses` of the etcd operator CR (library-go condition.go). */
export function parseEtcdOperator(object: unknown): EtcdOperatorStatus {
  const status = field(object, 'status');
  const conditions: OperatorCondition[] = list(field(status, 'conditions')).map((c) => ({
    type: text(field(c, 'type')) ?? '',
    status: text(field(c, 'status')) ?? 'Unknown',
    reason: text(field(c, 'reason')),
    message: text(field(c, 'message'))?.split('\n')[0],
    since: toEpochMs(text(field(c, 'lastTransitionTime'))),
  }));
  const nodeStatuses = list(field(status, 'nodeStatuses')).map((n) => ({
    node: text(field(n, 'nodeName')) ?? '',
    currentRevision: num(field(n, 'currentRevision')),
    targetRevision: num(field(n, 'targetRevision')),
  }));
  return { conditions, nodeStatuses };
}

function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
}
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const num = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined);

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
