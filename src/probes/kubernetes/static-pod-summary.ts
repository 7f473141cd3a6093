import { toEpochMs } from './epoch.js';
import {
  CONTROL_PLANE_COMPONENTS,
  type EtcdOperatorStatus,
  type ExpectedStaticPod,
  type OperatorCondition,
} from './evidence.js';
import type { ControlPlaneLayout } from './layout.js';

/** Pure parts of the static-pods probe, shared with collected evidence (no API client loaded). */

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
