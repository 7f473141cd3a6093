import { describe, expect, it } from '@jest/globals';
import { useLabDoctor } from '../../support/lab/use-lab-doctor.js';
import { writeLoadStarted } from '../../support/lab/write-load.js';

/**
 * fdatasync slowed for real with strace on one follower, at three strengths, with writes during
 * the window (fsync only happens on writes). slow-disk must name that member first. 20 ms is over
 * the 10 ms p99 bound (warning); at 100 ms every fsync takes at least the injected 100 ms, so the
 * mean is over the heartbeat interval (WAL_FSYNC_MEAN_CRITICAL_S, critical), and 300 ms more so.
 */
describe.each([
  { delayMs: 20, severity: 'warning', status: 'degraded' },
  { delayMs: 100, severity: 'critical', status: 'critical' },
  { delayMs: 300, severity: 'critical', status: 'critical' },
])('slow disk of $delayMs ms per fdatasync on one member', ({ delayMs, severity, status }) => {
  const t = useLabDoctor();

  it('slow-disk on that member is findings[0]', async () => {
    const leader = await t.lab.leaderName();
    const victim = t.lab.members.map((m) => m.name).find((n) => n !== leader) ?? 'etcd-2';
    const slow = await t.lab.slowDisk(victim, delayMs * 1000);
    try {
      const load = await writeLoadStarted(t.lab, { ratePerSecond: 60, durationMs: 4500, valueBytes: 256 });
      const report = await t.doctor.run('lab', 'diagnose');
      await load.done;
      expect(report.findings[0]).toMatchObject({ cause: 'slow-disk', members: [victim] });
      expect({ severity: report.findings[0]?.severity, status: report.status }).toEqual({ severity, status });
      expect(report.findings[0]?.evidence[0]).toMatch(new RegExp(`^${victim}: wal fsync (p99|mean) \\d+ ms`));
      expect(report.findings[0]?.evidence.join('\n')).toContain('for comparison:');
    } finally {
      await slow.stop();
    }
  });
});
