import type { KubernetesClients } from '../../clients/kubernetes.js';
import type { ClusterConfig } from '../../config/schema.js';
import { type Outcome, skipped } from '../outcome.js';
import { type ProbeRecord, probeRecord } from '../evidence.js';
import { type Probe, runProbe } from '../probe.js';
import { createApiserverProbe } from './apiserver.js';
import { createAuditLogProbe } from './audit-log.js';
import {
  createKubeProbeContext,
  DEFAULT_KUBE_PROBE_SETTINGS,
  type KubeProbeContext,
  type KubeProbeSettings,
} from './context.js';
import { createControlPlaneLogsProbe } from './control-plane-logs.js';
import { createControlPlanePodsProbe } from './control-plane-pods.js';
import { createEtcdPodSpecProbe } from './etcd-pod-spec.js';
import { createEventsProbe } from './events.js';
import type { KubernetesEvidence } from './evidence.js';
import { createLeasesProbe } from './leases.js';
import { createNodesProbe } from './nodes.js';
import { createStaticPodsProbe } from './static-pods.js';

export interface CollectKubernetesDeps {
  clients: KubernetesClients;
  now: () => number;
  settings?: Partial<KubeProbeSettings>;
  /**
   * `vantage`: only what the apiserver can say about etcd being up (its readyz and a read, the
   * etcd pods): a health check asks it when no member answered etcd-doctor. Default `all`.
   */
  parts?: 'all' | 'vantage';
}

type ProbePart = {
  [K in keyof KubernetesEvidence]-?: KubernetesEvidence[K] extends Outcome<unknown> ? K : never;
}[keyof KubernetesEvidence];

/** The probe name of each part, as it appears in the JSON `probes` list. */
export const KUBERNETES_PROBE_NAMES: Record<ProbePart, string> = {
  pods: 'k8s-pods',
  logs: 'k8s-logs',
  leases: 'k8s-leases',
  nodes: 'k8s-nodes',
  staticPods: 'k8s-static-pods',
  etcdPods: 'k8s-etcd-spec',
  apiserver: 'k8s-apiserver',
  events: 'k8s-events',
};

/**
 * Runs every Kubernetes probe concurrently, each under its own deadline. Nothing here throws: a
 * 403 or a hung apiserver is failure evidence in its part, beside every part that answered.
 */
export async function collectKubernetesEvidence(
  cluster: Pick<ClusterConfig, 'name' | 'kubernetes'>,
  deps: CollectKubernetesDeps,
): Promise<KubernetesEvidence> {
  const settings: KubeProbeSettings = { ...DEFAULT_KUBE_PROBE_SETTINGS, ...deps.settings };
  const ctx = createKubeProbeContext({
    clients: deps.clients,
    now: deps.now,
    settings,
    distribution: cluster.kubernetes?.distribution,
  });
  const subject = `the apiserver of ${cluster.name} (${deps.clients.server})`;
  const run = async <T>(probe: Probe<KubeProbeContext, T>): Promise<Outcome<T>> => {
    const outcome = await runProbe(probe, ctx, { subject, now: deps.now });
    return outcome;
  };
  const collectedAt = deps.now();
  const t = settings.timeoutMs;
  const all = (deps.parts ?? 'all') === 'all';
  const notAsked = async () => skipped("not asked: only the apiserver's view of etcd was needed");
  const audit = cluster.kubernetes?.auditLog;
  const auditLogP =
    all && audit
      ? run(
          createAuditLogProbe(t, {
            path: audit.path,
            maxBytes: (audit.maxMiB ?? 16) * 1024 * 1024,
            maxLines: audit.maxLines ?? 100_000,
          }),
        )
      : undefined;
  const [pods, logs, leases, nodes, staticPods, etcdPods, apiserver, events] = await Promise.all([
    run(createControlPlanePodsProbe(t)),
    all ? run(createControlPlaneLogsProbe(settings.logTimeoutMs)) : notAsked(),
    all ? run(createLeasesProbe(t)) : notAsked(),
    all ? run(createNodesProbe(t)) : notAsked(),
    all ? run(createStaticPodsProbe(t)) : notAsked(),
    run(createEtcdPodSpecProbe(t)),
    run(createApiserverProbe(t, all ? settings.metricsWindowMs : 0)),
    all ? run(createEventsProbe(t)) : notAsked(),
  ]);
  const distribution = await ctx.layout().then(
    (layout) => layout.distribution,
    () => 'unknown' as const,
  );
  return {
    distribution,
    server: deps.clients.server,
    collectedAt,
    pods,
    logs,
    leases,
    nodes,
    staticPods,
    etcdPods,
    apiserver,
    events,
    ...(auditLogP ? { auditLog: await auditLogP } : {}),
  };
}

/**
 * For `Evidence.kubernetes`: collects with clients loaded on demand, and turns a kubeconfig that
 * cannot be loaded (missing file, unknown context) into failure evidence instead of an exception.
 */
export async function collectKubernetesOutcome(
  cluster: Pick<ClusterConfig, 'name' | 'kubernetes'>,
  deps: Omit<CollectKubernetesDeps, 'clients'> & { loadClients: () => Promise<KubernetesClients> },
): Promise<Outcome<KubernetesEvidence>> {
  const started = deps.now();
  let clients: KubernetesClients;
  try {
    clients = await deps.loadClients();
  } catch (err) {
    const message = `cluster ${cluster.name}: ${err instanceof Error ? err.message : String(err)}`;
    return { ok: false, failure: { kind: 'error', message }, durationMs: deps.now() - started };
  }
  const data = await collectKubernetesEvidence(cluster, { ...deps, clients });
  return { ok: true, data, durationMs: deps.now() - started };
}

/** The `probes` records of a Kubernetes collection, for the report's JSON. */
export function kubernetesProbeRecords(evidence: KubernetesEvidence): ProbeRecord[] {
  return [
    ...(Object.keys(KUBERNETES_PROBE_NAMES) as ProbePart[])
      .filter((key) => evidence[key].ok || evidence[key].failure.kind !== 'skipped')
      .map((key) => probeRecord(KUBERNETES_PROBE_NAMES[key], evidence[key])),
    ...(evidence.auditLog ? [probeRecord('k8s-audit-log', evidence.auditLog)] : []),
  ];
}
