import { afterAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import type { DiagnosisReport, FindingJson } from '../../../src/contracts/report-json.js';
import { renderViewText } from '../../../src/report/render-view-text.js';
import { createPlanStore } from '../../../src/state/plan-store.js';
import { reportButtons } from '../../../src/worker/report-buttons.js';
import { purgePrefix, REDIS_URL, testPrefix } from '../../support/redis-prefix.js';

/** The buttons under one answer, stored as real plans in Redis, and how the shell shows them. */

const prefix = testPrefix('report-buttons');
const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });

afterAll(async () => {
  redis.disconnect();
  await purgePrefix(prefix);
});

function finding(over: Partial<FindingJson>): FindingJson {
  return {
    cause: 'slow-disk',
    severity: 'critical',
    members: ['etcd-2'],
    nodes: [],
    summary: 'etcd-2 has a slow disk',
    evidence: [],
    remediation: [],
    causedBy: null,
    steps: [],
    unknowns: [],
    ...over,
  };
}

const report: DiagnosisReport = {
  cluster: 'local',
  status: 'critical',
  durationMs: 3100,
  members: [],
  // The cause and its symptom each say "run it again": one Re-run button serves both.
  findings: [
    finding({
      steps: [
        { text: 'Benchmark the disk under etcd-2', action: 'disk-benchmark', args: { member: 'etcd-2' } },
        { text: 'Run the diagnosis again later', action: 'rerun' },
      ],
    }),
    finding({
      cause: 'slow-reads',
      causedBy: 'slow-disk',
      steps: [{ text: 'Fix slow-disk first (above); then run the diagnosis again', action: 'rerun' }],
    }),
  ],
  probes: [],
  kind: 'diagnose',
  collectedAt: '2026-12-02T02:00:00.000Z',
};

describe('reportButtons', () => {
  it('gives one button per action, one Re-run for the whole answer, and the shell names them by number', async () => {
    const buttons = await reportButtons(report, 'shell', createPlanStore(redis, prefix), Date.now);
    expect(buttons.map((b) => b.label)).toEqual([
      'Benchmark the disk of etcd-2',
      'Snooze',
      'Re-run diagnosis',
    ]);
    let n = 0;
    const text = renderViewText(
      { kind: 'report', report, buttons },
      { button: (b) => `[${++n}] ${b.label}` },
    );
    expect(text).toContain('1. Benchmark the disk under etcd-2 -> [1] Benchmark the disk of etcd-2');
    expect(text).toContain('2. Run the diagnosis again later -> [3] Re-run diagnosis');
    expect(text).toContain(
      '1. Fix slow-disk first (above); then run the diagnosis again -> [3] Re-run diagnosis',
    );
    expect(text).toMatch(
      /\nButtons: \[1\] Benchmark the disk of etcd-2 {2}\[2\] Snooze {2}\[3\] Re-run diagnosis$/,
    );
    expect(text).not.toMatch(/\[(disk-benchmark|rerun)\]/);
  });
});
