import { type Probe, ProbeError } from '../probe.js';
import type { KubeProbeContext } from './context.js';
import { summarizeEvent } from './event-summary.js';
import type { WarningEvent } from './evidence.js';
import { kubeCall } from './kube-call.js';

/** Node events (kubelet `Rebooted`, `NodeNotReady`, ...) are recorded in `default`. */
const NODE_EVENTS = { namespace: 'default', fieldSelector: 'type=Warning,involvedObject.kind=Node' };

/**
 * Recent Warning events in the control-plane namespaces, and node warnings: probe failures
 * (`Unhealthy`), `BackOff`, OpenShift operator events, reboots. Newest first, bounded.
 */
export function createEventsProbe(timeoutMs: number): Probe<KubeProbeContext, WarningEvent[]> {
  return {
    kind: 'k8s-events',
    asks: 'list warning events',
    timeoutMs,
    async collect(ctx, signal) {
      const layout = await ctx.layout();
      const queries = [
        ...[...layout.eventNamespaces, ...layout.operatorNamespaces].map((namespace) => ({
          namespace,
          fieldSelector: 'type=Warning',
        })),
        NODE_EVENTS,
      ];
      const settled = await Promise.allSettled(
        queries.map((q) => listWarningEvents(ctx, q.namespace, q.fieldSelector, signal)),
      );
      const events = settled.flatMap((s) => (s.status === 'fulfilled' ? s.value : []));
      const failed = settled.flatMap((s) => (s.status === 'rejected' ? [s.reason as unknown] : []));
      if (events.length === 0 && failed.length === queries.length) throw failed[0];
      const since = ctx.now() - ctx.settings.eventWindowMs;
      return events
        .filter((e) => (e.lastSeen ?? 0) >= since)
        .sort((a, b) => (b.lastSeen ?? 0) - (a.lastSeen ?? 0))
        .slice(0, ctx.settings.eventLimit);
    },
  };
}

export async function listWarningEvents(
  ctx: KubeProbeContext,
  namespace: string,
  fieldSelector: string,
  signal: AbortSignal,
): Promise<WarningEvent[]> {
  const action = { verb: 'list', resource: 'events', namespace } as const;
  const list = await kubeCall(ctx.clients, action, signal, ctx.settings.timeoutMs, (o) =>
    ctx.clients.core.listNamespacedEvent({ namespace, fieldSelector, limit: 500 }, o),
  );
  if (!Array.isArray(list.items))
    throw new ProbeError('error', `sent an event list without items for ${namespace}`);
  return list.items.map(summarizeEvent);
}

export { summarizeEvent } from './event-summary.js';
