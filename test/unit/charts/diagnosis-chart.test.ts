import { describe, expect, it } from '@jest/globals';
import { createChartRenderer } from '../../../src/charts/chart-renderer.js';
import {
  diagnosisChart,
  historyChart,
  memberChart,
  windowChart,
} from '../../../src/charts/diagnosis-chart.js';
import type { MinuteMember, MinuteSample } from '../../../src/state/minute-sample.js';
import { diagnose } from '../../../src/diagnosis/diagnose.js';
import { rules } from '../../../src/diagnosis/rules/index.js';
import type { Evidence } from '../../../src/probes/evidence.js';
import { buildReport } from '../../../src/report/diagnosis-report.js';
import { clusterEvidence, failed, latency, metricsData, ok } from '../../support/evidence/evidence.js';
import { decodePng, drawnTop } from '../../support/chat/png-pixels.js';

const ctx = { now: Date.parse('2026-11-29T03:00:05Z') };

function reportOf(evidence: Evidence) {
  return buildReport(evidence, diagnose(evidence, rules, ctx), { kind: 'diagnose', durationMs: 3100 });
}

const valuesOf = (chart: ReturnType<typeof windowChart>) =>
  Object.fromEntries(chart.series.map((s) => [s.name, s.points[0]?.value]));

describe('the chart of a diagnosis', () => {
  it('charts a slow disk as wal fsync p99 per member over the window, the slow member highlighted', () => {
    const evidence = clusterEvidence({
      'etcd-2': { metrics: ok(metricsData({ walFsync: latency(180, 120) })) },
    });
    const chart = diagnosisChart(reportOf(evidence), evidence);
    expect(chart).toMatchObject({
      cluster: 'test',
      metric: 'wal fsync p99',
      unit: 'ms',
      period: 'over the 3 s probe window at 03:00:00 UTC',
      threshold: { value: 10 },
      highlight: ['etcd-2'],
    });
    expect(chart && valuesOf(chart)).toEqual({ 'etcd-1': 4, 'etcd-2': 180, 'etcd-3': 4 });
    expect(chart?.series[1]?.points[0]?.note).toBe('mean 120 ms, 200 fsyncs');
  });

  it("says each member's window when they differ (a thin one widened), as the finding's text does (issue 42)", () => {
    const evidence = clusterEvidence({
      'etcd-2': { metrics: ok(metricsData({ walFsync: latency(180, 120), windowSeconds: 9.1 })) },
    });
    expect(diagnosisChart(reportOf(evidence), evidence)?.period).toBe(
      'over the probe windows of 3-9.1 s at 03:00:00 UTC',
    );
  });

  it("charts a full database as each member's size against its quota, not a disk metric (issue 42)", () => {
    const quota = 16 * 1024 ** 2;
    const full = (db: number) => ({
      status: ok({
        memberId: 'a1',
        clusterId: 'c1',
        version: '3.4.45',
        dbSizeBytes: db,
        dbSizeInUseBytes: 14_900_000,
        leaderId: 'a1',
        raftTerm: 2,
        raftIndex: 100,
        raftAppliedIndex: 100,
        revision: 137,
        isLearner: false,
        errors: ['memberID:a1 alarm:NOSPACE'],
      }),
      metrics: ok(metricsData({ gauges: { ...metricsData().gauges, quotaBackendBytes: quota } })),
    });
    const evidence = clusterEvidence({
      'etcd-1': full(16_800_000),
      'etcd-2': full(17_700_000),
      'etcd-3': full(17_500_000),
    });
    const report = reportOf(evidence);
    expect(report.findings[0]?.cause).toBe('db-quota');
    const chart = diagnosisChart(report, evidence);
    expect(chart).toMatchObject({ metric: 'database size', unit: 'MB' });
    expect(chart?.threshold).toEqual({
      value: quota / 1e6,
      label: 'the 16.8 MB quota (--quota-backend-bytes)',
    });
    expect(chart && valuesOf(chart)).toEqual({ 'etcd-1': 16.8, 'etcd-2': 17.7, 'etcd-3': 17.5 });
  });

  it('charts backend commits when they, not the fsyncs, made the disk slow', () => {
    const slowCommits = ok(metricsData({ backendCommit: latency(90, 60) }));
    const evidence = clusterEvidence({ 'etcd-3': { metrics: slowCommits } });
    const chart = diagnosisChart(reportOf(evidence), evidence);
    expect(chart).toMatchObject({
      metric: 'backend commit p99',
      threshold: { value: 25 },
      highlight: ['etcd-3'],
    });
  });

  it("charts peer trouble as each member's slowest peer round trip against the 150 ms alert", () => {
    const peer = (peerId: string, rttMs: number) => ({
      peerId,
      rttP99Seconds: rttMs / 1000,
      rttSamples: 40,
      sentFailuresTotal: 0,
      sentFailuresInWindow: 0,
    });
    const evidence = clusterEvidence({
      'etcd-1': { metrics: ok(metricsData({ peers: [peer('a2', 400), peer('a3', 3)] })) },
      'etcd-2': { metrics: ok(metricsData({ peers: [peer('a1', 410), peer('a3', 420)] })) },
      'etcd-3': { metrics: ok(metricsData({ peers: [peer('a1', 2), peer('a2', 390)] })) },
    });
    const report = reportOf(evidence);
    expect(report.findings[0]?.cause).toBe('peer-network');
    const chart = diagnosisChart(report, evidence);
    expect(chart).toMatchObject({
      metric: 'peer round trip p99',
      threshold: { value: 150 },
      highlight: ['etcd-2'],
    });
    expect(chart && valuesOf(chart)).toEqual({ 'etcd-1': 400, 'etcd-2': 420, 'etcd-3': 390 });
  });

  it('charts a starved member by its GET /version round trips', () => {
    const clock = (meanRttMs: number) =>
      ok({ offsetMs: 5, uncertaintyMs: 50, rttMs: 1, maxRttMs: meanRttMs * 2, meanRttMs, samples: 10 });
    const evidence = clusterEvidence({
      'etcd-1': { clock: clock(2) },
      'etcd-2': { clock: clock(3) },
      'etcd-3': {
        clock: clock(70),
        metrics: ok(metricsData({ deltas: { ...metricsData().deltas, slowApply: 3 } })),
      },
    });
    const report = reportOf(evidence);
    expect(report.findings[0]?.cause).toBe('cpu-starvation');
    const chart = diagnosisChart(report, evidence);
    expect(chart).toMatchObject({
      metric: 'GET /version mean',
      threshold: { value: 30 },
      highlight: ['etcd-3'],
    });
    expect(chart && valuesOf(chart)).toEqual({ 'etcd-1': 2, 'etcd-2': 3, 'etcd-3': 70 });
  });

  it('charts leader churn as changes per 15 minutes against the alert', () => {
    const churn = ok(
      metricsData({
        totals: { ...metricsData().totals, leaderChanges: 9 },
        deltas: { ...metricsData().deltas, leaderChanges: 2 },
        gauges: { ...metricsData().gauges, processStartTimeSeconds: ctx.now / 1000 - 600 },
      }),
    );
    const evidence = clusterEvidence({ 'etcd-1': { metrics: churn } });
    const report = reportOf(evidence);
    expect(report.findings.map((f) => f.cause)).toContain('leader-churn');
    const chart = windowChart('leader-churn', [], evidence);
    expect(chart).toMatchObject({
      metric: 'leader changes per 15 min',
      unit: 'count',
      threshold: { value: 4 },
    });
    expect(chart.series[0]?.points[0]).toMatchObject({ value: 8, note: '2 in the window, 8 since start' });
  });

  it('draws no chart for a healthy cluster or a member-down finding, and keeps a silent member as no data', () => {
    const healthy = clusterEvidence();
    expect(diagnosisChart(reportOf(healthy), healthy)).toBeUndefined();
    const down = failed('unreachable', 'etcd-3 (http://127.0.0.1:23793) is unreachable');
    const evidence = clusterEvidence({
      'etcd-3': { health: down, status: down, metrics: down, clock: down },
    });
    expect(diagnosisChart(reportOf(evidence), evidence)).toBeUndefined();
    expect(windowChart('member-down', [], evidence).series[2]).toEqual({ name: 'etcd-3', points: [] });
  });

  it('renders the slow-disk chart with the slow member reaching highest', async () => {
    const evidence = clusterEvidence({
      'etcd-2': { metrics: ok(metricsData({ walFsync: latency(180, 120) })) },
    });
    const chart = diagnosisChart(reportOf(evidence), evidence);
    if (!chart) throw new Error('expected a chart');
    const image = await createChartRenderer().member(chart);
    const img = decodePng(image.png);
    const top = (member: string) => drawnTop(img, image.colors[member], image.plot, `bar of ${member}`);
    expect(top('etcd-2')).toBeLessThan(top('etcd-1') - 200);
    expect(top('etcd-2')).toBeLessThan(top('etcd-3') - 200);
    expect(image.title).toBe('test: wal fsync p99 per member (etcd-2 above 10 ms)');
  });
});

describe('the chart over the last hour of minute history', () => {
  const now = Date.parse('2026-11-29T03:00:05Z');
  /** A watch check at `t`: etcd-2's column `col` reads `slow`, the others `fine`. */
  const check = (t: number, col: number, fine: number, slow: number): MinuteSample => ({
    v: 1,
    t,
    s: 'healthy',
    m: ['etcd-1', 'etcd-2', 'etcd-3'].map((name): MinuteMember => {
      const row: MinuteMember = [name, 1, 1, 1, 0, 1, 1, 1, 0, []];
      (row as unknown as unknown[])[col] = name === 'etcd-2' ? slow : fine;
      return row;
    }),
    f: [],
  });

  it('draws lines over the hour, older checks left out, the diagnosis reading appended', () => {
    const evidence = clusterEvidence({
      'etcd-2': { metrics: ok(metricsData({ walFsync: latency(180, 120) })) },
    });
    const samples = [now - 2 * 3600_000, now - 40 * 60_000, now - 20 * 60_000].map((t) => check(t, 1, 2, 3));
    const chart = memberChart('slow-disk', ['etcd-2'], evidence, samples, now);
    // The check two hours ago is left out; the axis starts at the first check in the hour.
    expect(chart.xDomain).toEqual([now - 40 * 60_000, now]);
    expect(chart.period).toBe('over the last 40 min, 02:20-03:00 UTC');
    const etcd2 = chart.series.find((s) => s.name === 'etcd-2')?.points.map((p) => p.value);
    expect(etcd2).toEqual([3, 3, 180]);
  });

  it('fits the axis to the history there is: three minutes of checks span ten minutes, not the hour', () => {
    const evidence = clusterEvidence({
      'etcd-2': { metrics: ok(metricsData({ walFsync: latency(180, 120) })) },
    });
    const samples = [3, 2, 1].map((m) => check(now - m * 60_000, 1, 2, 3));
    const chart = memberChart('slow-disk', ['etcd-2'], evidence, samples, now);
    expect(chart.xDomain).toEqual([now - 10 * 60_000, now]);
    expect(chart.period).toBe('over the last 10 min, 02:50-03:00 UTC');
    // Forty minutes of checks: the axis starts at the first one.
    const longer = memberChart(
      'slow-disk',
      ['etcd-2'],
      evidence,
      [40, 20].map((m) => check(now - m * 60_000, 1, 2, 3)),
      now,
    );
    expect(longer.xDomain).toEqual([now - 40 * 60_000, now]);
    expect(longer.period).toBe('over the last 40 min, 02:20-03:00 UTC');
  });

  it('counts leader changes over the 15 min up to each check, as the rule does', () => {
    const evidence = clusterEvidence({});
    const samples = Array.from({ length: 6 }, (_, i) => check(now - (50 - i * 5) * 60_000, 4, 0, 1));
    const chart = historyChart('leader-churn', [], evidence, samples, now);
    expect(chart?.metric).toBe('leader changes in 15 min');
    expect(chart?.series.find((s) => s.name === 'etcd-2')?.points.map((p) => p.value)).toEqual([
      1, 2, 3, 3, 3, 3,
    ]);
  });

  it('falls back to the probe window with fewer than two checks of the metric in the hour', () => {
    const evidence = clusterEvidence({
      'etcd-2': { metrics: ok(metricsData({ walFsync: latency(180, 120) })) },
    });
    const chart = memberChart('peer-network', [], evidence, [check(now - 60_000, 3, 1, 2)], now);
    expect(chart.xDomain).toBeUndefined();
    expect(chart.period).toMatch(/since each member started/);
  });
});
