import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { diagnose } from '../../../src/diagnosis/diagnose.js';
import { rules } from '../../../src/diagnosis/rules/index.js';
import {
  type ApiserverLists,
  apiserverLists,
  keepListLine,
} from '../../../src/probes/kubernetes/apiserver-lists.js';
import { compareLists } from '../../../src/probes/kubernetes/apiserver-lists-window.js';
import type { Evidence } from '../../../src/probes/evidence.js';
import { AUDIT_RECENT_MS, auditListers, readTail } from '../../../src/probes/kubernetes/audit-log.js';
import type { AuditListers, KubernetesEvidence } from '../../../src/probes/kubernetes/evidence.js';
import { clusterEvidence, failed, metricsData, ok } from '../../support/evidence/evidence.js';
import { metricsPage } from '../../support/kube/growing-metrics.js';
import { loadKubeFixture } from '../../support/kube/kube-fixtures.js';

/*
 * The apiserver's LISTs and API Priority and Fairness over the probe window (issue 39): two reads of
 * the list-storm fixture's /metrics, whose counters advance as a running apiserver's do
 * (test/support/kube/growing-metrics.ts), compared and judged.
 */

const fixture = loadKubeFixture('list-storm');
const RECORDED = fixture.recordedAtMs;
const read = (elapsedMs: number): ApiserverLists => {
  const page = metricsPage(fixture, elapsedMs) ?? '';
  const lists = apiserverLists(page.split('\n').filter(keepListLine));
  if (!lists) throw new Error('no LIST rows');
  return lists;
};
const pods = (l: { resources: ApiserverLists['resources'] }) =>
  l.resources.find((r) => r.resource === 'pods');
const flow = (l: { flows?: ApiserverLists['flows'] }, schema: string) =>
  l.flows?.find((f) => f.flowSchema === schema);

/** etcd-1 sends its clients 150 MB/s with a slow read, and the apiserver's /metrics read as given. */
function evidenceWith(lists: ApiserverLists, auditLog?: AuditListers): Evidence {
  const base = clusterEvidence({
    'etcd-1': {
      metrics: ok(
        metricsData({
          windowSeconds: 3,
          load: {
            clientSentBytes: 600e6,
            grpcRanges: 50,
            mvccRanges: 50,
            refusedWrites: 0,
            watchStreams: 2,
            watchers: 4,
            slowWatchers: 0,
            pendingEvents: 0,
            defragInflight: 0,
            openFds: 40,
            maxFds: 1_048_576,
            residentMemoryBytes: 80e6,
          },
          loadRates: {
            sentBytesPerSecond: 150e6,
            grpcRangesPerSecond: 3,
            mvccRangesPerSecond: 3,
            refusedWrites: 0,
          },
        }),
      ),
      health: ok({ tookMs: 700 }),
    },
  });
  const none = {
    ok: false as const,
    failure: { kind: 'skipped' as const, message: 'not asked' },
    durationMs: 0,
  };
  const kube: KubernetesEvidence = {
    distribution: 'kubeadm',
    server: 'https://127.0.0.1:6443',
    collectedAt: RECORDED,
    pods: none,
    logs: none,
    leases: none,
    nodes: none,
    staticPods: none,
    etcdPods: ok([]),
    apiserver: ok({
      readyz: failed('error', 'not read'),
      latency: failed('error', 'not read'),
      etcdRequests: ok({
        p99Seconds: 0.01,
        meanSeconds: 0.005,
        count: 100,
        source: 'since-start' as const,
        slowest: undefined,
        lists,
      }),
    }),
    events: none,
    ...(auditLog ? { auditLog: ok(auditLog) } : {}),
  };
  return { ...base, kubernetes: ok(kube) };
}

const finding = (lists: ApiserverLists, auditLog?: AuditListers) =>
  diagnose(evidenceWith(lists, auditLog), rules, { now: RECORDED }).findings.find(
    (f) => f.cause === 'expensive-requests',
  );

describe("the apiserver's /metrics over the probe window (issue 39)", () => {
  it('reads API Priority and Fairness by flow schema and priority level from the real-shaped page', () => {
    const l = read(0);
    expect(flow(l, 'service-accounts')).toEqual({
      flowSchema: 'service-accounts',
      priorityLevel: 'workload-low',
      dispatched: 24480,
      rejected: { 'time-out': 12 },
      inQueue: 0,
    });
    expect(flow(l, 'probes')).toMatchObject({ priorityLevel: 'exempt', dispatched: 2880, rejected: {} });
    expect(l.flows).toHaveLength(9);
  });

  it('two reads 3 s apart: each counter increases by 3 s of its events, in step', () => {
    const w = compareLists(read(0), read(3000), 3);
    expect(w.reset).toBe(false);
    expect(pods(w)).toEqual({
      resource: 'pods',
      listsByScope: { cluster: 9 },
      fromStorage: 9,
      fetchedObjects: 360_000,
      responseBytes: 9 * 85e6,
      responses: 9,
    });
    // 3 LISTs a second and 0.4 other requests of service accounts: 10 in 3 s; no new rejection.
    expect(flow(w, 'service-accounts')).toMatchObject({ dispatched: 10, rejected: { 'time-out': 0 } });
    expect(flow(w, 'system-leader-election')?.dispatched).toBe(3);
  });

  it('a restart between the reads (another start time, or a counter gone back) is no window', () => {
    const later = read(3000);
    expect(compareLists(read(0), { ...later, startedAtSeconds: 1715679000 }, 3)).toMatchObject({
      reset: true,
      resources: [],
      flows: [],
    });
    const fresh = read(0);
    const restarted = {
      ...later,
      startedAtSeconds: undefined,
      resources: later.resources.map((r) => ({ ...r, listsByScope: { cluster: 2 } })),
    };
    expect(compareLists({ ...fresh, startedAtSeconds: undefined }, restarted, 3).reset).toBe(true);
  });

  it('names the resource listed, its rate and size in the window, and the flow schema that dispatches most', () => {
    const after = read(3000);
    const f = finding({ ...after, window: compareLists(read(0), after, 3) });
    expect(f?.summary).toBe(
      'LISTs of pods across all namespaces (3 a second, 85 MB each, in the last 3 s; flow schema `service-accounts`, priority level `workload-low`) are reading 150 MB/s from etcd-1: heavy reads explain the latency there',
    );
    expect(f?.evidence).toContain(
      'the apiserver in the last 3 s: LISTs of pods across all namespaces, 3 a second, 85 MB each (255 MB/s), 9 served from etcd rather than the watch cache (360,000 objects fetched) (apiserver_request_total, apiserver_storage_list_total, apiserver_response_sizes)',
    );
    expect(f?.evidence).toContain(
      'API Priority and Fairness in the last 3 s: flow schema `service-accounts` (priority level `workload-low`) dispatches the most, 3.3 requests a second of 5.7 a second in all (apiserver_flowcontrol_dispatched_requests_total)',
    );
    expect(f?.evidence.join('\n')).not.toMatch(/rejected/);
    expect(f?.steps[1]?.text).toMatch(
      /^Bound it: its requests go through flow schema `service-accounts` at priority level `workload-low`/,
    );
  });

  it('rejections (429) in the window are named with their flow, reasons and queue', () => {
    const before = read(0);
    const after = read(3000);
    const rejecting = {
      ...after,
      flows: (after.flows ?? []).map((f) =>
        f.flowSchema === 'service-accounts'
          ? { ...f, rejected: { 'time-out': 13, 'queue-full': 3 }, inQueue: 48 }
          : f,
      ),
    };
    const f = finding({ ...rejecting, window: compareLists(before, rejecting, 3) });
    expect(f?.summary).toMatch(
      /^LISTs of pods across all namespaces \(3 a second, 85 MB each, in the last 3 s; flow schema `service-accounts`, priority level `workload-low`, 4 requests rejected with 429\)/,
    );
    expect(f?.evidence).toContain(
      'API Priority and Fairness in the last 3 s: 4 requests rejected with HTTP 429, flow schema `service-accounts` (priority level `workload-low`) 4: time-out 1, queue-full 3, 48 waiting in its queues now (apiserver_flowcontrol_rejected_requests_total, apiserver_flowcontrol_current_inqueue_requests)',
    );
  });

  it("LISTs too light for etcd's load in the window: no resource named, and the lines say the reads come from elsewhere", () => {
    const before = read(0);
    // The same apiserver with no LIST of pods in the window: only the configmaps of the watch cache.
    const after = read(3000);
    const quiet = {
      ...after,
      resources: after.resources.map((r) => (r.resource === 'pods' ? (pods(before) ?? r) : r)),
    };
    const f = finding({ ...quiet, window: compareLists(before, quiet, 3) });
    expect(f?.summary).toBe(
      'Clients are reading 150 MB/s from etcd-1: heavy reads explain the latency there',
    );
    expect(f?.evidence.join('\n')).toMatch(
      /the apiserver's LISTs read 0 B\/s from etcd in the last 3 s, under 10 MB\/s; the heaviest: LISTs of configmaps, 0\.3 a second, 12 KB each: the reads come from another client of etcd, or another apiserver/,
    );
  });

  it('two reads that do not compare: the since-start averages, and why', () => {
    const after = read(3000);
    const f = finding({ ...after, window: { seconds: 3, reset: true, resources: [], flows: [] } });
    expect(f?.summary).toMatch(
      /^LISTs of pods across all namespaces \(3 a second, 85 MB each, since the apiserver started 2 h 00 min ago\) are reading/,
    );
    expect(f?.evidence.join('\n')).toMatch(
      /the apiserver's \/metrics read twice 3 s apart has two start times or a counter that went back: it restarted, or another apiserver behind the address answered/,
    );
  });

  it('with the audit log: who lists the resource named, in the headline and the first step', async () => {
    const after = read(3000);
    const audit = auditListers(
      await readTail({
        path: fileURLToPath(new URL('../../fixtures/kube/list-storm/audit.log', import.meta.url)),
        maxBytes: 16 * 1024 * 1024,
        maxLines: 100_000,
      }),
      RECORDED,
      AUDIT_RECENT_MS,
    );
    const f = finding({ ...after, window: compareLists(read(0), after, 3) }, audit);
    expect(f?.summary).toBe(
      'LISTs of pods across all namespaces (3 a second, 85 MB each, in the last 3 s; flow schema `service-accounts`, priority level `workload-low`; by system:serviceaccount:ci:runner with kubectl/v1.30.2) are reading 150 MB/s from etcd-1: heavy reads explain the latency there',
    );
    expect(f?.evidence).toContain(
      'the audit log, LISTs received in the last 60 s: 179 of pods across all namespaces by system:serviceaccount:ci:runner (kubectl/v1.30.2); 36 of configmaps in one namespace by system:kube-controller-manager (kube-controller-manager/v1.29.4); 7 of pods across all namespaces by system:serviceaccount:monitoring:prometheus (Prometheus/2.51.0)',
    );
    expect(f?.steps[0]?.text).toMatch(
      /^Find the client: the audit log names system:serviceaccount:ci:runner \(kubectl\/v1\.30\.2\) listing pods; /,
    );
  });

  it('an audit log that cannot be read is an unknown, not a failure of the finding', () => {
    const after = read(3000);
    const e = evidenceWith({ ...after, window: compareLists(read(0), after, 3) });
    const k = e.kubernetes?.ok ? e.kubernetes.data : undefined;
    if (!k) throw new Error('no kubernetes');
    const withFailed: Evidence = {
      ...e,
      kubernetes: ok({
        ...k,
        auditLog: failed('error', 'cannot read the audit log /var/log/audit.log: EACCES'),
      }),
    };
    const f = diagnose(withFailed, rules, { now: RECORDED }).findings.find(
      (x) => x.cause === 'expensive-requests',
    );
    expect(f?.summary).toMatch(/^LISTs of pods across all namespaces \(3 a second/);
    expect(f?.unknowns).toContain('who lists: cannot read the audit log /var/log/audit.log: EACCES');
  });

  it('LISTs without a size on the page: the rates, no resource named, and the size an unknown', () => {
    const unsized = (l: ApiserverLists): ApiserverLists => ({
      ...l,
      resources: l.resources.map((r) => ({ ...r, responseBytes: undefined, responses: undefined })),
    });
    const before = unsized(read(0));
    const after = unsized(read(3000));
    const f = finding({ ...after, window: compareLists(before, after, 3) });
    expect(f?.summary).toBe(
      'Clients are reading 150 MB/s from etcd-1: heavy reads explain the latency there',
    );
    expect(f?.evidence).toContain(
      'the apiserver in the last 3 s: LISTs of pods across all namespaces, 3 a second, 9 served from etcd rather than the watch cache (360,000 objects fetched) (apiserver_request_total, apiserver_storage_list_total, apiserver_response_sizes)',
    );
    expect(f?.unknowns).toContain(
      "how much the apiserver's LISTs read from etcd: its /metrics has no apiserver_response_sizes for LIST",
    );
  });
});
