import { afterAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import type { DiagnosisReport, FindingJson } from '../../../src/contracts/report-json.js';
import { renderViewText } from '../../../src/report/render-view-text.js';
import { createPlanStore } from '../../../src/state/plan-store.js';
import { reportButtons } from '../../../src/answer/report-buttons.js';
import { purgePrefix, REDIS_URL, testPrefix } from '../../support/redis/redis-prefix.js';
import { testSigner } from '../../support/redis/signing-key.js';

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
    const { buttons, notOffered } = await reportButtons(
      report,
      'shell',
      createPlanStore(redis, prefix, testSigner),
      Date.now,
    );
    expect(notOffered).toEqual([]);
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

  it("offers no Snooze for a finding about etcd-doctor's own view alone (issue 42: it silenced the cluster)", async () => {
    const plans = createPlanStore(redis, prefix, testSigner);
    const own: DiagnosisReport = {
      ...report,
      status: 'healthy',
      findings: [
        finding({
          cause: 'observer-load',
          severity: 'info',
          members: [],
          summary: "etcd-doctor's own event loop was delayed by up to 180 ms while it probed",
        }),
      ],
    };
    const labels = (await reportButtons(own, 'shell', plans, Date.now)).buttons.map((b) => b.label);
    expect(labels).toEqual(['Re-run diagnosis']);
    // A finding about the cluster beside it brings Snooze back.
    const both = { ...own, findings: [...own.findings, finding({})] };
    expect((await reportButtons(both, 'shell', plans, Date.now)).buttons.map((b) => b.label)).toContain(
      'Snooze',
    );
  });

  it('offers no Snooze for a known bug of the release alone: it is a risk, and never alerts', async () => {
    const plans = createPlanStore(redis, prefix, testSigner);
    const latent: DiagnosisReport = {
      ...report,
      status: 'healthy',
      findings: [
        finding({
          cause: 'known-bug',
          severity: 'warning',
          members: ['etcd-1', 'etcd-2', 'etcd-3'],
          summary: 'etcd-1, etcd-2 and etcd-3 run etcd 3.4.23, missing 1 known corruption bug',
          steps: [],
        }),
      ],
    };
    const labels = (await reportButtons(latent, 'shell', plans, Date.now)).buttons.map((b) => b.label);
    expect(labels).toEqual(['Re-run diagnosis']);
  });

  it('offers no button that cannot work on the cluster as configured, and says why once', async () => {
    const plans = createPlanStore(redis, prefix, testSigner);
    const cluster = { name: 'local', etcd: { endpoints: ['http://127.0.0.1:2379'] } };
    const bare = await reportButtons(report, 'shell', plans, Date.now, { cluster });
    expect(bare.buttons.map((b) => b.label)).toEqual(['Snooze', 'Re-run diagnosis']);
    expect(bare.notOffered).toEqual([
      {
        label: 'Benchmark the disk of etcd-2',
        why: 'cluster local has no kubernetes: section in the config',
      },
    ]);
    let n = 0;
    const text = renderViewText(
      { kind: 'report', report, ...bare },
      { button: (b) => `[${++n}] ${b.label}` },
    );
    // The step is still advice; it just points at no button.
    expect(text).toContain('1. Benchmark the disk under etcd-2\n');
    expect(text).toMatch(
      /\nButtons: \[1\] Snooze {2}\[2\] Re-run diagnosis\nNot offered: Benchmark the disk of etcd-2 \(cluster local has no kubernetes: section in the config\)$/,
    );
    // With Kubernetes but no benchmark image, the reason is the image.
    const kube = await reportButtons(report, 'shell', plans, Date.now, {
      cluster: { ...cluster, kubernetes: { kubeconfig: '/dev/null' } },
    });
    expect(kube.notOffered).toEqual([
      {
        label: 'Benchmark the disk of etcd-2',
        why: expect.stringMatching(/^no benchmark image: set remediation.diskBenchmarkImage/),
      },
    ]);
    // Configured for it: the button is back.
    const ready = await reportButtons(report, 'shell', plans, Date.now, {
      cluster: {
        ...cluster,
        kubernetes: { kubeconfig: '/dev/null' },
        remediation: { diskBenchmarkImage: `fio@sha256:${'a'.repeat(64)}` },
      },
    });
    expect(ready.notOffered).toEqual([]);
    expect(ready.buttons.map((b) => b.label)).toContain('Benchmark the disk of etcd-2');
  });
});
