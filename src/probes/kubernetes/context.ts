import type { V1Node, V1Pod } from '@kubernetes/client-node';
import type { KubernetesClients } from '../../clients/kubernetes.js';
import { abortableSleep } from '../../timing.js';
import type { ControlPlaneComponent } from './evidence.js';
import { kubeCall } from './kube-call.js';
import {
  CONTROL_PLANE_NODE_SELECTORS,
  type ControlPlaneLayout,
  componentOf,
  detectDistribution,
  layoutOf,
} from './layout.js';

/** Bounds of the Kubernetes probes. Defaults keep a diagnose with a hung apiserver near 3 s. */
export interface KubeProbeSettings {
  /** Deadline of each probe and of each request. */
  timeoutMs: number;
  /** Deadline of the whole log scan (many requests, `logConcurrency` at a time). */
  logTimeoutMs: number;
  logTailLines: number;
  logSinceSeconds: number;
  logLimitBytes: number;
  logConcurrency: number;
  /** Warning events older than this are left out. */
  eventWindowMs: number;
  eventLimit: number;
  /** The apiserver's /metrics is read line by line up to this size. */
  metricsMaxBytes: number;
  /**
   * The apiserver's /metrics is read twice, this far apart, so its LISTs and API Priority and
   * Fairness read as rates now (the etcd members' metrics window, probes.metricsWindowMs); 0 reads it
   * once, and the rules say its counters are averages since it started (a watch check, a digest).
   */
  metricsWindowMs: number;
}

export const DEFAULT_KUBE_PROBE_SETTINGS: KubeProbeSettings = {
  timeoutMs: 3000,
  logTimeoutMs: 6000,
  logTailLines: 2000,
  logSinceSeconds: 6 * 3600,
  logLimitBytes: 512 * 1024,
  logConcurrency: 4,
  eventWindowMs: 6 * 3600 * 1000,
  eventLimit: 50,
  metricsMaxBytes: 64 * 1024 * 1024,
  metricsWindowMs: 0,
};

export interface ListedPod {
  pod: V1Pod;
  component: ControlPlaneComponent;
}

/**
 * What every Kubernetes probe gets. The layout, the control-plane pods and the nodes are asked
 * once per collection and shared; each shared request has its own deadline, so a probe that
 * waits for one still ends at its own.
 */
export interface KubeProbeContext {
  clients: KubernetesClients;
  now: () => number;
  /** Waits out the apiserver's metrics window. */
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  settings: KubeProbeSettings;
  layout(): Promise<ControlPlaneLayout>;
  controlPlanePods(): Promise<ListedPod[]>;
  controlPlaneNodes(): Promise<V1Node[]>;
}

export interface KubeProbeContextOptions {
  clients: KubernetesClients;
  now: () => number;
  /** Default abortableSleep. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  settings: KubeProbeSettings;
  /** From the cluster config; `auto` (or absent) asks the API. */
  distribution: 'auto' | 'kubeadm' | 'openshift' | undefined;
}

/**
 * Shared requests outlive any one probe's signal, so they carry their own deadline, a little
 * longer than the probes' own: a probe waiting on one times out by its own clock, with its own words.
 */
const SHARED_GRACE_MS = 250;

export function createKubeProbeContext(opts: KubeProbeContextOptions): KubeProbeContext {
  const { clients, settings } = opts;
  const sharedTimeoutMs = settings.timeoutMs + SHARED_GRACE_MS;
  const unbounded = new AbortController().signal;
  const layout = once(async () => {
    const fixed = opts.distribution;
    return layoutOf(
      fixed === 'kubeadm' || fixed === 'openshift'
        ? fixed
        : await detectDistribution(clients, sharedTimeoutMs),
    );
  });
  const controlPlanePods = once(async () =>
    listControlPlanePods(clients, await layout(), unbounded, sharedTimeoutMs),
  );
  const controlPlaneNodes = once(() => listControlPlaneNodes(clients, unbounded, sharedTimeoutMs));
  const sleep = opts.sleep ?? abortableSleep;
  return { clients, now: opts.now, sleep, settings, layout, controlPlanePods, controlPlaneNodes };
}

export async function listControlPlanePods(
  clients: KubernetesClients,
  layout: ControlPlaneLayout,
  signal: AbortSignal,
  timeoutMs: number,
): Promise<ListedPod[]> {
  const lists = await Promise.all(
    layout.podSelectors.map(async (selector) => {
      const action = { verb: 'list', resource: 'pods', namespace: selector.namespace } as const;
      const list = await kubeCall(clients, action, signal, timeoutMs, (o) =>
        clients.core.listNamespacedPod(
          { namespace: selector.namespace, labelSelector: selector.labelSelector },
          o,
        ),
      );
      return list.items.flatMap((pod) => {
        const component = componentOf(pod, selector);
        return component ? [{ pod, component }] : [];
      });
    }),
  );
  return lists.flat().sort((a, b) => (a.pod.metadata?.name ?? '').localeCompare(b.pod.metadata?.name ?? ''));
}

async function listControlPlaneNodes(
  clients: KubernetesClients,
  signal: AbortSignal,
  timeoutMs: number,
): Promise<V1Node[]> {
  const action = { verb: 'list', resource: 'nodes' } as const;
  const lists = await Promise.all(
    CONTROL_PLANE_NODE_SELECTORS.map((labelSelector) =>
      kubeCall(clients, action, signal, timeoutMs, (o) => clients.core.listNode({ labelSelector }, o)),
    ),
  );
  const byName = new Map<string, V1Node>();
  for (const node of lists.flatMap((l) => l.items)) byName.set(node.metadata?.name ?? '', node);
  return [...byName.values()].sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''));
}

/** Memoizes an async thunk; a rejection is shared too (every probe that needs it fails the same way). */
function once<T>(fn: () => Promise<T>): () => Promise<T> {
  let promise: Promise<T> | undefined;
  return () => {
    promise ??= fn();
    return promise;
  };
}

export { toEpochMs } from './epoch.js';
