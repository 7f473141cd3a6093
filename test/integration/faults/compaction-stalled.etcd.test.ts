import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { configFileSchema } from '../../../src/config/schema.js';
import { createDoctor, type Doctor } from '../../../src/doctor.js';
import { FAR_REVISIONS } from '../../../src/diagnosis/rules/compaction-stalled.js';
import { type EtcdLab, startEtcdLab } from '../../support/lab/etcd-lab.js';

/**
 * compaction-stalled on a real 3-member etcd: nothing compacts it (no apiserver, no
 * --auto-compaction), the revision runs past FAR_REVISIONS, and the cluster's expected compaction
 * interval is 1 s (maintenance.compactionIntervalSeconds), so "well over the interval" is 3 s.
 * After `etcdctl compact` at the current revision the finding is gone.
 */
describe('compaction-stalled: writes and no compaction, then etcdctl compact', () => {
  let lab: EtcdLab;
  let doctor: Doctor;

  beforeAll(async () => {
    lab = await startEtcdLab();
    const config = configFileSchema.parse({
      clusters: [
        {
          name: 'lab',
          etcd: { endpoints: lab.endpoints, metricsUrls: lab.metricsUrls },
          maintenance: { compactionIntervalSeconds: 1 },
        },
      ],
      probes: { timeoutMs: 3000, metricsWindowMs: 1000 },
    });
    doctor = createDoctor({ config, readFileBuffer: (p) => readFile(p) });
  }, 60_000);

  afterAll(async () => {
    await doctor?.close();
    await lab?.destroy();
  });

  it('a fresh lab with a few revisions is not stalled, however long it has run', async () => {
    const report = await doctor.run('lab', 'diagnose', { explain: true });
    expect(report.findings.map((f) => f.cause)).not.toContain('compaction-stalled');
    const trace = report.explain?.find((t) => t.rule === 'compaction-stalled');
    expect(trace?.explain[0]).toMatch(/etcd-\d: revision \d+, compacted at never/);
  }, 60_000);

  it(`past ${FAR_REVISIONS} revisions with none compacted: the finding on every member; after etcdctl compact it is gone`, async () => {
    const load = await lab.writeLoad({ ratePerSecond: 5000, durationMs: 2400, valueBytes: 64 });
    expect(load.puts).toBeGreaterThanOrEqual(FAR_REVISIONS);
    const stalled = await doctor.run('lab', 'diagnose');
    const finding = stalled.findings.find((f) => f.cause === 'compaction-stalled');
    expect(finding).toMatchObject({ severity: 'warning' });
    expect([...(finding?.members ?? [])].sort()).toEqual(['etcd-1', 'etcd-2', 'etcd-3']);
    expect(finding?.summary).toMatch(
      /^Compaction has stalled: the keyspace was never compacted: 1\d,\d{3} revisions of history, none in the \d+ (s|min) since etcd-\d started; compaction is expected every 1 s/,
    );
    expect(finding?.steps[0]?.text).toMatch(/--etcd-compaction-interval/);

    const status = await lab.etcdctl(['endpoint', 'status', '--write-out', 'json']);
    const revision = (JSON.parse(status.stdout) as Array<{ Status: { header: { revision: number } } }>)[0]
      ?.Status.header.revision;
    expect(revision).toBeGreaterThan(FAR_REVISIONS);
    const compact = await lab.etcdctl(['compact', String(revision), '--physical']);
    expect(compact.code).toBe(0);
    const after = await doctor.run('lab', 'diagnose', { explain: true });
    expect(after.findings.map((f) => f.cause)).not.toContain('compaction-stalled');
    expect(after.explain?.find((t) => t.rule === 'compaction-stalled')?.explain[0]).toMatch(
      new RegExp(`compacted at ${(revision ?? 0).toLocaleString('en-US')}`),
    );
  }, 120_000);
});
