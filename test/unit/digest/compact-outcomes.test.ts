import { describe, expect, it } from '@jest/globals';
import type { DiagnosisReport } from '../../../src/contracts/report-json.js';
import { diagnose } from '../../../src/diagnosis/diagnose.js';
import { rules } from '../../../src/diagnosis/rules/index.js';
import {
  compactReport,
  diagnoseClusters,
  MAX_THREAD_REPORTS,
} from '../../../src/digest/diagnose-clusters.js';
import { createMemoryBudget } from '../../../src/digest/memory-budget.js';
import type { Evidence } from '../../../src/probes/evidence.js';
import { buildReport } from '../../../src/report/diagnosis-report.js';
import { clusterEvidence, latency, metricsData, ok } from '../../support/evidence/evidence.js';

const NOW = Date.parse('2026-11-29T09:00:00Z');

function reportOf(evidence: Evidence): DiagnosisReport {
  return buildReport(evidence, diagnose(evidence, rules, { now: NOW }), {
    kind: 'diagnose',
    durationMs: 3100,
  });
}

const slowDisk = (cluster: string): DiagnosisReport =>
  reportOf({
    ...clusterEvidence({ 'etcd-2': { metrics: ok(metricsData({ walFsync: latency(160, 120) })) } }),
    cluster,
  });

describe("a digest part's results", () => {
  it('keep full reports only for the worst clusters the thread can show, compact ones for the rest', async () => {
    // 14 slow-disk clusters (named so that sorting by name matters) and 6 healthy ones.
    const names = [
      ...Array.from({ length: 14 }, (_, i) => `slow-${String(13 - i).padStart(2, '0')}`),
      ...Array.from({ length: 6 }, (_, i) => `ok-${i}`),
    ];
    const reports = new Map(
      names.map((n) => [
        n,
        n.startsWith('slow') ? slowDisk(n) : reportOf({ ...clusterEvidence(), cluster: n }),
      ]),
    );
    const outcomes = await diagnoseClusters(
      {
        doctor: { run: async (name) => reports.get(name) as DiagnosisReport },
        budget: createMemoryBudget(64 * 1024 * 1024),
        now: () => NOW,
      },
      names,
    );
    expect(outcomes.map((o) => o.cluster)).toEqual(names);
    const full = outcomes.flatMap((o) =>
      o.ok && (o.report.findings[0]?.remediation.length ?? 0) > 0 ? [o.cluster] : [],
    );
    // The thread's worst: status first (all the same), then by name.
    expect([...full].sort()).toEqual(
      Array.from({ length: MAX_THREAD_REPORTS }, (_, i) => `slow-${String(i).padStart(2, '0')}`),
    );
    const compact = outcomes.find((o) => o.cluster === 'slow-12');
    expect(compact?.ok && compact.report.status).toBe(reports.get('slow-12')?.status);
    // What the digest line and the thread's brief need is still there.
    expect(compact?.ok && compact.report.findings[0]?.cause).toBe('slow-disk');
    expect(compact?.ok && compact.report.findings[0]?.members).toEqual(['etcd-2']);
    expect(compact?.ok && compact.report.members).toHaveLength(3);
  });

  it('are smaller compacted (what goes through Redis between the parts and the digest)', () => {
    const report = slowDisk('prod');
    const small = compactReport(report);
    expect(small.findings[0]?.evidence).toEqual(report.findings[0]?.evidence.slice(0, 3));
    expect(small.probes).toEqual([]);
    expect(small.findings[0]?.remediation).toEqual([]);
    expect(report.findings[0]?.remediation.length).toBeGreaterThan(0);
    // This fixture has no probe records; a real report's (~20 KB) are most of what is dropped.
    expect(JSON.stringify(small).length).toBeLessThan(JSON.stringify(report).length);
  });
});
