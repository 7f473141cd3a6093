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
