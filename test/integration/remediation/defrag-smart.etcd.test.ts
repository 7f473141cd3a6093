import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type EtcdLab, startEtcdLab } from '../../support/lab/etcd-lab.js';
import { readStatus } from '../../support/lab/etcd-ops.js';
import {
  ALICE,
  finished,
  type Harness,
  labCluster,
  runItButton,
  startHarness,
  textOf,
} from '../../support/chat/remediation-harness.js';

/**
 * The smarter defragmentation on a real 3-member etcd, fragmented for real (write, delete, compact):
 * what each member would free is shown before the confirmation, a member with little to gain is
 * skipped with the reason, and the leader hands leadership to a follower before its own turn.
 */
describe('defragment: gains, skipped members and the leader move', () => {
  let lab: EtcdLab;
  let h: Harness;

  beforeAll(async () => {
    lab = await startEtcdLab({ logger: 'zap' });
    h = await startHarness(
      [
        labCluster(lab, {
          remediation: { responders: [ALICE], defragPauseSeconds: 0.2 },
          // The lab fragments 12 MB: a member is worth it from 4 MB and 10 % free.
          maintenance: { defrag: { minFreeRatio: 0.1, minFreeBytes: 4_000_000 } },
        }),
      ],
      'rem-defrag-smart',
    );
  }, 60_000);

  afterAll(async () => {
    await h?.close();
    await lab?.destroy();
  });

  const statusOf = async (name: string) => {
    const status = await readStatus(lab.member(name).clientUrl, 3000);
    if (!status) throw new Error(`${name} did not answer Status`);
    return status;
  };

  /** The plan context a diagnosis would store (remediation/plan-context.ts), from real Status reads. */
  const contextNow = async (leader: string) => ({
    leader,
    members: JSON.stringify(
      await Promise.all(
        lab.members.map(async (m) => {
          const s = await statusOf(m.name);
          return {
            name: m.name,
            reachable: true,
            dbSizeBytes: s.dbSizeBytes,
            dbSizeInUseBytes: s.dbSizeInUseBytes,
          };
        }),
      ),
    ),
  });

  it('skips the member with little to gain, moves leadership off the leader before its own defrag', async () => {
    await lab.fragment({ bytes: 12 * 1024 * 1024 });
    const leader = await lab.leaderName();
    if (!leader) throw new Error('no leader');
    const followers = lab.members.map((m) => m.name).filter((n) => n !== leader);
    const small = followers[0] ?? '';
    // Defragmented by hand beforehand: it has almost nothing left to free.
    const manual = await lab.etcdctl(['--endpoints', lab.member(small).clientUrl, 'defrag'], {
      timeoutMs: 30_000,
    });
    expect(manual.code).toBe(0);
    const smallBefore = await statusOf(small);
    const leaderBefore = await statusOf(leader);
    expect(leaderBefore.dbSizeBytes - leaderBefore.dbSizeInUseBytes).toBeGreaterThan(8_000_000);

    const anchor = await h.anchor();
    const button = await h.button('defragment', {}, { context: await contextNow(leader) });
    const [confirm] = await h.chat.click(anchor, button, { user: ALICE });
    const plan = textOf(confirm);
    expect(plan).toMatch(
      new RegExp(`${small}: skipped, would free only [\\d.]+ KB of [\\d.]+ KB \\(\\d+ %\\): under 4 MB`),
    );
    expect(plan).toMatch(
      new RegExp(`${leader} \\(leader\\): would free 1\\d(\\.\\d)? MB of 1\\d(\\.\\d)? MB`),
    );
    expect(plan).toMatch(/leadership first moves to a caught-up follower \(MoveLeader\)/);

    await h.chat.click(anchor, runItButton(confirm), { user: ALICE });
    await h.chat.waitFor((c) => finished(c) !== undefined, 90_000);
    const done = finished(h.chat)?.text ?? '';
    expect(done).toMatch(/finished in/);
    expect(done).toMatch(
      new RegExp(`• ${small}: skipped: would free only [\\d.]+ KB of [\\d.]+ KB \\(\\d+ %\\): under 4 MB`),
    );
    expect(done).toMatch(
      new RegExp(`moved leadership from ${leader} to etcd-\\d in [\\d.]+ s \\(MoveLeader\\)`),
    );
    const defragmented = [...done.matchAll(/• (etcd-\d)( \(leader\))?: db /g)].map((m) => m[1]);
    expect(defragmented).toEqual([followers[1], leader]);
    // No member was defragmented while it led: the old leader's line carries no "(leader)".
    expect(done).not.toMatch(/\(leader\): db /);

    const newLeader = await lab.leaderName();
    expect(newLeader).not.toBe(leader);
    expect((await statusOf(leader)).dbSizeBytes).toBeLessThan(leaderBefore.dbSizeBytes / 2);
    expect((await statusOf(small)).dbSizeBytes).toBe(smallBefore.dbSizeBytes);
    // In the old leader's own log, the transfer finished before its defragmentation started.
    const log = lab.logs(leader).split('\n');
    const transferred = log.findIndex((l) => /"msg":"leadership transfer finished"/.test(l));
    const defragStarted = log.findIndex((l) => /"msg":"defragmenting"/.test(l));
    expect(transferred).toBeGreaterThanOrEqual(0);
    expect(defragStarted).toBeGreaterThan(transferred);

    const final = (await h.audit()).find((r) => r.event === 'finished');
    expect(final?.detail).toMatch(
      new RegExp(
        `leadership moved from ${leader} to etcd-\\d first\\); skipped ${small} \\(little to gain\\)`,
      ),
    );
  }, 180_000);
});
