import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { diagnose } from '../../../src/diagnosis/diagnose.js';
import { rules } from '../../../src/diagnosis/rules/index.js';
import { apiserverLists, keepListLine } from '../../../src/probes/kubernetes/apiserver-lists.js';
import { quantityBytes } from '../../../src/probes/kubernetes/etcd-pod-spec.js';
import type { Evidence, MetricsData } from '../../../src/probes/evidence.js';
import type { LoadReading } from '../../../src/probes/etcd-metrics.js';
import type { LoadRates } from '../../../src/probes/metrics-window.js';
import type { EtcdPodSpec, KubernetesEvidence } from '../../../src/probes/kubernetes/evidence.js';
import { clusterEvidence, failed, metricsData, ok } from '../../support/evidence/evidence.js';

const NOW = Date.parse('2026-11-29T03:00:00Z');
const quiet: LoadReading = {
  clientSentBytes: 1e6,
  grpcRanges: 100,
  mvccRanges: 100,
  refusedWrites: 0,
  watchStreams: 2,
  watchers: 4,
  slowWatchers: 0,
  pendingEvents: 0,
  defragInflight: 0,
  openFds: 40,
  maxFds: 1_048_576,
  residentMemoryBytes: 80e6,
};
const quietRates: LoadRates = {
  sentBytesPerSecond: 2000,
  grpcRangesPerSecond: 1,
  mvccRangesPerSecond: 1,
  refusedWrites: 0,
};

function withLoad(
  load: Partial<LoadReading> = {},
  rates: Partial<LoadRates> = {},
  before: Partial<LoadReading> = {},
  extra: Partial<MetricsData> = {},
) {
  return ok(
    metricsData({
      windowSeconds: 3,
      load: { ...quiet, ...load },
      loadBefore: { ...quiet, ...before },
      loadRates: { ...quietRates, ...rates },
      ...extra,
    }),
  );
}

const run = (e: Evidence) => diagnose(e, rules, { now: NOW });

describe('overload and exhaustion from /metrics (issue 39)', () => {
  it('a quiet cluster: none of the new causes', () => {
    const e = clusterEvidence({
      'etcd-1': { metrics: withLoad() },
      'etcd-2': { metrics: withLoad() },
      'etcd-3': { metrics: withLoad() },
    });
    const d = run(e);
    expect(d.findings).toEqual([]);
    expect(d.status).toBe('healthy');
  });

  it('expensive-requests: 150 MB/s out of etcd-1 with a slow read is named first, above cpu-starvation and slow-reads', () => {
    const e = clusterEvidence({
      'etcd-1': {
        metrics: withLoad(
          {},
          { sentBytesPerSecond: 150e6, grpcRangesPerSecond: 12 },
          {},
          {
            deltas: { ...metricsData().deltas, slowApply: 4 },
          },
        ),
        health: ok({ tookMs: 900 }),
        clock: ok({ offsetMs: 5, uncertaintyMs: 50, rttMs: 80, maxRttMs: 140, meanRttMs: 80, samples: 8 }),
      },
      'etcd-2': { metrics: withLoad() },
      'etcd-3': { metrics: withLoad() },
    });
    const d = run(e);
    expect(d.findings[0]).toMatchObject({
      cause: 'expensive-requests',
      severity: 'warning',
      members: ['etcd-1'],
    });
    expect(d.findings[0]?.summary).toMatch(/150 MB\/s from etcd-1: heavy reads explain the latency there/);
    expect(d.findings[0]?.evidence[0]).toMatch(
      /^etcd-1: 150 MB\/s sent to clients over 3 s, 12 ranges a second, about 12.5 MB each/,
    );
    for (const symptom of ['cpu-starvation', 'slow-reads'])
      expect(d.findings.find((f) => f.cause === symptom)).toMatchObject({ causedBy: 'expensive-requests' });
    expect(d.findings[0]?.steps.map((s) => s.text).join('\n')).toMatch(
      /Priority and Fairness.*pagination|paginated/s,
    );
  });

  it('expensive-requests without latency is info; under 10 MB/s nothing', () => {
    const heavy = run(clusterEvidence({ 'etcd-2': { metrics: withLoad({}, { sentBytesPerSecond: 40e6 }) } }));
    expect(heavy.findings).toEqual([
      expect.objectContaining({ cause: 'expensive-requests', severity: 'info' }),
    ]);
    expect(heavy.status).toBe('healthy');
    const light = run(clusterEvidence({ 'etcd-2': { metrics: withLoad({}, { sentBytesPerSecond: 9e6 }) } }));
    expect(light.findings).toEqual([]);
  });

  it('request-too-large: refused writes with the default limit, a warning', () => {
    const d = run(clusterEvidence({ 'etcd-3': { metrics: withLoad({}, { refusedWrites: 6 }) } }));
    expect(d.findings).toEqual([
      expect.objectContaining({ cause: 'request-too-large', severity: 'warning', members: ['etcd-3'] }),
    ]);
    expect(d.findings[0]?.evidence.join('\n')).toMatch(/1.5 MiB, etcd's default/);
  });

  it('request-too-large: the limit from --max-request-bytes in the pod spec', () => {
    const e = {
      ...clusterEvidence({ 'etcd-3': { metrics: withLoad({}, { refusedWrites: 2 }) } }),
      kubernetes: ok(kube([spec('etcd-3', { maxRequestBytes: 3 * 1024 * 1024 })])),
    };
    const f = run(e).findings.find((x) => x.cause === 'request-too-large');
    expect(f?.evidence.join('\n')).toMatch(/etcd-3: --max-request-bytes 3 MiB \(from its pod spec\)/);
  });

  it('slow-watchers: slow at both ends of the window counts; at one end only (catching up) does not', () => {
    const slow = run(
      clusterEvidence({
        'etcd-2': { metrics: withLoad({ slowWatchers: 3, pendingEvents: 4200 }, {}, { slowWatchers: 2 }) },
      }),
    );
    expect(slow.findings[0]).toMatchObject({ cause: 'slow-watchers', members: ['etcd-2'] });
    expect(slow.findings[0]?.evidence[0]).toMatch(
      /3 slow watchers of 4 \(2 at the window's start.*4200 events pending/,
    );
    const catchingUp = run(
      clusterEvidence({ 'etcd-2': { metrics: withLoad({ slowWatchers: 1 }, {}, { slowWatchers: 0 }) } }),
    );
    expect(catchingUp.findings).toEqual([]);
  });

  it('defrag-in-progress explains the member that does not answer instead of a bare member-down', () => {
    const e = clusterEvidence({
      'etcd-1': {
        metrics: withLoad({ defragInflight: 1 }),
        health: failed('timeout', 'etcd-1 did not answer a linearizable read within 3 s'),
        status: failed('timeout', 'etcd-1 did not answer Status within 3 s'),
      },
    });
    const d = run(e);
    expect(d.findings[0]).toMatchObject({ cause: 'defrag-in-progress', members: ['etcd-1'] });
    expect(d.findings.find((f) => f.cause === 'member-down')).toMatchObject({
      causedBy: 'defrag-in-progress',
    });
  });

  it('fd-exhaustion live: warning from 80 %, critical at the limit, with the member', () => {
    const warn = run(clusterEvidence({ 'etcd-2': { metrics: withLoad({ openFds: 109, maxFds: 120 }) } }));
    expect(warn.findings[0]).toMatchObject({
      cause: 'fd-exhaustion',
      severity: 'warning',
      members: ['etcd-2'],
    });
    expect(warn.findings[0]?.summary).toMatch(/etcd-2 uses 91 % of its file descriptors \(109 of 120 open\)/);
    const full = run(clusterEvidence({ 'etcd-2': { metrics: withLoad({ openFds: 120, maxFds: 120 }) } }));
    expect(full.findings[0]).toMatchObject({ cause: 'fd-exhaustion', severity: 'critical' });
    const fine = run(clusterEvidence({ 'etcd-2': { metrics: withLoad({ openFds: 95, maxFds: 120 }) } }));
    expect(fine.findings).toEqual([]);
  });

  it('out-of-memory live: resident memory against the container limit from the pod spec', () => {
    const e = {
      ...clusterEvidence({ 'etcd-1': { metrics: withLoad({ residentMemoryBytes: 1.8 * 2 ** 30 }) } }),
      kubernetes: ok(kube([spec('etcd-1', { memoryLimitBytes: 2 * 2 ** 30 }), spec('etcd-2', {})])),
    };
    const f = run(e).findings.find((x) => x.cause === 'out-of-memory');
    expect(f).toMatchObject({ severity: 'warning', members: ['etcd-1'] });
    expect(f?.summary).toMatch(/etcd-1 holds 90 % of its container's memory limit \(1.8 GiB of 2 GiB\)/);
  });

  it('reads Kubernetes memory quantities', () => {
    expect(quantityBytes('512Mi')).toBe(512 * 2 ** 20);
    expect(quantityBytes('2G')).toBe(2e9);
    expect(quantityBytes('1.5Gi')).toBe(1.5 * 2 ** 30);
    expect(quantityBytes('lots')).toBeUndefined();
    expect(quantityBytes(undefined)).toBeUndefined();
  });
});

function spec(member: string, overrides: Partial<EtcdPodSpec>): EtcdPodSpec {
  return {
    pod: `etcd-${member}`,
    namespace: 'kube-system',
    node: member,
    memberName: member,
    image: undefined,
    dataDir: '/var/lib/etcd',
    dataVolume: { kind: 'hostPath', volume: 'etcd-data', path: '/var/lib/etcd' },
    unsafeNoFsync: false,
    heartbeatIntervalMs: undefined,
    electionTimeoutMs: undefined,
    quotaBackendBytes: undefined,
    listenClientUrls: [],
    advertiseClientUrls: [],
    peerUrls: [],
    listenMetricsUrls: [],
    ...overrides,
  };
}

function kube(etcdPods: EtcdPodSpec[]): KubernetesEvidence {
  const none = {
    ok: false as const,
    failure: { kind: 'skipped' as const, message: 'not asked' },
    durationMs: 0,
  };
  return {
    distribution: 'kubeadm',
    server: 'https://127.0.0.1:6443',
    collectedAt: NOW,
    pods: none,
    logs: none,
    leases: none,
    nodes: none,
    staticPods: none,
    etcdPods: ok(etcdPods),
    apiserver: none,
    events: none,
  };
}

describe('which resource the apiserver lists (issue 39)', () => {
  it('reads the LIST rows of a real-shaped page and names pods across all namespaces', () => {
    const page = readFileSync(new URL('../../fixtures/kube/list-storm/metrics.txt', import.meta.url), 'utf8');
    const lists = apiserverLists(page.split('\n').filter(keepListLine));
    expect(lists?.startedAtSeconds).toBe(1715671800);
    expect(lists?.resources.find((r) => r.resource === 'pods')).toMatchObject({
      listsByScope: { cluster: 21600 },
      fromStorage: 21600,
      responses: 21600,
    });
    const base = clusterEvidence({
      'etcd-1': {
        metrics: withLoad({}, { sentBytesPerSecond: 150e6, grpcRangesPerSecond: 3 }),
        health: ok({ tookMs: 700 }),
      },
    });
    const k = kube([]);
    const e = {
      ...base,
      kubernetes: ok({
        ...k,
        collectedAt: Date.parse('2024-05-14T09:30:00Z'),
        apiserver: ok({
          readyz: failed('error', 'not read'),
          latency: failed('error', 'not read'),
          etcdRequests: ok({
            p99Seconds: 0.01,
            meanSeconds: 0.005,
            count: 100,
            source: 'since-start' as const,
            slowest: undefined,
            ...(lists ? { lists } : {}),
          }),
        }),
      }),
    };
    const f = run(e).findings[0];
    expect(f?.cause).toBe('expensive-requests');
    expect(f?.summary).toBe(
      'LISTs of pods across all namespaces (3 a second, 85 MB each, since the apiserver started 2 h 00 min ago) are reading 150 MB/s from etcd-1: heavy reads explain the latency there',
    );
    expect(f?.steps[0]?.text).toMatch(/LISTs of pods without `limit`/);
  });
});
