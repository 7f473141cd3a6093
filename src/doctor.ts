import { createEtcdClients, type EtcdClients, loadEtcdTls } from './clients/etcd-clients.js';
import { createHttpGet, type HttpGet } from './clients/http.js';
import { loadKubernetesClients } from './clients/kubernetes.js';
import type { ClusterConfig, ConfigFile, ResolvedCluster } from './config/schema.js';
import { diagnose } from './diagnosis/diagnose.js';
import type { Rule } from './diagnosis/rule.js';
import { rules as defaultRules } from './diagnosis/rules/index.js';
import { describeError, EtcdDoctorError } from './errors.js';
import type { Metrics } from './metrics/metrics.js';
import { collectEtcdEvidence, type ProbeDepth } from './probes/collect-evidence.js';
import type { Evidence, MemberInfo, Outcome, ProbeRecord } from './probes/evidence.js';
import { collectKubernetesOutcome, kubernetesProbeRecords } from './probes/kubernetes/collect.js';
import { discoverEtcdEndpoints } from './probes/kubernetes/discover-etcd-endpoints.js';
import type { KubernetesEvidence } from './probes/kubernetes/evidence.js';
import { buildReport, type DiagnosisReport } from './report/diagnosis-report.js';

export interface DoctorDeps {
  config: ConfigFile;
  readFileBuffer: (path: string) => Promise<Buffer>;
  /** The time rules judge ages against (restarts per day, uptime). etcd probes always use the real clock. */
  now?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  rules?: readonly Rule[];
  /** Diagnosis and probe durations and findings on /metrics. */
  metrics?: Pick<Metrics, 'observeReport'>;
}

export interface RunOptions {
  explain?: boolean;
  onProgress?: (progress: { done: number; total: number; probe: ProbeRecord }) => void;
  /** Receives the evidence behind the report (history keeps leader-change counters and restarts from it). */
  onEvidence?: (evidence: Evidence) => void;
}

/** The chat-agnostic core: cluster name in, report out. The CLI and the worker both use it. */
export interface Doctor {
  clusterNames(): string[];
  /** Throws `cluster_unknown` listing the known clusters. */
  cluster(name: string): ClusterConfig;
  run(name: string, depth: ProbeDepth, opts?: RunOptions): Promise<DiagnosisReport>;
  close(): Promise<void>;
}

interface ClusterClients {
  cluster: ResolvedCluster;
  etcd: EtcdClients;
  http: { get: HttpGet; close(): Promise<void> };
  /** The last member list that answered, reused by health checks for MEMBER_LIST_REUSE_MS. */
  memberList?: { outcome: Outcome<MemberInfo[]>; atMs: number };
}

/** Membership changes are rare and deliberate; a health check may reuse a list this fresh. */
export const MEMBER_LIST_REUSE_MS = 10_000;

export function createDoctor(deps: DoctorDeps): Doctor {
  const now = deps.now ?? Date.now;
  const sleep = deps.sleep ?? abortableSleep;
  const rules = deps.rules ?? defaultRules;
  // Clients are kept per cluster, so a warm health check reuses its gRPC channels.
  const clients = new Map<string, Promise<ClusterClients>>();

  const clientsFor = (cluster: ClusterConfig): Promise<ClusterClients> => {
    let entry = clients.get(cluster.name);
    if (!entry) {
      entry = (async () => {
        const resolved = await resolveEndpoints(cluster);
        const tls = await loadEtcdTls(cluster, deps);
        return { cluster: resolved, etcd: createEtcdClients(resolved, tls), http: createHttpGet(tls) };
      })();
      entry.catch(() => clients.delete(cluster.name));
      clients.set(cluster.name, entry);
    }
    return entry;
  };

  /** A cluster configured with `kubernetes` only: its etcd client URLs come from the etcd pods. */
  const resolveEndpoints = async (cluster: ClusterConfig): Promise<ResolvedCluster> => {
    const { endpoints } = cluster.etcd;
    if (endpoints) return { ...cluster, etcd: { ...cluster.etcd, endpoints } };
    const k8s = cluster.kubernetes;
    try {
      if (!k8s) throw new Error('no kubernetes config');
      const kube = await loadKubernetesClients(k8s, {
        readFile: async (p) => (await deps.readFileBuffer(p)).toString('utf8'),
      });
      const found = await discoverEtcdEndpoints(kube, {
        timeoutMs: deps.config.probes.timeoutMs,
        ...(k8s.distribution ? { distribution: k8s.distribution } : {}),
      });
      return { ...cluster, etcd: { ...cluster.etcd, endpoints: found } };
    } catch (err) {
      throw new EtcdDoctorError(
        'config_invalid',
        `cluster ${cluster.name} lists no etcd.endpoints and they could not be discovered through Kubernetes: ${describeError(err)}`,
        { cause: err },
      );
    }
  };

  const collectKubernetes = (cluster: ClusterConfig): Promise<Outcome<KubernetesEvidence>> | undefined => {
    const k8s = cluster.kubernetes;
    if (!k8s) return undefined;
    return collectKubernetesOutcome(cluster, {
      now,
      settings: { timeoutMs: deps.config.probes.timeoutMs, logTimeoutMs: 2 * deps.config.probes.timeoutMs },
      loadClients: () =>
        loadKubernetesClients(k8s, {
          readFile: async (p) => (await deps.readFileBuffer(p)).toString('utf8'),
        }),
    });
  };

  const doctor: Doctor = {
    clusterNames: () => deps.config.clusters.map((c) => c.name),
    cluster(name) {
      const found = deps.config.clusters.find((c) => c.name === name);
      if (!found) {
        throw new EtcdDoctorError(
          'cluster_unknown',
          `unknown cluster "${name}"; known clusters: ${doctor.clusterNames().join(', ')}`,
        );
      }
      return found;
    },
    async run(name, depth, opts = {}) {
      const cluster = doctor.cluster(name);
      const started = performance.now();
      const collectedAt = now();
      // Kubernetes evidence (diagnose only) is collected at the same time as etcd's.
      const kubernetesP = depth === 'diagnose' ? collectKubernetes(cluster) : undefined;
      const entry = await clientsFor(cluster);
      const { etcd, http } = entry;
      const fresh = entry.memberList && performance.now() - entry.memberList.atMs < MEMBER_LIST_REUSE_MS;
      const recentMemberList = depth === 'health' && fresh ? entry.memberList?.outcome : undefined;
      const evidence = await collectEtcdEvidence({
        cluster: entry.cluster,
        clients: etcd,
        httpGet: http.get,
        // etcd probes measure against the real clock: gRPC deadlines and the members' Date headers.
        now: Date.now,
        sleep,
        timeoutMs: deps.config.probes.timeoutMs,
        metricsWindowMs: deps.config.probes.metricsWindowMs,
        depth,
        ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
        ...(recentMemberList ? { recentMemberList } : {}),
      });
      if (evidence.memberList.ok && !recentMemberList)
        entry.memberList = { outcome: evidence.memberList, atMs: performance.now() };
      evidence.collectedAt = collectedAt;
      if (kubernetesP) addKubernetes(evidence, await kubernetesP);
      const diagnosis = diagnose(evidence, rules, { now: now() });
      opts.onEvidence?.(evidence);
      const report = buildReport(evidence, diagnosis, {
        kind: depth,
        durationMs: performance.now() - started,
        explain: opts.explain ?? false,
      });
      deps.metrics?.observeReport(report);
      return report;
    },
    async close() {
      const all = await Promise.allSettled(clients.values());
      clients.clear();
      for (const entry of all) {
        if (entry.status !== 'fulfilled') continue;
        entry.value.etcd.close();
        await entry.value.http.close();
      }
    },
  };
  return doctor;
}

function addKubernetes(evidence: Evidence, kubernetes: Outcome<KubernetesEvidence>): void {
  evidence.kubernetes = kubernetes;
  evidence.probes.push(
    ...(kubernetes.ok
      ? kubernetesProbeRecords(kubernetes.data)
      : [
          {
            name: 'k8s',
            ok: false,
            durationMs: Math.round(kubernetes.durationMs),
            error: kubernetes.failure.message,
          },
        ]),
  );
}

export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
