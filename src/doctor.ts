import type { CheckDepth } from './contracts/check-depth.js';
import {
  createEtcdClients,
  type EtcdClients,
  type EtcdTlsFiles,
  loadEtcdTls,
} from './clients/etcd-clients.js';
import { createHttpGet, type HttpGet } from './clients/http.js';
import { loadKubernetesClients } from './clients/kubernetes.js';
import type { ClusterConfig, ConfigFile, ResolvedCluster } from './config/schema.js';
import { diagnose } from './diagnosis/diagnose.js';
import type { Rule } from './diagnosis/rule.js';
import { rules as defaultRules } from './diagnosis/rules/index.js';
import { describeError, EtcdDoctorError } from './errors.js';
import type { Metrics } from './metrics/metrics.js';
import { collectEtcdEvidence } from './probes/collect-evidence.js';
import type { Outcome } from './probes/outcome.js';
import type { Evidence, MemberInfo, ProbeRecord } from './probes/evidence.js';
import type { ScrapeMemory } from './probes/member-context.js';
import { collectKubernetesOutcome, kubernetesProbeRecords } from './probes/kubernetes/collect.js';
import { discoverEtcdEndpoints } from './probes/kubernetes/discover-etcd-endpoints.js';
import { BUSY_SAME_HOST_RUNS, startObserverWindow } from './probes/observer-load.js';
import type { KubernetesEvidence } from './probes/kubernetes/evidence.js';
import type { DiagnosisReport } from './contracts/report-json.js';
import { buildReport } from './report/diagnosis-report.js';

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
  /**
   * Default true: the cluster's gRPC channels and HTTP agent stay open, so the next check is warm.
   * False (the digest, which visits every cluster once a day): they are closed after the run unless
   * a kept run uses them, so a 200-cluster digest does not leave ~1,000 sockets open.
   */
  keepClients?: boolean;
  /**
   * The caller gave up (an MCP client's request was cancelled): every probe stops at once and run()
   * rejects with the signal's reason instead of returning a report built from cancelled probes.
   */
  signal?: AbortSignal;
  /** A watch check (src/watch/): each member's /metrics is scraped once and compared with the kept scrape. */
  scrapes?: ScrapeMemory;
}

/** The chat-agnostic core: cluster name in, report out. The CLI and the worker both use it. */
export interface Doctor {
  clusterNames(): string[];
  /** Throws `cluster_unknown` listing the known clusters. */
  cluster(name: string): ClusterConfig;
  run(name: string, depth: CheckDepth, opts?: RunOptions): Promise<DiagnosisReport>;
  close(): Promise<void>;
}

interface ClusterClients {
  cluster: ResolvedCluster;
  /** `clusters[0].etcd`: where fixes point in the config file. */
  etcdPath: string;
  tls: EtcdTlsFiles | undefined;
  etcd: EtcdClients;
  http: { get: HttpGet; close(): Promise<void> };
  /** The last member list that answered, reused by health checks for MEMBER_LIST_REUSE_MS. */
  memberList?: { outcome: Outcome<MemberInfo[]>; atMs: number };
}

/** A cluster's clients, the runs using them now, and whether any run asked to keep them. */
interface ClientsEntry {
  clients: Promise<ClusterClients>;
  users: number;
  keep: boolean;
}

/** Membership changes are rare and deliberate; a health check may reuse a list this fresh. */
export const MEMBER_LIST_REUSE_MS = 10_000;

export function createDoctor(deps: DoctorDeps): Doctor {
  const now = deps.now ?? Date.now;
  const sleep = deps.sleep ?? abortableSleep;
  const rules = deps.rules ?? defaultRules;
  // Clients are kept per cluster, so a warm health check reuses its gRPC channels.
  const clients = new Map<string, ClientsEntry>();
  // Runs in flight in this process, and the most at once during each run (evidence.observer).
  const load = createRunLoad();

  /** Takes the cluster's clients for one run; `release` gives them back. */
  const acquire = (cluster: ClusterConfig, keep: boolean): ClientsEntry => {
    let entry = clients.get(cluster.name);
    if (!entry) {
      const created: ClientsEntry = {
        clients: (async () => {
          const resolved = await resolveEndpoints(cluster);
          const etcdPath = `clusters[${deps.config.clusters.indexOf(cluster)}].etcd`;
          const tls = await loadEtcdTls(cluster, deps, etcdPath);
          return {
            cluster: resolved,
            etcdPath,
            tls,
            etcd: createEtcdClients(resolved, tls),
            http: createHttpGet(tls),
          };
        })(),
        users: 0,
        keep: false,
      };
      created.clients.catch(() => {
        if (clients.get(cluster.name) === created) clients.delete(cluster.name);
      });
      clients.set(cluster.name, created);
      entry = created;
    }
    entry.users += 1;
    entry.keep ||= keep;
    return entry;
  };

  const release = (name: string, entry: ClientsEntry): void => {
    entry.users -= 1;
    if (entry.users > 0 || entry.keep || clients.get(name) !== entry) return;
    clients.delete(name);
    void entry.clients.then(closeClients, () => undefined);
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

  const collectKubernetes = (
    cluster: ClusterConfig,
    parts: 'all' | 'vantage' = 'all',
  ): Promise<Outcome<KubernetesEvidence>> | undefined => {
    const k8s = cluster.kubernetes;
    if (!k8s) return undefined;
    return collectKubernetesOutcome(cluster, {
      now,
      parts,
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
      opts.signal?.throwIfAborted();
      const started = performance.now();
      const collectedAt = now();
      const endRun = load.begin(hostsOf(cluster));
      const observer = startObserverWindow();
      // Kubernetes evidence (diagnose only) is collected at the same time as etcd's.
      const kubernetesP = depth === 'diagnose' ? collectKubernetes(cluster) : undefined;
      const held = acquire(cluster, opts.keepClients ?? true);
      let ended = false;
      const endObserving = () => {
        ended = true;
        const peak = endRun();
        return { ...observer.stop(peak.runs), sameHostRuns: peak.sameHostRuns };
      };
      try {
        return await runWith(await held.clients, depth, opts, {
          started,
          collectedAt,
          kubernetesP,
          endObserving,
          busy: load.sameHostRuns(hostsOf(cluster)) >= BUSY_SAME_HOST_RUNS,
        });
      } finally {
        if (!ended) endObserving();
        release(name, held);
      }
    },
    async close() {
      const all = await Promise.allSettled([...clients.values()].map((e) => e.clients));
      clients.clear();
      for (const entry of all) if (entry.status === 'fulfilled') await closeClients(entry.value);
    },
  };

  const runWith = async (
    entry: ClusterClients,
    depth: CheckDepth,
    opts: RunOptions,
    at: {
      started: number;
      collectedAt: number;
      kubernetesP: Promise<Outcome<KubernetesEvidence>> | undefined;
      /** Ends the probe window: etcd-doctor's own load while it probed. */
      endObserving: () => Evidence['observer'];
      /** Other runs already probe the same hosts: this one sends fewer clock samples. */
      busy: boolean;
    },
  ): Promise<DiagnosisReport> => {
    const { started, collectedAt, kubernetesP } = at;
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
      ...(opts.signal ? { signal: opts.signal } : {}),
      ...(opts.scrapes ? { scrapes: opts.scrapes } : {}),
      tls: entry.tls,
      etcdPath: entry.etcdPath,
      busy: at.busy,
    });
    // Cancelled probes are no evidence about the cluster: no report is built from them.
    opts.signal?.throwIfAborted();
    if (evidence.memberList.ok && !recentMemberList)
      entry.memberList = { outcome: evidence.memberList, atMs: performance.now() };
    evidence.collectedAt = collectedAt;
    // No member answered a health check: ask the apiserver before concluding anything (its etcd
    // checks, a read through it), as diagnose always does.
    const vantageP =
      !kubernetesP && !evidence.members.some((m) => m.status.ok || m.health.ok)
        ? collectKubernetes(entry.cluster, 'vantage')
        : kubernetesP;
    if (vantageP) addKubernetes(evidence, await untilAborted(vantageP, opts.signal));
    const observer = at.endObserving();
    if (observer) evidence.observer = observer;
    const diagnosis = diagnose(evidence, rules, { now: now() });
    opts.onEvidence?.(evidence);
    const report = buildReport(evidence, diagnosis, {
      kind: depth,
      durationMs: performance.now() - started,
      explain: opts.explain ?? false,
    });
    deps.metrics?.observeReport(report);
    return report;
  };
  return doctor;
}

/** `work`, or a rejection with the signal's reason as soon as it aborts (work itself runs out its own deadlines). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** The hosts of a cluster's configured endpoints (`127.0.0.1`), to count our own load on them. */
function hostsOf(cluster: ClusterConfig): string[] {
  return [
    ...new Set(
      (cluster.etcd.endpoints ?? []).flatMap((e) => {
        try {
          return [new URL(e).hostname];
        } catch {
          return [];
        }
      }),
    ),
  ];
}

interface RunPeak {
  hosts: string[];
  runs: number;
  sameHostRuns: number;
}

/** Runs in flight, and for each the most runs (in all, and on its own hosts) seen during it. */
function createRunLoad() {
  const live = new Set<RunPeak>();
  const shares = (a: RunPeak, b: RunPeak) => a.hosts.some((h) => b.hosts.includes(h));
  const refresh = () => {
    for (const run of live) {
      run.runs = Math.max(run.runs, live.size);
      const same = [...live].filter((o) => o !== run && shares(o, run)).length;
      run.sameHostRuns = Math.max(run.sameHostRuns, same);
    }
  };
  return {
    begin(hosts: string[]): () => RunPeak {
      const run: RunPeak = { hosts, runs: 0, sameHostRuns: 0 };
      live.add(run);
      refresh();
      return () => {
        live.delete(run);
        return run;
      };
    },
    /** Other runs in flight now on any of these hosts. */
    sameHostRuns(hosts: string[]): number {
      return [...live].filter((r) => r.hosts.some((h) => hosts.includes(h))).length - 1;
    },
  };
}

async function closeClients(entry: ClusterClients): Promise<void> {
  entry.etcd.close();
  await entry.http.close();
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
