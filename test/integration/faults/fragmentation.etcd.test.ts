import { describe, expect, it } from '@jest/globals';
import { useLabDoctor } from '../../support/use-lab-doctor.js';

describe('fragmentation: write, delete, compact', () => {
  const t = useLabDoctor();

  it('a small fragmented db (8 MB) is below the 100 MB floor: no warning', async () => {
    await t.lab.fragment({ bytes: 8 * 1024 * 1024 });
    const report = await t.doctor.run('lab', 'health');
    expect(report.findings).toEqual([]);
  });

  it('120 MB written and deleted: db-fragmentation on every member, with the defragment action', async () => {
    await t.lab.fragment({ bytes: 120 * 1024 * 1024 });
    const report = await t.doctor.run('lab', 'diagnose');
    expect(report.findings[0]).toMatchObject({ cause: 'db-fragmentation', severity: 'warning' });
    expect([...(report.findings[0]?.members ?? [])].sort()).toEqual(['etcd-1', 'etcd-2', 'etcd-3']);
    expect(report.findings[0]?.evidence[0]).toMatch(
      /^etcd-\d: dbSize 1\d\d MB, dbSizeInUse [\d.]+ [kKM]B: (9\d|100) % fragmented/,
    );
    expect(report.findings[0]?.steps[0]).toMatchObject({ action: 'defragment' });
    expect(report.status).toBe('degraded');
  });
});

describe('fragmentation near the quota: 60 MB written, deleted and compacted under a 96 MiB quota', () => {
  const t = useLabDoctor({ quotaBackendBytes: 96 * 1024 * 1024 });

  it('db-fragmentation is the cause, db-quota the symptom it explains, with the bytes a defragment frees', async () => {
    await t.lab.fragment({ bytes: 60 * 1024 * 1024 });
    const report = await t.doctor.run('lab', 'diagnose');
    expect(report.findings[0]).toMatchObject({ cause: 'db-fragmentation', causedBy: null });
    expect([...(report.findings[0]?.members ?? [])].sort()).toEqual(['etcd-1', 'etcd-2', 'etcd-3']);
    expect(report.findings[0]?.summary).toMatch(
      /of free pages, at [6-9]\d % of the 101 MB quota: defragmenting returns them$/,
    );
    expect(report.findings[0]?.evidence.join('\n')).toMatch(
      /etcd-\d: defragmenting frees [\d.]+ MB, from [6-9]\d % to [0-5] % of its 101 MB quota/,
    );
    expect(report.findings[0]?.steps[0]).toMatchObject({ action: 'defragment' });
    const quota = report.findings.find((f) => f.cause === 'db-quota');
    expect(quota).toMatchObject({ causedBy: 'db-fragmentation' });
    expect(report.findings.indexOf(quota ?? report.findings[0]!)).toBeGreaterThan(0);
  });
});
