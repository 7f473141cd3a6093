import type { ApiserverLists } from './apiserver-lists.js';
import type { Outcome } from '../outcome.js';
import type { LogSignals } from '../../etcd/scan-logs.js';

/**
 * What the Kubernetes probes learn about a control plane. Every part is its own `Outcome`: a 403
 * on pods/log costs the log scan, not the node conditions. Times are epoch ms; ages are computed
 * by rules against `RuleContext.now`.
 */
/** Who lists, from the API server's audit log (audit-log.ts). */
export interface AuditListers {
  /** The events read (lines that parsed), and the time the newest was received (ms). */
  eventsRead: number;
  newestAtMs: number | undefined;
  /** The span counted: LISTs received in the last `recentMs` before `readAtMs`. */
  recentMs: number;
  readAtMs: number;
  /** By count, most first. */
  listers: AuditLister[];
}

export interface AuditLister {
  resource: string;
  /** `cluster`: every namespace (no `objectRef.namespace`); `namespace`: one. */
  scope: 'cluster' | 'namespace';
  username: string;
  /** The first word of `userAgent` (`kubectl/v1.30.2`); undefined when the event has none. */
  client: string | undefined;
  lists: number;
}

export interface KubernetesEvidence {
  distribution: KubernetesDistribution;
  /** The apiserver URL the probes used. */
  server: string;
  /** Epoch ms when collection started. */
  collectedAt: number;
  pods: Outcome<ControlPlanePod[]>;
  logs: Outcome<LogScanData>;
  leases: Outcome<LeaseInfo[]>;
  nodes: Outcome<ControlPlaneNode[]>;
  staticPods: Outcome<StaticPodsData>;
  etcdPods: Outcome<EtcdPodSpec[]>;
  apiserver: Outcome<ApiserverData>;
  events: Outcome<WarningEvent[]>;
  /** Who lists, from the API server's audit log; absent unless `kubernetes.auditLog` names one (audit-log.ts). */
  auditLog?: Outcome<AuditListers>;
}

export type KubernetesDistribution = 'kubeadm' | 'openshift' | 'unknown';

/** The control-plane components etcd-doctor looks at (pods, logs, restarts), in one list. */
export const CONTROL_PLANE_COMPONENTS = [
  'etcd',
  'kube-apiserver',
  'kube-controller-manager',
  'kube-scheduler',
] as const;
export type ControlPlaneComponent = (typeof CONTROL_PLANE_COMPONENTS)[number];
/** The components that elect a leader through a Lease. */
export type LeaderElectedComponent = Extract<
  ControlPlaneComponent,
  'kube-controller-manager' | 'kube-scheduler'
>;

export interface ContainerTermination {
  reason: string | undefined;
  exitCode: number;
  finishedAt: number | undefined;
  /** The termination message (last log lines with FallbackToLogsOnError), cut to one line. */
  message: string | undefined;
}

export interface ControlPlaneContainer {
  name: string;
  restartCount: number;
  ready: boolean;
  state: 'running' | 'waiting' | 'terminated' | 'unknown';
  /** `CrashLoopBackOff`, `ContainerCreating`, ... when waiting. */
  waitingReason: string | undefined;
  startedAt: number | undefined;
  lastTermination: ContainerTermination | undefined;
}

export interface ControlPlanePod {
  namespace: string;
  name: string;
  component: ControlPlaneComponent;
  node: string | undefined;
  phase: string | undefined;
  ready: boolean;
  /** A static pod's mirror (`kubernetes.io/config.mirror`). */
  mirror: boolean;
  /** `status.startTime`: when the kubelet accepted the pod. */
  startedAt: number | undefined;
  /** The container named after the component (`kube-scheduler`), or the first one. */
  main: ControlPlaneContainer | undefined;
  containers: ControlPlaneContainer[];
}

/** One scanned log stream: a container's current or previous log. */
export interface ContainerLogScan {
  namespace: string;
  pod: string;
  container: string;
  component: ControlPlaneComponent;
  node: string | undefined;
  previous: boolean;
  bytes: number;
  lines: number;
  signals: LogSignals;
  /** When the stream's last line was written (ISO 8601), when it says: a process that still logs is alive. */
  lastLineAt?: string;
  /** When its first line was written (collected logs), for how long a span it covers. */
  firstLineAt?: string;
}

export interface LogScanData {
  /** The bounds every request carried. */
  bounds: { tailLines: number; sinceSeconds: number; limitBytes: number };
  scans: ContainerLogScan[];
  /** Streams that could not be read, said plainly (`etcd-master-2 previous: not found`). */
  unread: string[];
}

export interface LeaseInfo {
  namespace: string;
  name: string;
  component: LeaderElectedComponent;
  found: boolean;
  holder: string | undefined;
  /** The node part of a `<hostname>_<uuid>` holder identity. */
  holderNode: string | undefined;
  renewTime: number | undefined;
  acquireTime: number | undefined;
  leaseDurationSeconds: number | undefined;
  leaseTransitions: number | undefined;
}

export interface NodeConditionState {
  status: 'True' | 'False' | 'Unknown';
  reason: string | undefined;
  message: string | undefined;
  /** `lastTransitionTime`. */
  since: number | undefined;
}

export type NodeConditionType =
  | 'Ready'
  | 'MemoryPressure'
  | 'DiskPressure'
  | 'PIDPressure'
  | 'NetworkUnavailable';

export interface ControlPlaneNode {
  name: string;
  internalIp: string | undefined;
  conditions: Partial<Record<NodeConditionType, NodeConditionState>>;
  bootId: string | undefined;
  kubeletVersion: string | undefined;
  unschedulable: boolean;
  createdAt: number | undefined;
}

export interface ExpectedStaticPod {
  node: string;
  component: ControlPlaneComponent;
  namespace: string;
  /** `<name>-<node>` as the kubelet names mirror pods. */
  podName: string;
  present: boolean;
}

export interface OperatorCondition {
  type: string;
  status: string;
  reason: string | undefined;
  message: string | undefined;
  since: number | undefined;
}

export interface StaticPodsData {
  expected: ExpectedStaticPod[];
  /** OpenShift `MissingStaticPod` events from the operator namespaces. */
  missingStaticPodEvents: WarningEvent[];
  /** OpenShift `etcds.operator.openshift.io/cluster` status; undefined on kubeadm. */
  etcdOperator: Outcome<EtcdOperatorStatus> | undefined;
  /** Parts that could not be read (a 403 on events), said plainly. */
  notes: string[];
}

export interface EtcdOperatorStatus {
  conditions: OperatorCondition[];
  nodeStatuses: Array<{
    node: string;
    currentRevision: number | undefined;
    targetRevision: number | undefined;
  }>;
}

export type DataVolume =
  | { kind: 'hostPath'; volume: string; path: string }
  | { kind: 'emptyDir'; volume: string; medium: string | undefined }
  | { kind: 'other'; volume: string; source: string }
  | { kind: 'none' };

export interface EtcdPodSpec {
  pod: string;
  namespace: string;
  node: string | undefined;
  /** `--name`: the etcd member name (kubeadm uses the node name). */
  memberName: string | undefined;
  image: string | undefined;
  dataDir: string | undefined;
  dataVolume: DataVolume;
  unsafeNoFsync: boolean;
  heartbeatIntervalMs: number | undefined;
  electionTimeoutMs: number | undefined;
  quotaBackendBytes: number | undefined;
  listenClientUrls: string[];
  advertiseClientUrls: string[];
  peerUrls: string[];
  listenMetricsUrls: string[];
  /** `--max-request-bytes`; absent: etcd's default 1.5 MiB (embed/config.go DefaultMaxRequestBytes). */
  maxRequestBytes?: number;
  /** The etcd container's `resources.limits.memory` in bytes; absent: no limit (kubeadm sets none). */
  memoryLimitBytes?: number;
  /**
   * The flags an upgrade check reads (`enable-v2`, `v2-deprecation`, `max-learners`,
   * `feature-gates`, `snapshot-count`, `max-snapshots`, every `experimental-*`), as etcd sees them.
   */
  upgradeFlags?: Record<string, string>;
  /**
   * Feature gates the flags set, either form: `--feature-gates=InitialCorruptCheck=true` (etcd 3.6+)
   * or the experimental flag it replaced (`--experimental-initial-corrupt-check`); absent when none.
   */
  featureGates?: Record<string, boolean>;
}

export interface ReadyzCheck {
  name: string;
  ok: boolean;
}

export interface EtcdRequestLatency {
  p99Seconds: number | undefined;
  meanSeconds: number | undefined;
  count: number;
  /** One scrape: the histogram since the apiserver started. */
  source: 'since-start';
  /** The (operation, resource) with the highest mean, e.g. `update leases`. */
  slowest: { operation: string; resource: string; meanSeconds: number; count: number } | undefined;
  /** What the apiserver lists, by resource, from the same page (apiserver-lists.ts). */
  lists?: ApiserverLists;
}

export interface ApiserverData {
  readyz: Outcome<{ httpStatus: number; checks: ReadyzCheck[] }>;
  /** Wall time of `GET /api/v1/namespaces/kube-system` (served from etcd) and of `/version` (not). */
  latency: Outcome<{ getNamespaceMs: number; versionMs: number; gitVersion: string | undefined }>;
  /** From the apiserver's /metrics; a 403 here is a note, not a failed probe. */
  etcdRequests: Outcome<EtcdRequestLatency>;
}

export interface WarningEvent {
  namespace: string;
  reason: string;
  message: string;
  count: number;
  /** lastTimestamp, eventTime or series.lastObservedTime. */
  lastSeen: number | undefined;
  object: { kind: string | undefined; name: string | undefined; namespace: string | undefined };
  /** reportingInstance / source.host: often the node. */
  host: string | undefined;
}
