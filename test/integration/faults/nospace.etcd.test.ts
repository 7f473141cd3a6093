import { describe, expect, it } from '@jest/globals';
import { useLabDoctor } from '../../support/use-lab-doctor.js';

describe('NOSPACE: a 16 MiB quota, filled', () => {
  const t = useLabDoctor({ quotaBackendBytes: 16 * 1024 * 1024 });

  it('db-quota is the root cause, critical, with the recover-nospace action', async () => {
    const filled = await t.lab.fill({ valueBytes: 100 * 1024, maxPuts: 400 });
    expect(filled.nospace).toBe(true);
    const report = await t.doctor.run('lab', 'diagnose');
    expect(report.status).toBe('critical');
    expect(report.findings[0]).toMatchObject({ cause: 'db-quota', severity: 'critical' });
    expect(report.findings[0]?.summary).toContain('NOSPACE alarm is active');
    expect(report.findings[0]?.summary).toContain('16.8 MB');
    expect(report.findings[0]?.evidence[0]).toMatch(
      /^alarm list: memberID:[0-9a-f]+ \(etcd-\d\) alarm:NOSPACE/,
    );
    expect(report.findings[0]?.steps[0]).toMatchObject({ action: 'recover-nospace' });
    expect(report.findings[0]?.unknowns).toEqual([]);
  });

  it('health alone (no /metrics) still sees the alarm', async () => {
    const report = await t.doctor.run('lab', 'health');
    expect(report.findings[0]).toMatchObject({ cause: 'db-quota', severity: 'critical' });
    expect(report.findings[0]?.unknowns).toEqual([
      "quota not read from /metrics; assumed etcd's default of 2 GiB",
    ]);
  });
});
