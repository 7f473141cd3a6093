import type { EtcdMetricsWindow, QuantileSummary } from './etcd-metrics.js';

import type { KubernetesEvidence } from './kubernetes/evidence.js';

/**
 * Evidence is what probes learn about a cluster. A probe that failed is evidence too:
 * `{ ok: false, failure }` says which member did not answer and how.
 */
export type FailureKind = 'timeout' | 'unreachable' | 'forbidden' | 'error' | 'skipped';

export interface ProbeFailure {
  kind: FailureKind;
  /** One line for humans: `etcd-2 (http://127.0.0.1:2379) did not answer Status in 3000 ms`. */
  message: string;
}

export type Outcome<T> =
  | { ok: true; data: T; durationMs: number }
  | { ok: false; failure: ProbeFailure; durationMs: number };

/** A member we probe: from the config endpoints, named from the member list when it answers. */
export interface MemberTarget {
  name: string;
  endpoint: string;
  metricsUrl: string;
  /** Member id in hex, when known from the member list or Status. */
  id: string | undefined;
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
}

export interface AlarmData {
  memberId: string;
  alarm: 'NOSPACE' | 'CORRUPT';
}

/** Windowed fsync/commit latency: the parser's own summary type (probes/etcd-metrics.ts). */
export type LatencySummary = QuantileSummary;

/** What the metrics probe reports: two scrapes compared (the reset flag stays internal). */
export type MetricsData = Omit<EtcdMetricsWindow, 'countersReset'>;

export type PeerMetrics = MetricsData['peers'][number];

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
}

/** Per-member evidence kinds: what a rule may declare in `needs`. */
export type MemberEvidenceKind = 'health' | 'status' | 'metrics' | 'clock';
export type ClusterEvidenceKind = 'memberList' | 'alarms' | 'kubernetes';
export type EvidenceKind = MemberEvidenceKind | ClusterEvidenceKind;

export interface ProbeRecord {
  name: string;
  ok: boolean;
  durationMs: number;
  error: string | null;
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
}

/** What the Kubernetes probes learned (src/probes/kubernetes/evidence.ts). */
export type { KubernetesEvidence } from './kubernetes/evidence.js';

export const skipped = (message: string): Outcome<never> => ({
  ok: false,
  failure: { kind: 'skipped', message },
  durationMs: 0,
});
