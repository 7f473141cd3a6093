import type { V1Node } from '@kubernetes/client-node';
import type { Probe } from '../probe.js';
import type { KubeProbeContext } from './context.js';
import { toEpochMs } from './epoch.js';
import type { ControlPlaneNode, NodeConditionState, NodeConditionType } from './evidence.js';

const CONDITIONS: readonly NodeConditionType[] = [
  'Ready',
  'MemoryPressure',
  'DiskPressure',
  'PIDPressure',
  'NetworkUnavailable',
];

/** Control-plane nodes (role label control-plane or master): conditions and bootID (KB §1.6). */
export function createNodesProbe(timeoutMs: number): Probe<KubeProbeContext, ControlPlaneNode[]> {
  return {
    kind: 'k8s-nodes',
    asks: 'list control-plane nodes',
    timeoutMs,
    async collect(ctx) {
      return (await ctx.controlPlaneNodes()).map(summarizeNode);
    },
  };
}

export function summarizeNode(node: V1Node): ControlPlaneNode {
  const conditions: ControlPlaneNode['conditions'] = {};
  for (const c of node.status?.conditions ?? []) {
    const type = CONDITIONS.find((t) => t === c.type);
    if (!type) continue;
    const state: NodeConditionState = {
      status: c.status === 'True' || c.status === 'False' ? c.status : 'Unknown',
      reason: c.reason,
      message: c.message,
      since: toEpochMs(c.lastTransitionTime),
    };
    conditions[type] = state;
  }
  return {
    name: node.metadata?.name ?? '',
    internalIp: node.status?.addresses?.find((a) => a.type === 'InternalIP')?.address,
    conditions,
    bootId: node.status?.nodeInfo?.bootID || undefined,
    kubeletVersion: node.status?.nodeInfo?.kubeletVersion,
    unschedulable: node.spec?.unschedulable ?? false,
    createdAt: toEpochMs(node.metadata?.creationTimestamp),
  };
}
