import type { V1Pod } from '@kubernetes/client-node';
import type { KubernetesClients } from '../../clients/kubernetes.js';
import { formatSeconds, ProbeError } from '../probe.js';
import {
  CONTROL_PLANE_COMPONENTS,
  type ControlPlaneComponent,
  type LeaderElectedComponent,
} from './evidence.js';

export interface PodSelector {
  namespace: string;
  labelSelector: string;
  /** Every pod this selector lists is this component; undefined: read the `component` label. */
  component: ControlPlaneComponent | undefined;
}

export interface LeaseRef {
  namespace: string;
  name: string;
  component: LeaderElectedComponent;
}

/** Where a distribution keeps its control plane (KB §4.1). */
export interface ControlPlaneLayout {
  distribution: 'kubeadm' | 'openshift';
  podSelectors: PodSelector[];
  leases: LeaseRef[];
  /** Mirror pods are `<prefix>-<node>` in `namespace` (kubelet generatePodName, node lower-cased). */
  mirrorPods: Record<ControlPlaneComponent, { namespace: string; prefix: string }>;
  /** Namespaces whose Warning events matter. */
  eventNamespaces: string[];
  /** OpenShift operator namespaces, where `MissingStaticPod` events are recorded. */
  operatorNamespaces: string[];
}

/** Control-plane nodes carry either role label (KB §4.1 "node role"). */
export const CONTROL_PLANE_NODE_SELECTORS = [
  'node-role.kubernetes.io/control-plane',
  'node-role.kubernetes.io/master',
];

/** kubeadm: static pods in kube-system labelled `component=<name>`, `tier=control-plane` (K8Sidx ComponentPod). */
export const KUBEADM_LAYOUT: ControlPlaneLayout = {
  distribution: 'kubeadm',
  podSelectors: [{ namespace: 'kube-system', labelSelector: 'tier=control-plane', component: undefined }],
  leases: [
    { namespace: 'kube-system', name: 'kube-controller-manager', component: 'kube-controller-manager' },
    { namespace: 'kube-system', name: 'kube-scheduler', component: 'kube-scheduler' },
  ],
  mirrorPods: {
    etcd: { namespace: 'kube-system', prefix: 'etcd' },
    'kube-apiserver': { namespace: 'kube-system', prefix: 'kube-apiserver' },
    'kube-controller-manager': { namespace: 'kube-system', prefix: 'kube-controller-manager' },
    'kube-scheduler': { namespace: 'kube-system', prefix: 'kube-scheduler' },
  },
  eventNamespaces: ['kube-system'],
  operatorNamespaces: [],
};

/**
 * OpenShift 4.x: one namespace per component with the labels of CEOP pod.gotpl.yaml and OCPOPS
 * pod.yaml; the scheduler lease lives in openshift-kube-scheduler (OCPOPS scheduler defaultconfig).
 */
export const OPENSHIFT_LAYOUT: ControlPlaneLayout = {
  distribution: 'openshift',
  podSelectors: [
    { namespace: 'openshift-etcd', labelSelector: 'app=etcd,etcd=true', component: 'etcd' },
    {
      namespace: 'openshift-kube-apiserver',
      labelSelector: 'app=openshift-kube-apiserver,apiserver=true',
      component: 'kube-apiserver',
    },
    {
      namespace: 'openshift-kube-controller-manager',
      labelSelector: 'app=kube-controller-manager,kube-controller-manager=true',
      component: 'kube-controller-manager',
    },
    {
      namespace: 'openshift-kube-scheduler',
      labelSelector: 'app=openshift-kube-scheduler,scheduler=true',
      component: 'kube-scheduler',
    },
  ],
  leases: [
    { namespace: 'kube-system', name: 'kube-controller-manager', component: 'kube-controller-manager' },
    { namespace: 'openshift-kube-scheduler', name: 'kube-scheduler', component: 'kube-scheduler' },
  ],
  mirrorPods: {
    etcd: { namespace: 'openshift-etcd', prefix: 'etcd' },
    'kube-apiserver': { namespace: 'openshift-kube-apiserver', prefix: 'kube-apiserver' },
    'kube-controller-manager': {
      namespace: 'openshift-kube-controller-manager',
      prefix: 'kube-controller-manager',
    },
    'kube-scheduler': { namespace: 'openshift-kube-scheduler', prefix: 'openshift-kube-scheduler' },
  },
  eventNamespaces: [
    'openshift-etcd',
    'openshift-kube-apiserver',
    'openshift-kube-controller-manager',
    'openshift-kube-scheduler',
  ],
  operatorNamespaces: [
    'openshift-etcd-operator',
    'openshift-kube-apiserver-operator',
    'openshift-kube-controller-manager-operator',
    'openshift-kube-scheduler-operator',
  ],
};

export function layoutOf(distribution: 'kubeadm' | 'openshift'): ControlPlaneLayout {
  return distribution === 'openshift' ? OPENSHIFT_LAYOUT : KUBEADM_LAYOUT;
}

/** The component a listed pod is: fixed by its selector, or its kubeadm `component` label. */
export function componentOf(pod: V1Pod, selector: PodSelector): ControlPlaneComponent | undefined {
  if (selector.component) return selector.component;
  const label = pod.metadata?.labels?.component;
  return CONTROL_PLANE_COMPONENTS.find((c) => c === label);
}

/**
 * OpenShift serves the `operator.openshift.io` API group; kubeadm clusters answer 404. API
 * discovery is open to every authenticated user (`system:discovery`).
 */
export async function detectDistribution(
  clients: KubernetesClients,
  timeoutMs: number,
): Promise<'kubeadm' | 'openshift'> {
  const deadline = AbortSignal.timeout(timeoutMs);
  let res: Awaited<ReturnType<KubernetesClients['getRaw']>>;
  try {
    res = await clients.getRaw('/apis/operator.openshift.io', deadline, { maxBytes: 256 * 1024 });
  } catch (err) {
    if (!deadline.aborted) throw err;
    const message = `did not answer API discovery (GET /apis/operator.openshift.io) in ${formatSeconds(timeoutMs)}`;
    throw new ProbeError('timeout', message, { cause: err });
  }
  if (res.status === 200) return 'openshift';
  if (res.status === 404) return 'kubeadm';
  if (res.status === 401 || res.status === 403) {
    throw new ProbeError(
      'forbidden',
      `refused API discovery (GET /apis/operator.openshift.io, HTTP ${res.status})`,
    );
  }
  throw new ProbeError('error', `answered GET /apis/operator.openshift.io with HTTP ${res.status}`);
}
