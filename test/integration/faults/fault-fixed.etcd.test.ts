import { describe, expect, it } from '@jest/globals';
import { faultsNow } from '../../support/evidence/findings.js';
import { useLabDoctor } from '../../support/lab/use-lab-doctor.js';

/** How long ago the faults were fixed when the diagnosis runs: long enough for a window of now. */
const FIXED_FOR_MS = 45_000;

/**
 * Verdicts are of now: a disk slowed for real (strace, +150 ms per fdatasync) on one follower
 * under writes, and another follower SIGSTOP'd for 4 s, both over; 45 s later, under a light write
 * load (3 puts a second: a 3 s window holds too few fsyncs for a p99 of its own), the diagnosis
 * reports nothing at warning or critical. Before the fix it said `slow-disk [critical] … (1381
 * fsyncs since the member started, as the 3 s window held only 14)` long after the disk was fixed.
 */
describe('faults fixed 45 s ago', () => {
  const t = useLabDoctor();

  it('a slow disk and a hung member, both over: nothing at warning or critical, the disk told as the past', async () => {
    const leader = await t.lab.leaderName();
    const [disk, hung] = t.lab.members.map((m) => m.name).filter((n) => n !== leader);
    if (!disk || !hung) throw new Error('the lab has two followers');
    const slow = await t.lab.slowDisk(disk, 150_000);
    let fixed = false;
    try {
      const heavy = t.lab.writeLoad({ ratePerSecond: 40, durationMs: 5000, valueBytes: 256 });
      t.lab.stop(hung);
      // The fault is real and seen while it lasts: the same diagnosis names it.
      const during = await t.doctor.run('lab', 'diagnose');
      t.lab.cont(hung);
      await heavy;
      expect(during.findings.find((f) => f.cause === 'slow-disk')).toMatchObject({ members: [disk] });
      expect(during.findings.find((f) => f.cause === 'slow-disk')?.severity).not.toBe('info');
      await slow.stop();
      fixed = true;
      const light = t.lab.writeLoad({ ratePerSecond: 3, durationMs: FIXED_FOR_MS + 20_000, valueBytes: 256 });
      await new Promise((r) => setTimeout(r, FIXED_FOR_MS));
      const notes: string[] = [];
      const after = await t.doctor.run('lab', 'diagnose', {
        onProgress: ({ note }) => {
          if (note && !notes.includes(note)) notes.push(note);
        },
      });
      await light;
      // The window was thin and the disk slow since start: the run widened it, and its progress says
      // why it takes longer than its 3 s (issue 42: a diagnose of 9 s with a README saying 3 s).
      expect(notes).toEqual([
        `waiting up to 10 s in all for writes on ${disk}: its window held too few to time its disk now, and it was slow since it started`,
      ]);
      const live = faultsNow(after.findings).map((f) => `${f.cause}: ${f.summary}`);
      expect(live).toEqual([]);
      expect(after.status).toBe('healthy');
      const past = after.findings.find((f) => f.cause === 'slow-disk');
      // Either the widened window held enough fsyncs to show the disk fine (no finding), or it is the past.
      if (past) expect(past.summary).toContain('had a slow disk earlier');
    } finally {
      t.lab.cont(hung);
      if (!fixed) await slow.stop();
    }
  }, 120_000);
});
