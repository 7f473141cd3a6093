import type { V1ContainerStatus, V1Pod } from '@kubernetes/client-node';
import type { Probe } from '../probe.js';
import type { KubeProbeContext, ListedPod } from './context.js';
import { toEpochMs } from './epoch.js';
import type { ControlPlaneContainer, ControlPlanePod } from './evidence.js';

/** kubelet sets it on the API copy of a static pod (k8s.io/api core/v1 MirrorPodAnnotationKey). */
export const MIRROR_ANNOTATION = 'kubernetes.io/config.mirror';

/**
 * Control-plane pods (KB §1.6, F6): per pod the restart count, readiness, current state and last
 * termination of each container, and the node. kubeadm lists kube-system `tier=control-plane`;
 * OpenShift lists one namespace per component.
 */
export function createControlPlanePodsProbe(timeoutMs: number): Probe<KubeProbeContext, ControlPlanePod[]> {
  return {
    kind: 'k8s-pods',
    asks: 'list control-plane pods',
    timeoutMs,
    async collect(ctx) {
      const listed = await ctx.controlPlanePods();
      return listed.map(summarizePod);
    },
  };
}

export function summarizePod({ pod, component }: ListedPod): ControlPlanePod {
  const containers = (pod.status?.containerStatuses ?? []).map(summarizeContainer);
  return {
    namespace: pod.metadata?.namespace ?? '',
    name: pod.metadata?.name ?? '',
    component,
    node: pod.spec?.nodeName,
    phase: pod.status?.phase,
    ready: pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false,
    mirror: pod.metadata?.annotations?.[MIRROR_ANNOTATION] !== undefined,
    startedAt: toEpochMs(pod.status?.startTime),
    main: containers.find((c) => c.name === mainContainerName(pod, component)),
    containers,
  };
}

/** The container that runs the component: named after it in kubeadm and OpenShift manifests. */
export function mainContainerName(pod: V1Pod, component: string): string | undefined {
  const names = pod.spec?.containers.map((c) => c.name) ?? [];
  return names.includes(component) ? component : names[0];
}

function summarizeContainer(status: V1ContainerStatus): ControlPlaneContainer {
  const state = status.state;
  const last = status.lastState?.terminated;
  return {
    name: status.name,
    restartCount: status.restartCount,
    ready: status.ready,
    state: state?.running
      ? 'running'
      : state?.waiting
        ? 'waiting'
        : state?.terminated
          ? 'terminated'
          : 'unknown',
    waitingReason: state?.waiting?.reason,
    startedAt: toEpochMs(state?.running?.startedAt),
    lastTermination: last
      ? {
          reason: last.reason,
          exitCode: last.exitCode,
          finishedAt: toEpochMs(last.finishedAt),
          message: lastLine(last.message),
        }
      : undefined,
  };
}

/** A termination message is the log tail with FallbackToLogsOnError; its last line says why. */
function lastLine(message: string | undefined): string | undefined {
  const lines = message?.trim().split('\n') ?? [];
  return lines.at(-1)?.slice(0, 240);
}
