import { describe, expect, it } from '@jest/globals';
import { useLabDoctor } from '../../support/lab/use-lab-doctor.js';

describe('NOSPACE: a 16 MiB quota, filled', () => {
  const t = useLabDoctor({ quotaBackendBytes: 16 * 1024 * 1024 });

  it('db-quota is the root cause, critical; the data in use fills the quota, so making room leads, then recover-nospace', async () => {
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
    // 400 distinct keys of 100 KiB: live data, which compaction and defragmentation cannot free.
    expect(report.findings[0]?.steps[0]?.text).toMatch(
      /^Make room first: \d+(\.\d)? MB of etcd-\d's \d+(\.\d)? MB database is in use against its 16\.8 MB quota, and its history is compacted \(\d+ old key versions?\), so compacting and defragmenting cannot free enough\. Raise --quota-backend-bytes .* or remove what fills it/,
    );
    expect(report.findings[0]?.steps[1]).toMatchObject({ action: 'recover-nospace' });
    expect(report.findings[0]?.summary).toContain('until it has room again');
    expect(report.findings[0]?.unknowns).toEqual([]);
  });

  // One number for one fact: health reads no /metrics, so it shows no quota rather than
  // etcd's 2 GiB default beside a 17 MB database ("reached its quota (2.1 GB)" … "= 1 %").
  it('health alone (no /metrics) still sees the alarm, and names no quota it did not read', async () => {
    const report = await t.doctor.run('lab', 'health');
    const finding = report.findings[0];
    expect(finding).toMatchObject({ cause: 'db-quota', severity: 'critical' });
    expect(finding?.summary).toMatch(/the database \(\d+(\.\d)? MB on etcd-\d\) reached its quota and/);
    const text = [finding?.summary, ...(finding?.evidence ?? [])].join('\n');
    expect(text).not.toContain('2.1 GB');
    expect(text).not.toMatch(/= \d+ %/);
    expect(finding?.evidence).toContainEqual(
      expect.stringMatching(
        /^etcd-1: db \d+(\.\d)? MB \(in use .*\); quota not read \(a health check does not read \/metrics; diagnose does\)$/,
      ),
    );
    expect(finding?.unknowns).toEqual([]);
  });
});

describe('NOSPACE from history: one key overwritten until the 16 MiB quota is full', () => {
  const t = useLabDoctor({ quotaBackendBytes: 16 * 1024 * 1024 });

  it('compaction can free it: recover-nospace (compact, defragment, disarm) leads, not more room', async () => {
    const filled = await t.lab.fill({ valueBytes: 100 * 1024, maxPuts: 400, sameKey: true });
    expect(filled.nospace).toBe(true);
    const report = await t.doctor.run('lab', 'diagnose');
    expect(report.findings[0]).toMatchObject({ cause: 'db-quota', severity: 'critical' });
    expect(report.findings[0]?.summary).toContain('until it is compacted, defragmented and disarmed');
    expect(report.findings[0]?.steps[0]).toMatchObject({ action: 'recover-nospace' });
    expect(report.findings[0]?.steps.map((s) => s.text).join('\n')).not.toMatch(/Make room first/);
  });
});
