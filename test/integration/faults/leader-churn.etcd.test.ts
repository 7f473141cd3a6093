import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Doctor } from '../../../src/doctor.js';
import { type EtcdLab, startEtcdLab } from '../../../src/lab/etcd-lab.js';
import { labDoctor } from '../../support/lab-doctor.js';

describe('leader churn from a bounded loop of move-leader', () => {
  let lab: EtcdLab;
  let doctor: Doctor;

  beforeAll(async () => {
    lab = await startEtcdLab();
    doctor = labDoctor(lab);
  });
  afterAll(async () => {
    await doctor?.close();
    await lab?.destroy();
  });

  it('one deliberate leader move raises nothing', async () => {
    const leader = await lab.leaderName();
    await lab.moveLeader(lab.members.map((m) => m.name).find((n) => n !== leader) ?? 'etcd-2');
    const report = await doctor.run('lab', 'diagnose');
    expect(report.findings.filter((f) => f.severity !== 'info')).toEqual([]);
    expect(report.status).toBe('healthy');
  });

  it('six moves in a row: leader-churn with the counts as evidence', async () => {
    const names = lab.members.map((m) => m.name);
    for (let i = 0; i < 6; i++) {
      const leader = await lab.leaderName();
      const next = names[(names.indexOf(leader ?? 'etcd-1') + 1) % names.length] ?? 'etcd-1';
      await lab.moveLeader(next);
    }
    const report = await doctor.run('lab', 'diagnose');
    expect(report.findings[0]?.cause).toBe('leader-churn');
    expect(report.status).not.toBe('healthy');
    expect(report.findings[0]?.evidence.join('\n')).toMatch(
      /etcd-\d: \d+ leader changes in the probe window, \d+ since it started/,
    );
    expect(report.findings[0]?.evidence.join('\n')).toMatch(/raft terms: etcd-1 \d+/);
  });
});
