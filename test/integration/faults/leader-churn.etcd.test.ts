import { describe, expect, it } from '@jest/globals';
import { faultsNow } from '../../support/evidence/findings.js';
import { useLabDoctor } from '../../support/lab/use-lab-doctor.js';

describe('leader churn from a bounded loop of move-leader', () => {
  const t = useLabDoctor();

  it('one deliberate leader move raises nothing', async () => {
    const leader = await t.lab.leaderName();
    await t.lab.moveLeader(t.lab.members.map((m) => m.name).find((n) => n !== leader) ?? 'etcd-2');
    const report = await t.doctor.run('lab', 'diagnose');
    expect(faultsNow(report.findings)).toEqual([]);
    expect(report.status).toBe('healthy');
  });

  it('six moves in a row: leader-churn with the counts as evidence', async () => {
    const names = t.lab.members.map((m) => m.name);
    for (let i = 0; i < 6; i++) {
      const leader = await t.lab.leaderName();
      const next = names[(names.indexOf(leader ?? 'etcd-1') + 1) % names.length] ?? 'etcd-1';
      await t.lab.moveLeader(next);
    }
    const report = await t.doctor.run('lab', 'diagnose');
    expect(report.findings[0]?.cause).toBe('leader-churn');
    expect(report.status).not.toBe('healthy');
    expect(report.findings[0]?.evidence.join('\n')).toMatch(
      /etcd-\d: \d+ leader changes in the probe window, \d+ since it started/,
    );
    expect(report.findings[0]?.evidence.join('\n')).toMatch(/raft terms: etcd-1 \d+/);
  });
});
