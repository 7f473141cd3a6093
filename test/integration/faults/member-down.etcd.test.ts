import { describe, expect, it } from '@jest/globals';
import { useLabDoctor } from '../../support/use-lab-doctor.js';

describe('members killed and hung', () => {
  const t = useLabDoctor();

  it('one member killed: member-down names it, the others still report', async () => {
    await t.lab.kill('etcd-2');
    const report = await t.doctor.run('lab', 'diagnose');
    expect(report.status).toBe('critical');
    expect(report.findings[0]).toMatchObject({
      cause: 'member-down',
      members: ['etcd-2'],
      severity: 'critical',
    });
    expect(report.findings[0]?.summary).toMatch(
      /^etcd-2 is down .*2 of 3 members serve, and the cluster can survive 0 more failures/,
    );
    const others = report.members.filter((m) => m.name !== 'etcd-2');
    expect(
      others.every((m) => (m.reachable && m.tookMs !== null && m.walFsyncP99Ms !== null) || m.reachable),
    ).toBe(true);
    expect(report.members.find((m) => m.name === 'etcd-2')).toMatchObject({ reachable: false });
    await t.lab.restart('etcd-2');
  });

  it('one member SIGSTOPped: named as hung within its timeout, the whole diagnose in about 5 s', async () => {
    t.lab.stop('etcd-3');
    try {
      const started = Date.now();
      const report = await t.doctor.run('lab', 'diagnose');
      const elapsed = Date.now() - started;
      expect(elapsed).toBeLessThan(6500);
      expect(report.findings[0]).toMatchObject({ cause: 'member-down', members: ['etcd-3'] });
      expect(report.findings[0]?.summary).toContain('etcd-3 is hung');
      expect(report.findings[0]?.evidence[0]).toMatch(
        /^etcd-3 \(http:\/\/127\.0\.0\.1:\d+\) did not answer Status in 3 s$/,
      );
      expect(report.members.filter((m) => m.name !== 'etcd-3').every((m) => m.reachable)).toBe(true);
    } finally {
      t.lab.cont('etcd-3');
    }
  });

  it('two members killed: quorum-lost first, naming both', async () => {
    await t.lab.kill('etcd-1');
    await t.lab.kill('etcd-2');
    const report = await t.doctor.run('lab', 'diagnose');
    expect(report.status).toBe('critical');
    expect(report.findings[0]?.cause).toBe('quorum-lost');
    expect(report.findings[0]?.members).toEqual(expect.arrayContaining(['etcd-1', 'etcd-2']));
    expect(report.findings.filter((f) => f.cause === 'member-down')).toEqual([]);
  });
});
