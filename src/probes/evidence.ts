import type { HttpHealthData } from './http-health.js';
import type { PeerCertificateInfo } from '../clients/http.js';
import type { AccessProblem } from './access-problem.js';
import type { BackupsEvidence } from './backups-evidence.js';
import type { QuantileSummary } from './etcd-metrics.js';
import type { EtcdMetricsWindow } from './metrics-window.js';

import type { KubernetesEvidence } from './kubernetes/evidence.js';
import type { Outcome } from './outcome.js';

/**
 * Evidence is what probes learn about a cluster. A probe that failed is evidence too: each part is
 * an `Outcome` (probes/outcome.ts) whose `{ ok: false, failure }` says which member did not answer
 * and how.
 */
/** A member we probe: from the config endpoints, named from the member list when it answers. */
export interface MemberTarget {
  name: string;
  endpoint: string;
  metricsUrl: string;
  /** Member id in hex, when known from the member list or Status. */
  id: string | undefined;
  /** Its index in the config's `etcd.endpoints`; undefined for a member found in the member list. */
  endpointIndex?: number;
  /** A learner (non-voting member), when the member list or Status says so. */
  isLearner?: boolean;
}

export interface MemberInfo {
  id: string;
  name: string;
  peerUrls: string[];
  clientUrls: string[];
  isLearner: boolean;
}

export interface HealthData {
  /** Wall time of a linearizable Get, like `etcdctl endpoint health`'s `took`. */
  tookMs: number;
  /**
   * True for a learner: it refuses linearizable reads (`rpc not supported for learner`), so its
   * health is a local read that proves it serves, not that consensus works.
   */
  serializable?: boolean;
}

export interface StatusData {
  memberId: string;
  clusterId: string;
  version: string;
  dbSizeBytes: number;
  dbSizeInUseBytes: number;
  leaderId: string;
  raftTerm: number;
  raftIndex: number;
  raftAppliedIndex: number;
  revision: number;
  isLearner: boolean;
  errors: string[];
  /** The version of the member's db file (etcd 3.6+ Status storageVersion); absent before 3.6. */
  storageVersion?: string;
  /** --quota-backend-bytes as the member runs it (etcd 3.6+ Status dbSizeQuota, when not 0). */
  dbSizeQuotaBytes?: number;
  /** etcd 3.6+ Status downgradeInfo: a downgrade enabled toward targetVersion; absent before 3.6. */
  downgrade?: { enabled: boolean; targetVersion: string };
}

export interface AlarmData {
  memberId: string;
  alarm: 'NOSPACE' | 'CORRUPT';
}

/** Windowed fsync/commit latency: the parser's own summary type (probes/etcd-metrics.ts). */
export type LatencySummary = QuantileSummary;

/** What the metrics probe reports: two scrapes compared (the reset flag stays internal). */
export type MetricsData = Omit<EtcdMetricsWindow, 'countersReset'>;

export interface ClockData {
  /** Member wall clock minus ours, corrected for round-trip time. */
  offsetMs: number;
  /** How precise the estimate is (the `Date` header has 1 s resolution). */
  uncertaintyMs: number;
  rttMs: number;
  /** The slowest of the samples: a member starved of CPU answers even /version late. */
  maxRttMs: number;
  /** The mean round trip: a member that stalls now and then answers late on average. */
  meanRttMs: number;
  samples: number;
}

export interface MemberEvidence {
  target: MemberTarget;
  health: Outcome<HealthData>;
  status: Outcome<StatusData>;
  metrics: Outcome<MetricsData>;
  clock: Outcome<ClockData>;
  /**
   * etcd's HTTP health (/readyz and /livez on 3.6, 3.5.11+, 3.4.29+; /health before), asked only when the
   * linearizable read failed while Status answered: which of etcd's checks fails (probes/http-health.ts).
   */
  httpHealth?: HttpHealthData;
  /**
   * The certificate the member's client port presented to our GETs (an https endpoint, `diagnose`):
   * its dates, for cert-expiry. No connection of its own (clients/http.ts peerCertificate).
   */
  cert?: PeerCertificateInfo;
  /**
   * Why etcd-doctor could not talk to the member (an access check runs when Status fails).
   * `ours: true` means our own TLS, URL or DNS: the member is unknown, never down.
   */
  access?: AccessProblem;
}

/** Per-member evidence kinds: what a rule may declare in `needs`. */
export type MemberEvidenceKind = 'health' | 'status' | 'metrics' | 'clock';
export type ClusterEvidenceKind = 'memberList' | 'alarms' | 'kubernetes' | 'backups';
export type EvidenceKind = MemberEvidenceKind | ClusterEvidenceKind;

export interface ProbeRecord {
  name: string;
  ok: boolean;
  durationMs: number;
  error: string | null;
}

/** A probe's outcome as the report's `probes` list gives it. */
export function probeRecord(name: string, outcome: Outcome<unknown>): ProbeRecord {
  return {
    name,
    ok: outcome.ok,
    durationMs: Math.round(outcome.durationMs),
    error: outcome.ok ? null : outcome.failure.message,
  };
}

export interface Evidence {
  cluster: string;
  /** Epoch ms when collection started. */
  collectedAt: number;
  memberList: Outcome<MemberInfo[]>;
  alarms: Outcome<AlarmData[]>;
  members: MemberEvidence[];
  /** Filled by the Kubernetes probes when the cluster config has `kubernetes`. */
  kubernetes?: Outcome<KubernetesEvidence>;
  probes: ProbeRecord[];
  /** The probe timeout in force, for messages such as "did not answer in 3 s". */
  timeoutMs: number;
  /** etcd-doctor's own event-loop delay while the probes ran (probes/observer-load.ts). */
  observer?: ObserverLoad;
  /** Set when members answered without a leader and the check waited for an election (probes/election.ts). */
  election?: ElectionEvidence;
  /** etcd-doctor's own client certificate and CA for this cluster (`diagnose`, TLS clusters): their dates. */
  ownCertificates?: OwnCertificate[];
  /** The cluster's snapshots and backup jobs (`clusters[].backups`; `diagnose` and `backups`). */
  backups?: BackupsEvidence;
}

/** One of the certificates etcd-doctor presents or trusts for a cluster (etcd.tls in the config). */
export interface OwnCertificate {
  /** `client`: etcd.tls.certFile; `ca`: etcd.tls.caFile. */
  role: 'client' | 'ca';
  subject: string;
  /** ISO 8601. */
  validTo: string;
}

/**
 * An election the check waited for: members that answered Status with no leader (and no read
 * proving quorum) were asked again until a quorum of them named one.
 */
export interface ElectionEvidence {
  /** How long the check waited, from the first answers. */
  waitedMs: number;
  /** The members that first answered with no leader. */
  leaderless: string[];
  /** The members whose first read failed with `etcdserver: leader changed` or `no leader`. */
  interrupted: string[];
  /** The leader (hex id) a quorum named by the end; absent when the wait ran out without one. */
  leaderId?: string;
}

/** How busy etcd-doctor itself was during the probe window: a stalled event loop inflates every latency it measures. */
export interface ObserverLoad {
  /** Event-loop delay percentiles over the probe window (perf_hooks.monitorEventLoopDelay). */
  loopDelayP99Ms: number;
  loopDelayMaxMs: number;
  loopDelayMeanMs: number;
  /** How many delay samples the window holds (one per 10 ms of an idle loop). */
  samples: number;
  /** Probe runs (diagnoses and health checks) in flight in this process at the same time, at most. */
  concurrentRuns: number;
  /** Of those, the most other runs probing the same hosts as this one (our own load on them). */
  sameHostRuns?: number;
  windowMs: number;
}

export type { AccessProblem, AccessProblemKind } from './access-problem.js';

export type { BackupJob, BackupsEvidence, SnapshotCheck } from './backups-evidence.js';

/** What the Kubernetes probes learned (src/probes/kubernetes/evidence.ts). */
export type { KubernetesEvidence } from './kubernetes/evidence.js';
