import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Doctor } from '../../../src/doctor.js';
import { type EtcdLab, startEtcdLab } from '../../../src/lab/etcd-lab.js';
import { labDoctor } from '../../support/lab-doctor.js';

/** Incident (a)+(d): one slow disk, write load, and a leader that keeps moving. */
describe('slow disk plus load plus leader churn', () => {
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

  it('slow-disk on the slow member comes first, and the churn is linked to it', async () => {
    const names = lab.members.map((m) => m.name);
    const victim = 'etcd-2';
    const slow = await lab.slowDisk(victim, 150_000);
    try {
      for (let i = 0; i < 5; i++) {
        const leader = await lab.leaderName();
        const next =
          names.filter((n) => n !== leader && n !== victim)[0] ?? names.find((n) => n !== leader) ?? 'etcd-1';
        await lab.moveLeader(next === leader ? victim : next);
        await lab.moveLeader(names.find((n) => n !== next && n !== victim) ?? 'etcd-3');
      }
      const load = lab.writeLoad({ ratePerSecond: 60, durationMs: 4500, valueBytes: 256 });
      await new Promise((r) => setTimeout(r, 300));
      const report = await doctor.run('lab', 'diagnose');
      await load;
      if (report.findings[0]?.members.length !== 1) console.log(report.findings[0]?.evidence.join('\n'));
      expect(report.findings[0]).toMatchObject({ cause: 'slow-disk', members: [victim] });
      expect(report.findings.find((f) => f.cause === 'leader-churn')).toMatchObject({
        causedBy: 'slow-disk',
      });
      expect(report.findings.every((f, i) => i === 0 || f.causedBy === 'slow-disk')).toBe(true);
    } finally {
      await slow.stop();
    }
  });
});
