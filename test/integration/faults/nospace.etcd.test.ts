import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Doctor } from '../../../src/doctor.js';
import { type EtcdLab, startEtcdLab } from '../../../src/lab/etcd-lab.js';
import { labDoctor } from '../../support/lab-doctor.js';

describe('NOSPACE: a 16 MiB quota, filled', () => {
  let lab: EtcdLab;
  let doctor: Doctor;

  beforeAll(async () => {
    lab = await startEtcdLab({ quotaBackendBytes: 16 * 1024 * 1024 });
    doctor = labDoctor(lab);
  });
  afterAll(async () => {
    await doctor?.close();
    await lab?.destroy();
  });

  it('db-quota is the root cause, critical, with the recover-nospace action', async () => {
    const filled = await lab.fill({ valueBytes: 100 * 1024, maxPuts: 400 });
    expect(filled.nospace).toBe(true);
    const report = await doctor.run('lab', 'diagnose');
    expect(report.status).toBe('critical');
    expect(report.findings[0]).toMatchObject({ cause: 'db-quota', severity: 'critical' });
    expect(report.findings[0]?.summary).toContain('NOSPACE alarm is active');
    expect(report.findings[0]?.summary).toContain('16.8 MB');
    expect(report.findings[0]?.evidence[0]).toMatch(/^alarm list: memberID:[0-9a-f]+ alarm:NOSPACE/);
    expect(report.findings[0]?.steps[0]).toMatchObject({ action: 'recover-nospace' });
    expect(report.findings[0]?.unknowns).toEqual([]);
  });

  it('health alone (no /metrics) still sees the alarm', async () => {
    const report = await doctor.run('lab', 'health');
    expect(report.findings[0]).toMatchObject({ cause: 'db-quota', severity: 'critical' });
    expect(report.findings[0]?.unknowns).toEqual([
      "quota not read from /metrics; assumed etcd's default of 2 GiB",
    ]);
  });
});
