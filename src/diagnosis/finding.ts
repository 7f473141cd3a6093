import type { ActionId } from '../contracts/action-id.js';

/** The `cause` vocabulary (DESIGN.md). A new cause may be added; its name must explain it. */
export const CAUSES = [
  'slow-disk',
  'clock-skew',
  'peer-network',
  'member-down',
  'quorum-lost',
  'leader-churn',
  'db-quota',
  'db-fragmentation',
  'cpu-starvation',
  'control-plane-restarts',
  'static-pod-missing',
  'non-durable-storage',
  'apiserver-latency',
  'corruption',
  'slow-reads',
  // A member's server certificate, or etcd-doctor's own, expires soon (x509: certificate has expired).
  'cert-expiry',
  // A member of another cluster, a removed member still running, a data dir bootstrapped elsewhere.
  'cluster-mismatch',
  // Peer connections refused for TLS: a name or IP missing from the certificate, unknown CA, expired.
  'peer-tls',
  // The newest good snapshot of the cluster is older than backups.maxAgeHours, or there is none.
  'backup-stale',
  // The revision ran far past the last compaction for well over the compaction interval: the
  // history grows until the database reaches its quota.
  'compaction-stalled',
  // A learner (non-voting member) not promoted yet: caught up and waiting, or behind for long.
  'learner-not-promoted',
  // A member out of file descriptors (`too many open files`): it refuses connections, cannot open files.
  'fd-exhaustion',
  // The filesystem under the WAL, the snapshots or the database is full (ENOSPC), not the quota.
  'disk-full',
  // etcd ran out of memory: Go's `fatal error: runtime: out of memory`, or its container OOMKilled.
  'out-of-memory',
  // Peer or client URLs whose host names do not resolve (`lookup … no such host`).
  'dns-resolution',
  // etcd panicked or hit a fatal runtime error with no outside cause in its log: its own failure.
  'etcd-crash',
  // A follower that never catches up: the leader sends it the whole database again and again.
  'follower-behind',
  // Clients reading so much (LISTs of whole prefixes, MB a second) that the member slows down.
  'expensive-requests',
  // Writes refused for size: `etcdserver: request is too large` (over --max-request-bytes).
  'request-too-large',
  // Watchers that do not keep up: their events pile up in the member's memory.
  'slow-watchers',
  // A member defragmenting now: reads and writes on it wait, leases and leadership may be lost.
  'defrag-in-progress',
  // A member runs an etcd release with a known data-loss, corruption or security bug (etcd's
  // CHANGELOGs and advisories, src/etcd/known-bugs.ts): a risk of the software, not a fault now.
  'known-bug',
  // A downgrade enabled (etcdctl downgrade enable, etcd 3.6+ Status downgradeInfo): the cluster is
  // between two minors until every member runs the target or the downgrade is cancelled.
  'downgrade-in-progress',
  // Error-level log lines that no rule explains, quoted with counts and times (never hidden).
  'unexplained-errors',
  // About etcd-doctor's own view, not the cluster (DESIGN.md): our credentials or URLs are
  // refused, or etcd answers the apiserver but not us.
  'no-access',
  'unreachable-from-here',
  // etcd-doctor's own event loop was too busy during the probes for its latency readings to count.
  'observer-load',
] as const;
export type Cause = (typeof CAUSES)[number];

/** Causes about etcd-doctor's own view (access, network path, its own load), not the cluster. */
export const VIEW_CAUSES: ReadonlySet<Cause> = new Set<Cause>([
  'no-access',
  'unreachable-from-here',
  'observer-load',
]);

/**
 * Causes about the software a member runs, not a fault it has now (known-bug): they never set the
 * status, never open an incident, and come after every finding about a fault.
 */
export const LATENT_CAUSES: ReadonlySet<Cause> = new Set<Cause>(['known-bug']);

/** Causes in the Kubernetes control plane around etcd (its pods, the apiserver), not etcd's own. */
export const CONTROL_PLANE_CAUSES: ReadonlySet<Cause> = new Set<Cause>([
  'control-plane-restarts',
  'static-pod-missing',
  'apiserver-latency',
]);

/**
 * Causes that are etcd's own (every cause neither about our view nor the control plane around
 * etcd): restarting the scheduler or controller-manager does not help them (KB R10).
 */
export const ETCD_CAUSES: ReadonlySet<Cause> = new Set<Cause>(
  CAUSES.filter((c) => !VIEW_CAUSES.has(c) && !CONTROL_PLANE_CAUSES.has(c)),
);

export type Severity = 'critical' | 'warning' | 'info';
export const SEVERITY_ORDER: Record<Severity, number> = { critical: 0, warning: 1, info: 2 };

/** Remediation action ids; each becomes a button (src/remediation/actions/). The list is a contract (contracts/action-id.ts): stored plans name them. */
export type { ActionId };

export interface RemediationStep {
  text: string;
  /** The button that performs this step, if one exists. */
  action?: ActionId;
  /** Arguments for that action, e.g. `{ member: 'etcd-2' }` or `{ node: 'master-1', component: 'etcd' }`. */
  args?: Record<string, string>;
}

/** What a rule returns. The engine adds `causedBy` and orders the list. */
export interface Finding {
  cause: Cause;
  severity: Severity;
  /** etcd member names (etcd-2). */
  members: string[];
  /** Kubernetes node names. */
  nodes: string[];
  summary: string;
  /** Each with numbers and units: `wal fsync p99 212 ms (etcd FAQ: < 10 ms)`. */
  evidence: string[];
  steps: RemediationStep[];
  /** Evidence the rule wanted but could not get, said plainly (lowers confidence). */
  unknowns: string[];
  causedBy?: Cause;
  /**
   * Set by the engine on a symptom no cause explains because every rule that could explain it went
   * unevaluated for want of its evidence (a health check reads no /metrics): those causes, which a
   * report shows as not looked for, never calling the symptom a root cause.
   */
  uncheckedCauses?: Cause[];
}
