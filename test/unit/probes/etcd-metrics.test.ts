import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import {
  createMetricsLineFilter,
  type EtcdMetricsSnapshot,
  type Histogram,
  histogramDelta,
  histogramQuantile,
  parseEtcdMetrics,
  summarizeLatency,
} from '../../../src/probes/etcd-metrics.js';
import { compareSnapshots } from '../../../src/probes/metrics-window.js';
import { parseEtcdMetricsReference } from '../../support/probes/reference-metrics.js';

// Fixtures are real /metrics pages of etcd 3.4.23 (see test/fixtures/metrics/README.md), except
// etcd-3.4.23-slow-disk-crafted.txt, which says so in its first line.
function fixture(name: string): string {
  return readFileSync(new URL(`../../fixtures/metrics/etcd-3.4.23-${name}.txt`, import.meta.url), 'utf8');
}

function snapshotOf(text: string, scrapedAtMs: number): EtcdMetricsSnapshot {
  const parsed = parseEtcdMetrics(text, scrapedAtMs);
  if (!parsed.ok) throw new Error(`fixture did not parse: ${parsed.error}`);
  return parsed.snapshot;
}

const snapshot = (name: string, scrapedAtMs: number) => snapshotOf(fixture(name), scrapedAtMs);

const PEER_A = '5a4d3e894f5892eb';
const PEER_B = '8121bc5146ad3713';

function hist(buckets: Array<[number, number]>, sum: number): Histogram {
  const count = buckets.at(-1)?.[1] ?? 0;
  return { buckets: buckets.map(([le, c]) => ({ le, count: c })), sum, count };
}

describe('parseEtcdMetrics on a real single-member capture', () => {
  it('reads gauges, counters and both disk histograms', () => {
    const s = snapshot('idle', 1000);
    expect(s.scrapedAtMs).toBe(1000);
    expect(s.gauges).toEqual({
      // mvcc's live keys: an empty store
      keysTotal: 0,
      hasLeader: 1,
      isLeader: 1,
      proposalsPending: 0,
      dbTotalSizeBytes: 20480,
      dbInUseSizeBytes: 16384,
      quotaBackendBytes: 2147483648,
      processStartTimeSeconds: 1795991770.73,
      serverId: '499b60c4c0e46b48',
      // A fresh 3.4 member: never compacted, revision 1, no time of a compaction exported.
      compactRevision: -1,
      currentRevision: 1,
      lastCompactionSeconds: undefined,
      compactionsSinceStart: 0,
    });
    expect(s.counters).toEqual({
      leaderChanges: 1,
      heartbeatSendFailures: 0,
      slowApply: 0,
      slowReadIndexes: 0,
      readIndexesFailed: 0,
      proposalsFailed: 0,
      proposalsCommitted: 5,
      proposalsApplied: 5,
    });
    expect(s.walFsync?.count).toBe(7);
    expect(s.walFsync?.sum).toBeCloseTo(0.003341216, 12);
    expect(s.walFsync?.buckets).toHaveLength(15);
    expect(s.walFsync?.buckets.slice(0, 2)).toEqual([
      { le: 0.001, count: 6 },
      { le: 0.002, count: 7 },
    ]);
    expect(s.walFsync?.buckets.at(-1)).toEqual({ le: Number.POSITIVE_INFINITY, count: 7 });
    expect(s.backendCommit?.count).toBe(6);
    expect(s.peerRtt).toEqual({});
    expect(s.peerSentFailures).toEqual({});
  });

  it('reads the last line even without a trailing newline', () => {
    const s = snapshotOf('etcd_server_is_leader 0\netcd_server_has_leader 1', 0);
    expect(s.gauges.hasLeader).toBe(1);
    expect(s.gauges.isLeader).toBe(0);
  });

  it('reads CRLF text the same as LF text', () => {
    const lf = snapshotOf(fixture('3member-leader'), 0);
    const crlf = snapshotOf(fixture('3member-leader').replace(/\n/g, '\r\n'), 0);
    expect(crlf).toEqual(lf);
  });

  it('gives undefined gauges and zero counters for missing metrics', () => {
    const s = snapshotOf('etcd_server_has_leader 0\n', 0);
    expect(s.walFsync).toBeUndefined();
    expect(s.backendCommit).toBeUndefined();
    expect(s.gauges.hasLeader).toBe(0);
    expect(s.gauges.serverId).toBeUndefined();
    expect(s.gauges.dbTotalSizeBytes).toBeUndefined();
    expect(Object.values(s.counters)).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
    const w = compareSnapshots(s, snapshotOf('etcd_server_has_leader 0\n', 5000));
    expect(w.walFsync).toEqual({
      p99Seconds: undefined,
      meanSeconds: undefined,
      count: 0,
      source: 'since-start',
      windowSeconds: undefined,
    });
    expect(w.peers).toEqual([]);
  });
});

describe('parseEtcdMetrics on text that is not an etcd /metrics page', () => {
  it.each([
    ['an empty body', '', /empty/],
    [
      'an HTML error page',
      '<!DOCTYPE html>\n<html><body>502 Bad Gateway</body></html>\n',
      /line 1 reads "<!DOCTYPE html>"/,
    ],
    ['a JSON body', '{"health":"true"}', /line 1 reads/],
    ['words', 'hello world\n', /no etcd_\* metric among its 1 metric names/],
    [
      'a value that is not a number',
      'etcd_server_has_leader one\n',
      /etcd_server_has_leader has the value "one"/,
    ],
    [
      'an unclosed label set',
      'etcd_server_has_leader{a="b" 1\n',
      /^invalid line "etcd_server_has_leader\{a=/,
    ],
    [
      'another exporter',
      '# TYPE node_load1 gauge\nnode_load1 0.21\n',
      /no etcd_\* metric among its 1 metric names/,
    ],
  ])('rejects %s with a message', (_what, text, message) => {
    const parsed = parseEtcdMetrics(text, 0);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error).toMatch(message);
  });
});

describe('histogramQuantile', () => {
  // Hand-computed: rank = q × 10, then linear inside the bucket that reaches the rank.
  const h = hist(
    [
      [0.001, 2],
      [0.002, 6],
      [0.004, 9],
      [0.008, 10],
      [Number.POSITIVE_INFINITY, 10],
    ],
    0.02,
  );

  it('interpolates inside the bucket like PromQL histogram_quantile', () => {
    expect(histogramQuantile(0.1, h)).toBeCloseTo(0.0005, 12); // rank 1 of 2 in (0, 0.001]
    expect(histogramQuantile(0.5, h)).toBeCloseTo(0.00175, 12); // rank 3 of 4 in (0.001, 0.002]
    expect(histogramQuantile(0.99, h)).toBeCloseTo(0.0076, 12); // rank 0.9 of 1 in (0.004, 0.008]
  });

  it('gives the highest finite bound when the rank lands in +Inf', () => {
    const tail = hist(
      [
        [0.001, 1],
        [0.002, 1],
        [Number.POSITIVE_INFINITY, 100],
      ],
      500,
    );
    expect(histogramQuantile(0.99, tail)).toBe(0.002);
  });

  it('is undefined for an empty histogram or one without +Inf, and refuses q outside [0, 1]', () => {
    expect(
      histogramQuantile(
        0.99,
        hist(
          [
            [0.001, 0],
            [Number.POSITIVE_INFINITY, 0],
          ],
          0,
        ),
      ),
    ).toBeUndefined();
    expect(
      histogramQuantile(
        0.99,
        hist(
          [
            [0.001, 3],
            [0.002, 5],
          ],
          0.005,
        ),
      ),
    ).toBeUndefined();
    expect(() => histogramQuantile(99, h)).toThrow(RangeError);
  });

  it('matches hand-computed p99 of a real capture', () => {
    // after-writes wal fsync: 55 ≤ 1 ms, 57 ≤ 2 ms. rank 56.43 → 0.001 + 0.001 × 1.43 / 2.
    expect(histogramQuantile(0.99, snapshot('after-writes', 0).walFsync!)).toBeCloseTo(0.001715, 12);
  });
});

describe('histogramDelta', () => {
  it('subtracts bucket by bucket', () => {
    const d = histogramDelta(snapshot('idle', 0).walFsync!, snapshot('after-writes', 0).walFsync!);
    expect(d?.count).toBe(50);
    expect(d?.buckets.slice(0, 3)).toEqual([
      { le: 0.001, count: 49 },
      { le: 0.002, count: 50 },
      { le: 0.004, count: 50 },
    ]);
    expect(d?.sum).toBeCloseTo(0.02738105100000001 - 0.003341216, 12);
  });

  it('is undefined after a counter reset', () => {
    expect(
      histogramDelta(snapshot('after-writes', 0).walFsync!, snapshot('idle', 0).walFsync!),
    ).toBeUndefined();
  });

  it('is undefined when one bucket went backwards though the total grew (restart, then more writes)', () => {
    const before = hist(
      [
        [0.001, 5],
        [Number.POSITIVE_INFINITY, 5],
      ],
      0.004,
    );
    const after = hist(
      [
        [0.001, 2],
        [Number.POSITIVE_INFINITY, 6],
      ],
      1.2,
    );
    expect(histogramDelta(before, after)).toBeUndefined();
  });
});

describe('summarizeLatency', () => {
  const fast1000 = hist(
    [
      [0.001, 1000],
      [0.256, 1000],
      [0.512, 1000],
      [Number.POSITIVE_INFINITY, 1000],
    ],
    0.5,
  );
  const plusOneSlow = hist(
    [
      [0.001, 1004],
      [0.256, 1004],
      [0.512, 1005],
      [Number.POSITIVE_INFINITY, 1005],
    ],
    0.902,
  );

  it('does not let one slow fsync among five become the p99', () => {
    const guarded = summarizeLatency(fast1000, plusOneSlow, { minSamples: 20 });
    expect(guarded.source).toBe('since-start');
    expect(guarded.count).toBe(1005);
    expect(guarded.p99Seconds).toBeCloseTo((0.001 * 994.95) / 1004, 12);
    const unguarded = summarizeLatency(fast1000, plusOneSlow, { minSamples: 1 });
    expect(unguarded.source).toBe('window');
    expect(unguarded.p99Seconds).toBeCloseTo(0.256 + 0.256 * 0.95, 12);
    expect(unguarded.meanSeconds).toBeCloseTo(0.402 / 5, 12);
  });

  it('withholds the p99 of a since-start histogram that is itself too small, but gives the mean', () => {
    const s = summarizeLatency(undefined, snapshot('idle', 0).walFsync, { minSamples: 20 });
    expect(s).toEqual({
      p99Seconds: undefined,
      meanSeconds: 0.003341216 / 7,
      count: 7,
      source: 'since-start',
      windowSeconds: undefined,
    });
  });
});

describe('compareSnapshots', () => {
  it('uses the window when it holds enough fsyncs', () => {
    const w = compareSnapshots(snapshot('idle', 0), snapshot('after-writes', 30_000));
    expect(w.windowSeconds).toBe(30);
    expect(w.walFsync.source).toBe('window');
    expect(w.walFsync.windowSeconds).toBe(30);
    expect(w.walFsync.count).toBe(50);
    // Window buckets: 49 ≤ 1 ms, 50 ≤ 2 ms. rank 49.5 → 0.001 + 0.001 × 0.5 / 1.
    expect(w.walFsync.p99Seconds).toBeCloseTo(0.0015, 12);
    expect(w.walFsync.meanSeconds).toBeCloseTo((0.02738105100000001 - 0.003341216) / 50, 12);
    // Only 13 commits in the window, and only 19 since start: no p99 from so few, but the mean.
    expect(w.backendCommit.source).toBe('since-start');
    expect(w.backendCommit.windowSeconds).toBeUndefined();
    expect(w.backendCommit.count).toBe(19);
    expect(w.backendCommit.p99Seconds).toBeUndefined();
    expect(w.backendCommit.meanSeconds).toBeCloseTo(0.015324292000000002 / 19, 12);
    // With minSamples 19: since-start, 14 ≤ 1 ms, 19 ≤ 2 ms. rank 18.81 → 0.001 + 0.001 × 4.81 / 5.
    const w19 = compareSnapshots(snapshot('idle', 0), snapshot('after-writes', 30_000), { minSamples: 19 });
    expect(w19.backendCommit.source).toBe('since-start');
    expect(w19.backendCommit.p99Seconds).toBeCloseTo(0.001962, 12);
    expect(w.totals.proposalsCommitted).toBe(55);
    expect(w.applyBacklog).toBe(0);
    expect(w.countersReset).toBe(false);
  });

  it('falls back to since-start when the window has fewer than minSamples fsyncs', () => {
    const before = snapshot('after-writes', 0);
    const after = snapshot('after-few-writes', 10_000);
    const w = compareSnapshots(before, after);
    expect(w.walFsync.source).toBe('since-start');
    expect(w.walFsync.windowSeconds).toBeUndefined();
    expect(w.walFsync.count).toBe(60);
    // What the window did hold, so a report can say "only 3", not "no writes".
    expect(w.walFsync.windowCount).toBe(3);
    // 58 ≤ 1 ms, 60 ≤ 2 ms. rank 59.4 → 0.001 + 0.001 × 1.4 / 2.
    expect(w.walFsync.p99Seconds).toBeCloseTo(0.0017, 12);
    expect(w.walFsync.meanSeconds).toBeCloseTo(0.02865600400000001 / 60, 12);
    // The same three fsyncs are used once minSamples allows it: all ≤ 1 ms, rank 2.97 of 3.
    const small = compareSnapshots(before, after, { minSamples: 3 });
    expect(small.walFsync.source).toBe('window');
    expect(small.walFsync.count).toBe(3);
    expect(small.walFsync.p99Seconds).toBeCloseTo(0.00099, 12);
  });

  it('reports a real slow disk (fdatasync +300 ms under strace) with the mean beside the p99', () => {
    const w = compareSnapshots(snapshot('after-few-writes', 0), snapshot('slow-disk-strace', 20_000));
    expect(w.walFsync.source).toBe('window');
    expect(w.walFsync.count).toBe(25);
    // All 25 in (0.256, 0.512]: rank 24.75 → 0.256 + 0.256 × 0.99, though every fsync took about 0.3 s.
    expect(w.walFsync.p99Seconds).toBeCloseTo(0.50944, 12);
    expect(w.walFsync.meanSeconds).toBeCloseTo((7.548616461000001 - 0.02865600400000001) / 25, 12);
    // Commits: 1 ≤ 4 ms, 1 ≤ 0.512 s, 25 ≤ 1.024 s. rank 24.75 → 0.512 + 0.512 × 23.75 / 24.
    expect(w.backendCommit.p99Seconds).toBeCloseTo(0.512 + (0.512 * 23.75) / 24, 12);
    expect(w.backendCommit.meanSeconds).toBeCloseTo((14.467509264 - 0.015324292000000002) / 25, 12);
    expect(w.deltas.slowApply).toBe(24);
  });

  it('reports the crafted slow disk fixture the same way', () => {
    const healthy = compareSnapshots(snapshot('idle', 0), snapshot('after-writes', 30_000));
    const slow = compareSnapshots(snapshot('idle', 0), snapshot('slow-disk-crafted', 30_000));
    expect(healthy.walFsync.p99Seconds).toBeCloseTo(0.0015, 12);
    expect(slow.walFsync.count).toBe(50);
    expect(slow.walFsync.p99Seconds).toBeCloseTo(0.50944, 12);
    expect(slow.walFsync.meanSeconds).toBeCloseTo(0.3, 9);
  });

  it('gives since-start figures and zero deltas without an earlier scrape', () => {
    const after = snapshot('slow-disk-strace', 0);
    const w = compareSnapshots(undefined, after);
    expect(w.windowSeconds).toBe(0);
    expect(w.deltas).toEqual({
      leaderChanges: 0,
      heartbeatSendFailures: 0,
      slowApply: 0,
      slowReadIndexes: 0,
      readIndexesFailed: 0,
      proposalsFailed: 0,
    });
    expect(w.totals.slowApply).toBe(24);
    expect(w.walFsync.source).toBe('since-start');
    expect(w.walFsync.count).toBe(85);
    expect(w.walFsync.windowSeconds).toBeUndefined();
    expect(w.gauges.serverId).toBe('499b60c4c0e46b48');
  });

  it('treats counters that went backwards as a reset: zero deltas, since-start latency', () => {
    const w = compareSnapshots(snapshot('slow-disk-strace', 0), snapshot('idle', 30_000));
    expect(w.countersReset).toBe(true);
    expect(w.deltas.slowApply).toBe(0);
    expect(w.walFsync.source).toBe('since-start');
    expect(w.walFsync.count).toBe(7);
  });

  it('treats a changed process start time as a restart even when counters grew past their old values', () => {
    const restarted = fixture('slow-disk-strace').replace(
      /^process_start_time_seconds .*$/m,
      'process_start_time_seconds 1.7959919e+09',
    );
    const w = compareSnapshots(snapshot('idle', 0), snapshotOf(restarted, 30_000));
    expect(w.countersReset).toBe(true);
    expect(w.deltas.slowApply).toBe(0);
    expect(w.walFsync.source).toBe('since-start');
    expect(w.walFsync.count).toBe(85);
  });

  it('reports apply backlog from the later scrape', () => {
    const text = 'etcd_server_proposals_committed_total 1207\netcd_server_proposals_applied_total 1180\n';
    expect(compareSnapshots(undefined, snapshotOf(text, 0)).applyBacklog).toBe(27);
  });
});

describe('peers in a real 3-member capture', () => {
  it('keeps one RTT histogram per To label', () => {
    const s = snapshot('3member-leader', 0);
    expect(Object.keys(s.peerRtt).sort()).toEqual([PEER_A, PEER_B]);
    expect(s.peerRtt[PEER_A]?.buckets.slice(0, 4)).toEqual([
      { le: 0.0001, count: 0 },
      { le: 0.0002, count: 2 },
      { le: 0.0004, count: 3 },
      { le: 0.0008, count: 6 },
    ]);
    expect(s.peerRtt[PEER_B]?.buckets[0]).toEqual({ le: 0.0001, count: 1 });
    expect(s.peerRtt[PEER_A]?.buckets).toHaveLength(17);
    expect(s.peerRtt[PEER_A]?.sum).toBeCloseTo(0.002501313, 12);
    expect(s.peerRtt[PEER_B]?.sum).toBeCloseTo(0.0022518, 12);
    expect(s.peerRtt[PEER_B]?.count).toBe(6);
  });

  it('uses the since-start RTT histogram and counts sent failures inside the window', () => {
    const w = compareSnapshots(snapshot('3member-leader', 0), snapshot('3member-leader-peer-down', 12_000));
    // Both peers: 3 ≤ 0.4 ms, 6 ≤ 0.8 ms. rank 5.94 → 0.0004 + 0.0004 × 2.94 / 3.
    expect(w.peers).toEqual([
      {
        peerId: PEER_A,
        rttP99Seconds: expect.closeTo(0.000792, 12),
        rttSamples: 6,
        sentFailuresTotal: 0,
        sentFailuresInWindow: 0,
      },
      {
        peerId: PEER_B,
        rttP99Seconds: expect.closeTo(0.000792, 12),
        rttSamples: 6,
        sentFailuresTotal: 118,
        sentFailuresInWindow: 118,
      },
    ]);
    expect(w.gauges.hasLeader).toBe(1);
    expect(w.windowSeconds).toBe(12);
  });

  it('counts only the failures after the earlier scrape', () => {
    const before = fixture('3member-leader-peer-down').replace(
      `etcd_network_peer_sent_failures_total{To="${PEER_B}"} 118`,
      `etcd_network_peer_sent_failures_total{To="${PEER_B}"} 100`,
    );
    const w = compareSnapshots(snapshotOf(before, 0), snapshot('3member-leader-peer-down', 5_000));
    expect(w.peers.find((p) => p.peerId === PEER_B)?.sentFailuresInWindow).toBe(18);
  });
});

describe('the load reading (issue 39)', () => {
  it('reads client bytes, ranges, watch gauges, defrag and the process resources of a real page', () => {
    const s = snapshot('after-writes', 1000);
    expect(s.load).toMatchObject({
      clientSentBytes: 1350,
      mvccRanges: 0,
      watchStreams: 0,
      watchers: 0,
      slowWatchers: 0,
      pendingEvents: 0,
      defragInflight: 0,
      openFds: 25,
      maxFds: 20000,
      residentMemoryBytes: 29212672,
    });
    expect(s.load?.grpcRanges).toBeGreaterThanOrEqual(0);
    expect(s.load?.refusedWrites).toBe(0);
  });

  it('streams and the reference agree, and keeps only the Range and refused-write rows of grpc_server_handled_total', () => {
    const text = fixture('after-writes');
    const filter = createMetricsLineFilter();
    filter.bytes(Buffer.from(text));
    const streamed = filter.parse(1);
    const reference = parseEtcdMetricsReference(text, 1);
    expect(streamed.ok && reference.ok && streamed.snapshot.load).toEqual(
      reference.ok && reference.snapshot.load,
    );
  });

  it('gives rates over the window and the refused writes inside it', () => {
    const page = (sent: number, ranges: number, refused: number) =>
      [
        'etcd_server_has_leader 1',
        `etcd_network_client_grpc_sent_bytes_total ${sent}`,
        `etcd_debugging_mvcc_range_total ${ranges}`,
        `grpc_server_handled_total{grpc_code="OK",grpc_method="Range",grpc_service="etcdserverpb.KV",grpc_type="unary"} ${ranges}`,
        `grpc_server_handled_total{grpc_code="InvalidArgument",grpc_method="Put",grpc_service="etcdserverpb.KV",grpc_type="unary"} ${refused}`,
        'grpc_server_handled_total{grpc_code="OK",grpc_method="Put",grpc_service="etcdserverpb.KV",grpc_type="unary"} 999',
      ].join('\n');
    const w = compareSnapshots(snapshotOf(page(0, 10, 1), 0), snapshotOf(page(300e6, 40, 5), 2000));
    expect(w.loadRates).toEqual({
      sentBytesPerSecond: 150e6,
      grpcRangesPerSecond: 15,
      mvccRangesPerSecond: 15,
      refusedWrites: 4,
    });
    expect(compareSnapshots(undefined, snapshotOf(page(1, 1, 1), 0)).loadRates).toBeUndefined();
  });
});
