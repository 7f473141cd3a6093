import type { ClusterConfig } from '../config/schema.js';

/** Timings and defaults of the remediation actions; production uses the defaults, tests shorten them. */
export interface RemediationSettings {
  /** A button stops working this long after its diagnosis (cluster `remediation.planExpiryMinutes`). */
  planExpiryMs: number;
  /** A "Run it" confirmation stops working this long after it was shown. */
  confirmWindowMs: number;
  /**
   * The per-cluster remediation lock lapses this long after its last renewal (renewed every third of
   * it); an action whose renewal fails stops at its next safe point.
   */
  lockTtlMs: number;
  /** A remediation job that waited longer than this in the queue is refused when a worker takes it. */
  maxQueueWaitMs: number;
  /** Pause between two members' defragmentation before the health check (cluster `remediation.defragPauseSeconds`). */
  defragPauseMs: number;
  /** How long the cluster may take to look healthy again after one member's defragmentation. */
  healthWaitMs: number;
  /** Per-member gRPC deadline of Status, Defragment, Compact and the like. */
  etcdCallTimeoutMs: number;
  /** How long a restarted static pod may take to be Ready again. */
  restartWaitMs: number;
  /** How long the manifest stays out of /etc/kubernetes/manifests (kubelet rescans every 20 s). */
  manifestHoldSeconds: number;
  /** How long a disk benchmark may take in all, Job creation to deletion. */
  benchmarkTimeoutMs: number;
  /** Poll interval of Kubernetes waits. */
  pollMs: number;
  /**
   * replace-member: how long it waits for someone to start the re-added member (a person logs in to
   * the node, empties the data dir, starts etcd), then how long the started learner may take to
   * catch up; it polls the member list and Status every learnerPollMs meanwhile.
   */
  learnerStartWaitMs: number;
  learnerCatchUpWaitMs: number;
  learnerPollMs: number;
  /** The namespace the helper pods and Jobs run in (the opt-in RBAC grants kube-system). */
  namespace: string;
  /** Digest-pinned (the admission policy admits nothing else). */
  helperImage: string;
  /** A digest-pinned image with fio and sh; none is shipped, so the benchmark asks for one. */
  diskBenchmarkImage: string | undefined;
  /** Where recover-nospace writes its snapshot when the cluster names no snapshotDir. */
  snapshotDir: string;
  /** recover-nospace keeps this many snapshots per cluster and deletes older ones. */
  snapshotKeep: number;
  /** The disk benchmark refuses when its filesystem has less free space than this. */
  benchmarkMinFreeBytes: number;
  /**
   * Defragment skips a member whose free pages (dbSize - dbSizeInUse) are under this share of its
   * file (cluster `maintenance.defrag.minFreeRatio`).
   */
  defragMinFreeRatio: number;
  /** ... or under this many bytes (cluster `maintenance.defrag.minFreeBytes`). */
  defragMinFreeBytes: number;
}

/** Mutating actions never run from a button older than this, whatever the config says. */
export const MUTATING_PLAN_MAX_MS = 30 * 60_000;

export const DEFAULT_REMEDIATION_SETTINGS: RemediationSettings = {
  planExpiryMs: 30 * 60_000,
  confirmWindowMs: 5 * 60_000,
  lockTtlMs: 60_000,
  // A press is for the cluster as it was then: a job left queued while the workers were down does
  // not run hours later (docs/remediation.md).
  maxQueueWaitMs: 2 * 60_000,
  // Red Hat: wait about a minute between members; CEOP waits 36 s and then polls health (KB R3).
  defragPauseMs: 36_000,
  healthWaitMs: 60_000,
  etcdCallTimeoutMs: 60_000,
  restartWaitMs: 180_000,
  manifestHoldSeconds: 30,
  benchmarkTimeoutMs: 300_000,
  pollMs: 2000,
  // Both waits and the steps around them stay inside the 30 min a remediation job may take
  // (queue/run-attempt.ts). A learner not ready by then stays a learner, and the next diagnosis
  // offers Promote once it has caught up (learner-not-promoted).
  learnerStartWaitMs: 15 * 60_000,
  // A learner first receives the leader's snapshot: 8 GiB (the largest quota etcd suggests) at
  // 50 MB/s is under 3 min (inference).
  learnerCatchUpWaitMs: 10 * 60_000,
  learnerPollMs: 2000,
  namespace: 'kube-system',
  // busybox 1.36 (multi-arch index digest, as published on Docker Hub; verify with
  // `crane digest busybox:1.36` before you mirror it).
  helperImage: 'busybox:1.36@sha256:73aaf090f3d85aa34ee199857f03fa3a95c8ede2ffd4cc2cdb5b94e566b11662',
  // Any image with fio and sh on PATH, pinned by digest (OpenShift's etcd-perf image is one, KB R7).
  diskBenchmarkImage: undefined,
  // The worker Deployment mounts a dedicated writable volume here (deploy/kubernetes/base).
  snapshotDir: '/var/lib/etcd-doctor/snapshots',
  snapshotKeep: 3,
  // fio writes 22 MiB, but etcd's own database may grow to its quota (2 GiB by default) on the same
  // filesystem: below 1 GiB free, a benchmark is the wrong thing to add (inference).
  benchmarkMinFreeBytes: 1024 ** 3,
  // A defragmentation rewrites the whole file and blocks the member while it runs (KB R3): worth it
  // when it returns a tenth of the file and at least 50 MB. CEOP defragments at 45 % and a 100 MB
  // file, etcd-defrag's example rule at 200 MiB free; an operator asking for one accepts less, but
  // a few MB back do not pay for a member's pause and the leader move (inference).
  defragMinFreeRatio: 0.1,
  defragMinFreeBytes: 50 * 1000 * 1000,
};

/** The settings for one cluster: code defaults, then tuning, then the cluster's own config. */
export function settingsFor(cluster: ClusterConfig, base: RemediationSettings): RemediationSettings {
  const r = cluster.remediation;
  const d = cluster.maintenance?.defrag;
  return {
    ...base,
    ...(r?.planExpiryMinutes === undefined ? {} : { planExpiryMs: r.planExpiryMinutes * 60_000 }),
    ...(r?.defragPauseSeconds === undefined ? {} : { defragPauseMs: r.defragPauseSeconds * 1000 }),
    ...(r?.snapshotDir === undefined ? {} : { snapshotDir: r.snapshotDir }),
    ...(r?.snapshotKeep === undefined ? {} : { snapshotKeep: r.snapshotKeep }),
    ...(r?.diskBenchmarkImage === undefined ? {} : { diskBenchmarkImage: r.diskBenchmarkImage }),
    ...(r?.helperImage === undefined ? {} : { helperImage: r.helperImage }),
    ...(d?.minFreeRatio === undefined ? {} : { defragMinFreeRatio: d.minFreeRatio }),
    ...(d?.minFreeBytes === undefined ? {} : { defragMinFreeBytes: d.minFreeBytes }),
  };
}

/** The expiry that applies to one button: mutating actions are capped at 30 minutes. */
export function planExpiryMs(settings: RemediationSettings, mutating: boolean): number {
  return mutating ? Math.min(settings.planExpiryMs, MUTATING_PLAN_MAX_MS) : settings.planExpiryMs;
}
