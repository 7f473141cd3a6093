import type { CheckDepth } from './contracts/check-depth.js';
import { type ClusterClients, createClientPool } from './clients/cluster-clients.js';
import { loadEtcdTls } from './clients/etcd-clients.js';
import { createHttpGet } from './clients/http.js';
import { type FirstScrapes, takeFirstScrapes } from './probes/first-scrapes.js';
import type { ClusterConfig, ConfigFile } from './config/schema.js';
import { diagnose } from './diagnosis/diagnose.js';
import type { Rule } from './diagnosis/rule.js';
import { rules as defaultRules } from './diagnosis/rules/index.js';
import { EtcdDoctorError } from './errors.js';
import type { Metrics } from './metrics/metrics.js';
import { collectEtcdEvidence } from './probes/collect-evidence.js';
import type { Outcome } from './probes/outcome.js';
import type { Evidence, ProbeRecord } from './probes/evidence.js';
import type { ScrapeMemory } from './probes/member-context.js';
import type { DayOfChecks } from './state/history-sample.js';
import { BUSY_SAME_HOST_RUNS, startObserverWindow } from './probes/observer-load.js';
import { createRunLoad, hostsOf } from './probes/run-load.js';
import { abortableSleep, untilAborted } from './timing.js';
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
  /** The digest read this day of watch checks for the cluster: the history sample keeps it (history/doctor-for.ts). */
  dayOfChecks?: DayOfChecks;
  /**
   * Read the cluster's backups (`clusters[].backups`) at any depth, every listed snapshot
   * (`/etcd backups`); a diagnosis reads them anyway, newest first until a good one.
   */
  backups?: boolean;
}

/** The chat-agnostic core: cluster name in, report out. The CLI and the worker both use it. */
export interface Doctor {
  clusterNames(): string[];
  /** Throws `cluster_unknown` listing the known clusters. */
  cluster(name: string): ClusterConfig;
  run(name: string, depth: CheckDepth, opts?: RunOptions): Promise<DiagnosisReport>;
  /**
   * The first /metrics scrape of each configured member, for a diagnose run a metrics window later
   * (pass it as `scrapes`): the digest's clusters wait out their windows holding only these, with
   * their connections closed before this returns. Undefined when there is nothing to keep (no
   * window, endpoints discovered through Kubernetes, TLS files unreadable, no member answered):
   * the run then takes both scrapes itself.
   */
  firstScrapes(name: string): Promise<FirstScrapes | undefined>;
  close(): Promise<void>;
}

/** Membership changes are rare and deliberate; a health check may reuse a list this fresh. */
export const MEMBER_LIST_REUSE_MS = 10_000;

export function createDoctor(deps: DoctorDeps): Doctor {
  const now = deps.now ?? Date.now;
  const sleep = deps.sleep ?? abortableSleep;
  const rules = deps.rules ?? defaultRules;
  // Clients are kept per cluster, so a warm health check reuses its gRPC channels.
  const pool = createClientPool(deps);
  // Runs in flight in this process, and the most at once during each run (evidence.observer).
  const load = createRunLoad();

  const collectKubernetes = (cluster: ClusterConfig, parts: 'all' | 'vantage' = 'all') =>
    kubernetesEvidenceOf(cluster, parts, deps, now);
  // Snapshots already read, by path, size, mtime and inode: a watch re-reads none of them.
  const snapshotChecks = lazySnapshotCache();
  const collectBackups = (cluster: ClusterConfig, depth: CheckDepth, opts: RunOptions) =>
    cluster.backups && (depth === 'diagnose' || opts.backups)
      ? backupsEvidenceOf(cluster, opts.backups ? 'listing' : 'diagnosis', deps, snapshotChecks, opts.signal)
      : undefined;
  const pipeline: Pipeline = { deps, now, sleep, rules, collectKubernetes };

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
      const loading = loadModulesFor(cluster, depth);
      if (loading) await loading;
      const started = performance.now();
      const collectedAt = now();
      const endRun = load.begin(hostsOf(cluster));
      const observer = startObserverWindow();
      // Kubernetes evidence (diagnose only) is collected at the same time as etcd's.
      const kubernetesP = depth === 'diagnose' ? collectKubernetes(cluster) : undefined;
      const backupsP = collectBackups(cluster, depth, opts);
      const held = pool.acquire(cluster, opts.keepClients ?? true);
      let ended = false;
      const endObserving = () => {
        ended = true;
        const peak = endRun();
        return { ...observer.stop(peak.runs), sameHostRuns: peak.sameHostRuns };
      };
      try {
        return await runOnClients(pipeline, await held.clients, depth, opts, {
          started,
          collectedAt,
          kubernetesP,
          backupsP,
          endObserving,
          busy: load.sameHostRuns(hostsOf(cluster)) >= BUSY_SAME_HOST_RUNS,
        });
      } finally {
        if (!ended) endObserving();
        pool.release(name, held);
      }
    },
    firstScrapes: (name) => firstScrapesOf(doctor.cluster(name), deps),
    close: () => pool.close(),
  };

  return doctor;
}

/** Doctor.firstScrapes: the configured members' first /metrics scrapes, on connections closed at once. */
async function firstScrapesOf(cluster: ClusterConfig, deps: DoctorDeps): Promise<FirstScrapes | undefined> {
  if (!cluster.etcd.endpoints || deps.config.probes.metricsWindowMs <= 0) return undefined;
  await loadModules(cluster, 'diagnose');
  // An unreadable TLS file is the run's to report (config_invalid, naming the field).
  const tls = await loadEtcdTls(cluster, deps).catch(() => null);
  if (tls === null) return undefined;
  const http = createHttpGet(tls);
  try {
    const { timeoutMs, metricsWindowMs: windowMs } = deps.config.probes;
    return await takeFirstScrapes(cluster, { httpGet: http.get, now: Date.now }, { timeoutMs, windowMs });
  } finally {
    await http.close();
  }
}

/** What every run shares: the config, the clocks, the rules, and how Kubernetes evidence is taken. */
interface Pipeline {
  deps: DoctorDeps;
  now: () => number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  rules: readonly Rule[];
  collectKubernetes: (
    cluster: ClusterConfig,
    parts?: 'all' | 'vantage',
  ) => Promise<Outcome<KubernetesEvidence>> | undefined;
}

/**
 * One run on a cluster's clients: etcd's evidence (a health check reuses a member list up to 10 s
 * old), Kubernetes' when configured (or as a vantage point when no member answered), then the rules
 * and the report.
 */
async function runOnClients(
  pipeline: Pipeline,
  entry: ClusterClients,
  depth: CheckDepth,
  opts: RunOptions,
  at: {
    started: number;
    collectedAt: number;
    kubernetesP: Promise<Outcome<KubernetesEvidence>> | undefined;
    backupsP: Promise<BackupsCollection | undefined> | undefined;
    /** Ends the probe window: etcd-doctor's own load while it probed. */
    endObserving: () => Evidence['observer'];
    /** Other runs already probe the same hosts: this one sends fewer clock samples. */
    busy: boolean;
  },
): Promise<DiagnosisReport> {
  const { deps, now, sleep, rules, collectKubernetes } = pipeline;
  const { started, collectedAt, kubernetesP } = at;
  const { etcd, http } = entry;
  const fresh = entry.memberList && performance.now() - entry.memberList.atMs < MEMBER_LIST_REUSE_MS;
  const recentMemberList = depth === 'health' && fresh ? entry.memberList?.outcome : undefined;
  // diagnose times GETs (the clock's round trips): the HTTP client is ready before the first one.
  if (depth !== 'health') await http.ready();
  const collected = await collectEtcdEvidence({
    cluster: entry.cluster,
    clients: etcd,
    httpGet: http.get,
    peerCertificate: http.peerCertificate,
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
  if (collected.memberList.ok && !recentMemberList)
    entry.memberList = { outcome: collected.memberList, atMs: performance.now() };
  // No member answered a health check: ask the apiserver before concluding anything (its etcd
  // checks, a read through it), as diagnose always does.
  const vantageP =
    !kubernetesP && !collected.members.some((m) => m.status.ok || m.health.ok)
      ? collectKubernetes(entry.cluster, 'vantage')
      : kubernetesP;
  const kubernetes = vantageP ? await untilAborted(vantageP, opts.signal) : undefined;
  const backups = at.backupsP ? await untilAborted(at.backupsP, opts.signal) : undefined;
  const observer = at.endObserving();
  // The evidence is complete here and read-only from now on: rules, report and history see one value.
  const etcdEvidence: Evidence = {
    ...collected,
    collectedAt,
    ...(observer ? { observer } : {}),
    ...(backups ? { backups: backups.evidence, probes: [...collected.probes, ...backups.probes] } : {}),
  };
  const evidence = kubernetes ? await withKubernetes(etcdEvidence, kubernetes) : etcdEvidence;
  // Without --explain the rules' explain lines are never shown: they are not written.
  const compactionS = entry.cluster.maintenance?.compactionIntervalSeconds;
  const diagnosis = diagnose(evidence, rules, {
    now: now(),
    explain: opts.explain ?? false,
    ...(compactionS ? { compactionIntervalMs: compactionS * 1000 } : {}),
  });
  opts.onEvidence?.(evidence);
  const report = buildReport(evidence, diagnosis, {
    kind: depth,
    durationMs: performance.now() - started,
    explain: opts.explain ?? false,
  });
  deps.metrics?.observeReport(report);
  return report;
}

/**
 * The modules a run of this cluster loads lazily (undici for diagnose's GETs, the Kubernetes client
 * when it has `kubernetes`), loaded before its observer window opens: a first load blocks the
 * event loop for ~100-800 ms, which the window would count as etcd-doctor's own load.
 */
function loadModulesFor(cluster: ClusterConfig, depth: CheckDepth): Promise<void> | undefined {
  // A health check of a cluster without Kubernetes loads nothing: no promise to wait for.
  if (depth === 'health' && !cluster.kubernetes) return undefined;
  return loadModules(cluster, depth);
}

async function loadModules(cluster: ClusterConfig, depth: CheckDepth): Promise<void> {
  // One load per process, one module after the other: concurrent runs share it (and Jest's ESM
  // loader fails imports of overlapping graphs started at once).
  if (depth !== 'health') {
    httpModule ??= import('undici').then(() => undefined);
    await httpModule;
  }
  if (cluster.kubernetes) {
    kubernetesModules ??= (async () => {
      await import('./clients/kubernetes.js');
      await import('./probes/kubernetes/collect.js');
    })();
    await kubernetesModules;
  }
}

let httpModule: Promise<void> | undefined;
let kubernetesModules: Promise<void> | undefined;

/** The Kubernetes evidence of a cluster configured with `kubernetes`; undefined without. */
function kubernetesEvidenceOf(
  cluster: ClusterConfig,
  parts: 'all' | 'vantage',
  deps: DoctorDeps,
  now: () => number,
): Promise<Outcome<KubernetesEvidence>> | undefined {
  const k8s = cluster.kubernetes;
  if (!k8s) return undefined;
  // The Kubernetes client (~800 modules) loads only for a cluster that has Kubernetes configured.
  return import('./probes/kubernetes/collect.js').then(({ collectKubernetesOutcome }) =>
    collectKubernetesOutcome(cluster, {
      now,
      parts,
      settings: { timeoutMs: deps.config.probes.timeoutMs, logTimeoutMs: 2 * deps.config.probes.timeoutMs },
      loadClients: async () =>
        (await import('./clients/kubernetes.js')).loadKubernetesClients(k8s, {
          readFile: async (p) => (await deps.readFileBuffer(p)).toString('utf8'),
        }),
    }),
  );
}

type BackupsCollection = NonNullable<Awaited<ReturnType<CollectBackups>>>;
type CollectBackups = typeof import('./probes/collect-backups.js').collectBackups;
type SnapshotChecks = Pick<import('./probes/collect-backups.js').CollectBackupsOptions, 'cache' | 'slots'>;

/** The doctor's cache of snapshot checks and its read slots, made when the first cluster with `backups` is run. */
function lazySnapshotCache(): () => Promise<SnapshotChecks> {
  let checks: Promise<SnapshotChecks> | undefined;
  return () => {
    checks ??= import('./probes/backup-snapshots.js').then((m) => ({
      cache: m.createSnapshotCheckCache(),
      slots: m.createSnapshotReadSlots(),
    }));
    return checks;
  };
}

/**
 * The backups of a cluster with `backups`: the snapshot reader and, with `kubernetes`, the Kubernetes
 * client load only then. `listing` reads every listed snapshot (`/etcd backups`).
 */
async function backupsEvidenceOf(
  cluster: ClusterConfig,
  how: 'diagnosis' | 'listing',
  deps: DoctorDeps,
  checks: () => Promise<SnapshotChecks>,
  signal: AbortSignal | undefined,
): Promise<BackupsCollection | undefined> {
  const m = await import('./probes/collect-backups.js');
  const k8s = cluster.kubernetes;
  return m.collectBackups({
    cluster,
    budget: how === 'listing' ? m.LISTING_BUDGET : m.DIAGNOSIS_BUDGET,
    ...(await checks()),
    // Budgets run on the real clock; file ages are judged by the rule against the doctor's.
    now: Date.now,
    timeoutMs: deps.config.probes.timeoutMs,
    loadKubernetesClients: async () => {
      if (!k8s) throw new Error('no kubernetes config');
      return (await import('./clients/kubernetes.js')).loadKubernetesClients(k8s, {
        readFile: async (p) => (await deps.readFileBuffer(p)).toString('utf8'),
      });
    },
    ...(signal ? { signal } : {}),
  });
}

/** The etcd evidence with the Kubernetes evidence and its probe records added. */
async function withKubernetes(
  evidence: Evidence,
  kubernetes: Outcome<KubernetesEvidence>,
): Promise<Evidence> {
  // Loaded already: the outcome came from this module.
  const { kubernetesProbeRecords } = await import('./probes/kubernetes/collect.js');
  return {
    ...evidence,
    kubernetes,
    probes: [
      ...evidence.probes,
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
    ],
  };
}
