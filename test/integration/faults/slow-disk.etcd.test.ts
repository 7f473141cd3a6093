import { describe, expect, it } from '@jest/globals';
import { useLabDoctor } from '../../support/lab/use-lab-doctor.js';

/**
 * fdatasync slowed for real with strace on one follower, at three strengths, with writes during
 * the window (fsync only happens on writes). slow-disk must name that member first.
 */
describe.each([
  { delayMs: 20, severity: 'warning' },
  { delayMs: 100, severity: undefined },
  { delayMs: 300, severity: 'critical' },
])('slow disk of $delayMs ms per fdatasync on one member', ({ delayMs, severity }) => {
  const t = useLabDoctor();

  it('slow-disk on that member is findings[0]', async () => {
    const leader = await t.lab.leaderName();
    const victim = t.lab.members.map((m) => m.name).find((n) => n !== leader) ?? 'etcd-2';
    const slow = await t.lab.slowDisk(victim, delayMs * 1000);
    try {
      const load = t.lab.writeLoad({ ratePerSecond: 60, durationMs: 4500, valueBytes: 256 });
      await new Promise((r) => setTimeout(r, 300));
      const report = await t.doctor.run('lab', 'diagnose');
      await load;
      expect(report.findings[0]).toMatchObject({ cause: 'slow-disk', members: [victim] });
      if (severity) expect(report.findings[0]?.severity).toBe(severity);
      expect(report.status).not.toBe('healthy');
      expect(report.findings[0]?.evidence[0]).toMatch(new RegExp(`^${victim}: wal fsync (p99|mean) \\d+ ms`));
      expect(report.findings[0]?.evidence.join('\n')).toContain('for comparison:');
    } finally {
      await slow.stop();
    }
  });
});
