import type { CoreV1Event, V1Lease, V1Node, V1Pod } from '@kubernetes/client-node';
import { summarizePod } from './control-plane-pods.js';
import { parseEtcdPodSpec } from './etcd-pod-spec.js';
import { summarizeEvent } from './event-summary.js';
import type {
  ControlPlaneComponent,
  ControlPlaneNode,
  ControlPlanePod,
  EtcdPodSpec,
  LeaseInfo,
  WarningEvent,
} from './evidence.js';
import {
  CONTROL_PLANE_NODE_SELECTORS,
  componentOf,
  KUBEADM_LAYOUT,
  type LeaseRef,
  OPENSHIFT_LAYOUT,
} from './layout.js';
import { summarizeLease } from './lease-summary.js';
import { summarizeNode } from './nodes.js';

/**
 * The probes' mappings, for objects as `kubectl get -o json` and `oc adm must-gather` wrote them
 * (collected evidence, read offline). That JSON is the wire form the client deserializes into its
 * V1 classes; the summarizers only read fields, and toEpochMs takes the string dates the JSON
 * has, so the plain objects are read as they are.
 */
export type PlainObject = {
  kind?: string;
  metadata?: { name?: string; namespace?: string; labels?: Record<string, string> };
};

const SELECTORS = [...KUBEADM_LAYOUT.podSelectors, ...OPENSHIFT_LAYOUT.podSelectors];

/** The control-plane component a Pod runs, by either distribution's selectors; undefined for any other pod. */
export function plainPodComponent(obj: PlainObject): ControlPlaneComponent | undefined {
  const ns = obj.metadata?.namespace;
  const labels = obj.metadata?.labels ?? {};
  const selector = SELECTORS.find((s) => s.namespace === ns && matches(labels, s.labelSelector));
  return selector ? componentOf(obj as V1Pod, selector) : undefined;
}

/** `a=b,c=d` and bare `key` (exists) selectors, all that the layouts use. */
function matches(labels: Record<string, string>, selector: string): boolean {
  return selector.split(',').every((term) => {
    const [key = '', value] = term.split('=');
    return value === undefined ? key in labels : labels[key] === value;
  });
}

export function plainControlPlanePod(obj: PlainObject, component: ControlPlaneComponent): ControlPlanePod {
  return summarizePod({ pod: obj as V1Pod, component });
}

export function plainEtcdPodSpec(obj: PlainObject): EtcdPodSpec {
  return parseEtcdPodSpec(obj as V1Pod);
}

/** A control-plane Node (either role label), summarized; undefined for any other node. */
export function plainControlPlaneNode(obj: PlainObject): ControlPlaneNode | undefined {
  const labels = obj.metadata?.labels ?? {};
  if (!CONTROL_PLANE_NODE_SELECTORS.some((key) => key in labels)) return undefined;
  return summarizeNode(obj as V1Node);
}

/** A Warning event, summarized; undefined for Normal ones. */
export function plainWarningEvent(obj: PlainObject & { type?: string }): WarningEvent | undefined {
  return obj.type === 'Warning' ? summarizeEvent(obj as CoreV1Event) : undefined;
}

const LEASES: LeaseRef[] = [...KUBEADM_LAYOUT.leases, ...OPENSHIFT_LAYOUT.leases];

/** A leader-election Lease of the controller-manager or scheduler, summarized; undefined for others. */
export function plainLeaderLease(obj: PlainObject): LeaseInfo | undefined {
  const ref = LEASES.find((l) => l.namespace === obj.metadata?.namespace && l.name === obj.metadata?.name);
  return ref ? summarizeLease(ref, obj as V1Lease) : undefined;
}
