import { type Probe, ProbeError } from '../probe.js';
import type { KubeProbeContext, ListedPod } from './context.js';
import { mainContainerName } from './control-plane-pods.js';
import type { ContainerLogScan, LogScanData } from './evidence.js';
import { KubeStatusError, kubeCall } from './kube-call.js';
import { lineTimestamp, scanLogText } from '../../etcd/scan-logs.js';

interface LogTarget {
  listed: ListedPod;
  container: string;
  previous: boolean;
}

/**
 * A bounded scan of the etcd, kube-apiserver, kube-controller-manager and kube-scheduler logs:
 * each stream is read once with `tailLines`, `sinceSeconds` and `limitBytes`, the previous
 * container's too when it restarted (that is where `leaderelection lost` is), a few at a time.
 */
export function createControlPlaneLogsProbe(timeoutMs: number): Probe<KubeProbeContext, LogScanData> {
  return {
    kind: 'k8s-logs',
    asks: 'read the control-plane logs',
    timeoutMs,
    async collect(ctx, signal) {
      const targets = logTargets(await ctx.controlPlanePods());
      const bounds = {
        tailLines: ctx.settings.logTailLines,
        sinceSeconds: ctx.settings.logSinceSeconds,
        limitBytes: ctx.settings.logLimitBytes,
      };
      const results = await mapLimit(targets, ctx.settings.logConcurrency, (t) =>
        readAndScan(ctx, t, bounds, signal),
      );
      const scans = results.flatMap((r) => (r.ok ? [r.scan] : []));
      const errors = results.flatMap((r) => (r.ok ? [] : [r]));
      // Every stream refused (RBAC, apiserver down): the probe failed. Some refused: say which.
      const firstError = errors[0];
      if (scans.length === 0 && firstError && errors.some((e) => !e.benign)) {
        throw (
          errors.find((e) => e.error instanceof ProbeError && e.error.kind === 'forbidden')?.error ??
          firstError.error
        );
      }
      return { bounds, scans, unread: errors.map((e) => e.note) };
    },
  };
}

function logTargets(pods: ListedPod[]): LogTarget[] {
  return pods.flatMap((listed) => {
    const container = mainContainerName(listed.pod, listed.component);
    if (!container) return [];
    const status = listed.pod.status?.containerStatuses?.find((c) => c.name === container);
    const restarted = (status?.restartCount ?? 0) > 0 || status?.lastState?.terminated !== undefined;
    const current: LogTarget = { listed, container, previous: false };
    return restarted ? [current, { listed, container, previous: true }] : [current];
  });
}

type ReadResult =
  | { ok: true; scan: ContainerLogScan }
  | { ok: false; error: unknown; note: string; benign: boolean };

async function readAndScan(
  ctx: KubeProbeContext,
  target: LogTarget,
  bounds: LogScanData['bounds'],
  signal: AbortSignal,
): Promise<ReadResult> {
  const { pod, component } = target.listed;
  const namespace = pod.metadata?.namespace ?? '';
  const name = pod.metadata?.name ?? '';
  const action = { verb: 'get', resource: 'pods/log', namespace } as const;
  const label = `${name}/${target.container}${target.previous ? ' (previous)' : ''}`;
  try {
    const text = await kubeCall(ctx.clients, action, signal, ctx.settings.timeoutMs, (o) =>
      ctx.clients.core.readNamespacedPodLog(
        { name, namespace, container: target.container, previous: target.previous, ...bounds },
        o,
      ),
    );
    const body = typeof text === 'string' ? text : '';
    const lastLineAt = lastLineTime(body);
    const scan: ContainerLogScan = {
      namespace,
      pod: name,
      container: target.container,
      component,
      node: pod.spec?.nodeName,
      previous: target.previous,
      bytes: Buffer.byteLength(body),
      lines: body.length === 0 ? 0 : body.split('\n').filter((l) => l.length > 0).length,
      signals: scanLogText(body),
      ...(lastLineAt ? { lastLineAt } : {}),
    };
    return { ok: true, scan };
  } catch (error) {
    if (signal.aborted) throw error;
    // 400 is the apiserver's answer for a previous container the kubelet no longer has.
    const benign = error instanceof KubeStatusError && (error.status === 400 || error.status === 404);
    const why = error instanceof Error ? error.message : String(error);
    return { ok: false, error, note: `${label}: ${why}`, benign };
  }
}

/** The time of the last line that has one (the stream's tail end). */
function lastLineTime(body: string): string | undefined {
  const lines = body.trimEnd().split('\n');
  for (let i = lines.length - 1; i >= Math.max(0, lines.length - 20); i--) {
    const at = lineTimestamp(lines[i] ?? '');
    if (at) return at;
  }
  return undefined;
}

/** Runs `fn` over `items`, at most `limit` at a time, keeping order. */
async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) {
      results[i] = await fn(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return results;
}
