import { describe, expect, it } from '@jest/globals';
import { createChartRenderer } from '../../../src/charts/chart-renderer.js';
import { digestPanels } from '../../../src/charts/digest-chart.js';
import { memberColors } from '../../../src/charts/member-colors.js';
import { createDigestChartPoster } from '../../../src/charts/post-chart.js';
import { createMemoryAdapter } from '../../../src/chat/memory/memory-adapter.js';
import { diagnose } from '../../../src/diagnosis/diagnose.js';
import { rules } from '../../../src/diagnosis/rules/index.js';
import { createDigestRunner } from '../../../src/digest/run-digest.js';
import type { HistorySample } from '../../../src/state/history-sample.js';
import { createMemoryHistoryStore } from '../../../src/state/history-store.js';
import { silentLogger } from '../../../src/logger.js';
import type { Evidence } from '../../../src/probes/evidence.js';
import type { DiagnosisReport } from '../../../src/contracts/report-json.js';
import { buildReport } from '../../../src/report/diagnosis-report.js';
import { clusterEvidence, latency, metricsData, ok } from '../../support/evidence/evidence.js';
import { decodePng, topOf } from '../../support/chat/png-pixels.js';

const NOW = Date.parse('2026-11-29T09:00:00Z');
const DAY_MS = 24 * 3600_000;

function reportOf(evidence: Evidence): DiagnosisReport {
  return buildReport(evidence, diagnose(evidence, rules, { now: NOW }), {
    kind: 'diagnose',
    durationMs: 3100,
  });
}

/** Eight daily samples; `slow`'s fsync p99 goes from 3 ms to 150+ ms on day `from`. */
function week(slow: string | undefined, from = 5): HistorySample[] {
  return Array.from({ length: 8 }, (_, day) => ({
    v: 1 as const,
    t: NOW - (7 - day) * DAY_MS,
    s: 'healthy' as const,
    m: ['etcd-1', 'etcd-2', 'etcd-3'].map((name, i): HistorySample['m'][number] => [
      name,
      name === slow && day >= from ? 150 + day : 2 + i * 2,
      5,
      2,
      1_000_000,
      900_000,
      1,
    ]),
    r: {},
    f: [],
  }));
}

const slowDisk = (member: 'etcd-1' | 'etcd-2' | 'etcd-3', cluster: string): DiagnosisReport =>
  reportOf({
    ...clusterEvidence({ [member]: { metrics: ok(metricsData({ walFsync: latency(160, 120) })) } }),
    cluster,
  });

describe('the digest chart', () => {
  it('has a panel per cluster with a problem, none for healthy or never-measured clusters', () => {
    const healthy = reportOf({ ...clusterEvidence(), cluster: 'dev' });
    const deadSamples = week(undefined).map((s) => ({
      ...s,
      m: s.m.map((m) => [m[0], null, null, null, null, null, null] as HistorySample['m'][number]),
    }));
    const panels = digestPanels([
      { cluster: 'prod', report: slowDisk('etcd-2', 'prod'), samples: week('etcd-2') },
      { cluster: 'dev', report: healthy, samples: week(undefined) },
      { cluster: 'dead', report: slowDisk('etcd-1', 'dead'), samples: deadSamples },
    ]);
    expect(panels.map((p) => p.cluster)).toEqual(['prod']);
    expect(panels[0]).toMatchObject({
      metric: 'wal fsync p99',
      period: 'over 8 diagnoses in 7 days',
      highlight: ['etcd-2'],
      threshold: { value: 10 },
    });
    expect(panels[0]?.series[1]?.points.map((p) => p.value)).toEqual([4, 4, 4, 4, 4, 155, 156, 157]);
  });

  it('goes into the digest thread after the digest, from the samples in history, with pixels that show the week', async () => {
    const history = createMemoryHistoryStore();
    for (const s of week('etcd-2')) await history.record('prod', s);
    for (const s of week('etcd-3', 6)) await history.record('staging', s);
    const reports: Record<string, DiagnosisReport> = {
      prod: slowDisk('etcd-2', 'prod'),
      staging: slowDisk('etcd-3', 'staging'),
      dev: reportOf({ ...clusterEvidence(), cluster: 'dev' }),
    };
    const chat = createMemoryAdapter();
    const run = createDigestRunner({
      doctor: {
        clusterNames: () => Object.keys(reports),
        run: async (name) => reports[name] as DiagnosisReport,
      },
      history,
      subscriptions: {
        get: async () => undefined,
        claimSlot: async () => true,
        markSent: async () => undefined,
        releaseSlot: async () => undefined,
      },
      chat,
      logger: silentLogger,
      workerId: 'test',
      allowedIn: () => true,
      now: () => NOW,
      postChart: createDigestChartPoster({ chat, renderer: createChartRenderer() }),
    });
    const result = await run(
      { v: 1, kind: 'digest', channel: 'C0DIGEST', user: 'U1', requestedAt: NOW },
      undefined,
    );
    expect(result.sent).toBe(true);
    const root = chat.messages.find((m) => m.threadTs === undefined);
    expect(chat.uploads).toHaveLength(1);
    const [upload] = chat.uploads;
    expect(upload).toMatchObject({
      channel: 'C0DIGEST',
      threadTs: root?.ref.ts,
      title: 'etcd digest: wal fsync p99 of the clusters with a problem',
    });
    expect(upload?.altText).toMatch(
      /wal fsync p99 per member of prod over 8 diagnoses in 7 days: etcd-2 peak 157 ms/,
    );
    expect(upload?.altText).toMatch(/of staging .*: etcd-3 peak 157 ms/);
    // The chart is the last thing in the thread: every report reply was posted before it.
    expect(chat.messages.filter((m) => m.threadTs === root?.ref.ts).length).toBeGreaterThanOrEqual(2);

    const img = decodePng(upload?.content as Buffer);
    const prodColors = memberColors(['etcd-1', 'etcd-2', 'etcd-3'], ['etcd-2']);
    const left = { x: 0, y: 0, width: img.width / 2, height: img.height };
    const top = (color: string | undefined) => topOf(img, color ?? '', left) ?? Number.POSITIVE_INFINITY;
    expect(top(prodColors['etcd-2'])).toBeLessThan(top(prodColors['etcd-1']) - 60);
    expect(top(prodColors['etcd-2'])).toBeLessThan(top(prodColors['etcd-3']) - 60);
  });
});
