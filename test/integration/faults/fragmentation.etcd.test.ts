import { describe, expect, it } from '@jest/globals';
import { useLabDoctor } from '../../support/lab/use-lab-doctor.js';
import { aboutTheCluster } from '../../support/evidence/findings.js';

describe('fragmentation: write, delete, compact', () => {
  const t = useLabDoctor();

  it('a small fragmented db (8 MB) is below the 100 MB floor: no warning', async () => {
    await t.lab.fragment({ bytes: 8 * 1024 * 1024 });
    const report = await t.doctor.run('lab', 'health');
    expect(aboutTheCluster(report.findings)).toEqual([]);
  });

  // Writing 120 MB on a busy shared host can leave slow fsyncs in the since-start histogram (a
  // real slow-disk finding, on etcd 3.5 here): what this proves is the fragmentation finding.
  it('120 MB written and deleted: db-fragmentation on every member, with the defragment action', async () => {
    await t.lab.fragment({ bytes: 120 * 1024 * 1024 });
    const report = await t.doctor.run('lab', 'diagnose');
    const fragmentation = report.findings.find((f) => f.cause === 'db-fragmentation');
    expect(fragmentation).toMatchObject({ severity: 'warning', causedBy: null });
    expect([...(fragmentation?.members ?? [])].sort()).toEqual(['etcd-1', 'etcd-2', 'etcd-3']);
    expect(fragmentation?.evidence[0]).toMatch(
      /^etcd-\d: dbSize 1\d\d MB, dbSizeInUse [\d.]+ [kKM]B: (9\d|100) % fragmented/,
    );
    expect(fragmentation?.steps[0]).toMatchObject({ action: 'defragment' });
    expect(report.status).not.toBe('healthy');
  });
});

describe('fragmentation near the quota: 60 MB written, deleted and compacted under a 96 MiB quota', () => {
  const t = useLabDoctor({ quotaBackendBytes: 96 * 1024 * 1024 });

  it('db-fragmentation is the cause, db-quota the symptom it explains, with the bytes a defragment frees', async () => {
    await t.lab.fragment({ bytes: 60 * 1024 * 1024 });
    const report = await t.doctor.run('lab', 'diagnose');
    const fragmentation = report.findings.find((f) => f.cause === 'db-fragmentation');
    expect(fragmentation).toMatchObject({ causedBy: null });
    expect([...(fragmentation?.members ?? [])].sort()).toEqual(['etcd-1', 'etcd-2', 'etcd-3']);
    expect(fragmentation?.summary).toMatch(
      /of free pages, at [6-9]\d % of the 101 MB quota: defragmenting returns them$/,
    );
    expect(fragmentation?.evidence.join('\n')).toMatch(
      /etcd-\d: defragmenting frees [\d.]+ MB, from [6-9]\d % to [0-5] % of its 101 MB quota/,
    );
    expect(fragmentation?.steps[0]).toMatchObject({ action: 'defragment' });
    const quota = report.findings.find((f) => f.cause === 'db-quota');
    expect(quota).toMatchObject({ causedBy: 'db-fragmentation' });
    // The cause comes before the symptom it explains.
    expect(report.findings.findIndex((f) => f.cause === 'db-quota')).toBeGreaterThan(
      report.findings.findIndex((f) => f.cause === 'db-fragmentation'),
    );
  });
});
