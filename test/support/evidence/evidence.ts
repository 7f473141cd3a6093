import type { Outcome } from '../../../src/probes/outcome.js';
import type {
  Evidence,
  LatencySummary,
  MemberEvidence,
  MetricsData,
  StatusData,
} from '../../../src/probes/evidence.js';

/**
 * Builds Evidence objects for rule and engine unit tests: the same shapes the real probes
 * produce, with numbers chosen by the test. Integration tests use real probes instead.
 */
export const ok = <T>(data: T, durationMs = 2): Outcome<T> => ({ ok: true, data, durationMs });

export const failed = (
  kind: 'timeout' | 'unreachable' | 'error' | 'forbidden',
  message: string,
): Outcome<never> => ({
  ok: false,
  failure: { kind, message },
  durationMs: kind === 'timeout' ? 3000 : 1,
});

export function latency(p99Ms: number, meanMs = p99Ms / 2, count = 200): LatencySummary {
  return { p99Seconds: p99Ms / 1000, meanSeconds: meanMs / 1000, count, source: 'window', windowSeconds: 3 };
}

export function metricsData(overrides: Partial<MetricsData> = {}): MetricsData {
  return {
    windowSeconds: 3,
    walFsync: latency(4, 1),
    backendCommit: latency(6, 2),
    peers: [],
    deltas: {
      leaderChanges: 0,
      heartbeatSendFailures: 0,
      slowApply: 0,
      slowReadIndexes: 0,
      readIndexesFailed: 0,
      proposalsFailed: 0,
    },
    totals: {
      leaderChanges: 1,
      heartbeatSendFailures: 0,
      slowApply: 0,
      slowReadIndexes: 0,
      readIndexesFailed: 0,
      proposalsFailed: 0,
      proposalsCommitted: 1000,
      proposalsApplied: 1000,
    },
    gauges: {
      hasLeader: 1,
      isLeader: 0,
      proposalsPending: 0,
      dbTotalSizeBytes: 1_000_000,
      dbInUseSizeBytes: 900_000,
      quotaBackendBytes: 2 * 1024 ** 3,
      processStartTimeSeconds: 1_700_000_000,
      serverId: undefined,
      // etcd 3.4: compacted twice since it started, and no time of the last compaction.
      compactRevision: 40,
      currentRevision: 50,
      lastCompactionSeconds: undefined,
      compactionsSinceStart: 2,
    },
    applyBacklog: 0,
    ...overrides,
  };
}

export interface MemberSpec {
  name: string;
  id: string;
  leaderId?: string;
  health?: MemberEvidence['health'];
  status?: MemberEvidence['status'];
  metrics?: MemberEvidence['metrics'];
  clock?: MemberEvidence['clock'];
}

/** A member's Status as a healthy 3.4.45 voter of cluster c1 answers it (leader a1), each field overridable. */
export function statusData(memberId: string, overrides: Partial<StatusData> = {}): StatusData {
  return {
    memberId,
    clusterId: 'c1',
    version: '3.4.45',
    dbSizeBytes: 1_000_000,
    dbSizeInUseBytes: 900_000,
    leaderId: 'a1',
    raftTerm: 2,
    raftIndex: 100,
    raftAppliedIndex: 100,
    revision: 50,
    isLearner: false,
    errors: [],
    ...overrides,
  };
}

export function member(spec: MemberSpec): MemberEvidence {
  const index = Number(spec.id.slice(-1)) || 1;
  const endpoint = `http://127.0.0.1:${23790 + index}`;
  return {
    target: { name: spec.name, endpoint, metricsUrl: `${endpoint}/metrics`, id: spec.id },
    health: spec.health ?? ok({ tookMs: 2 }),
    status: spec.status ?? ok(statusData(spec.id, { leaderId: spec.leaderId ?? 'a1' })),
    metrics: spec.metrics ?? ok(metricsData()),
    clock:
      spec.clock ?? ok({ offsetMs: 5, uncertaintyMs: 50, rttMs: 1, maxRttMs: 2, meanRttMs: 1, samples: 6 }),
  };
}

/** Three healthy members etcd-1..3 (ids a1..a3, leader a1), each overridable. */
export function clusterEvidence(
  overrides: Partial<Record<'etcd-1' | 'etcd-2' | 'etcd-3', Partial<MemberSpec>>> = {},
): Evidence {
  const names = ['etcd-1', 'etcd-2', 'etcd-3'] as const;
  const members = names.map((name, i) => member({ name, id: `a${i + 1}`, ...overrides[name] }));
  return {
    cluster: 'test',
    collectedAt: Date.parse('2026-11-29T03:00:00Z'),
    memberList: ok(
      members.map((m) => ({
        id: m.target.id ?? '',
        name: m.target.name,
        peerUrls: [m.target.endpoint.replace(/:(\d+)$/, ':2380')],
        clientUrls: [m.target.endpoint],
        isLearner: false,
      })),
    ),
    alarms: ok([]),
    members,
    probes: [],
    timeoutMs: 3000,
  };
}
