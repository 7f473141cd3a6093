import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type EtcdLab, startEtcdLab } from '../../support/lab/etcd-lab.js';
import { readStatus } from '../../support/lab/etcd-ops.js';
import {
  ALICE,
  BOB_IN_GROUP,
  finished,
  type Harness,
  labCluster,
  MALLORY,
  ONCALL_GROUP,
  runItButton,
  startHarness,
  textOf,
} from '../../support/chat/remediation-harness.js';

/** The click path on a real etcd: order, quorum guard, authorisation, run once, expiry, tampering. */
describe('remediation clicks on a real 3-member etcd', () => {
  let lab: EtcdLab;
  let h: Harness;

  beforeAll(async () => {
    lab = await startEtcdLab();
    h = await startHarness(
      [
        labCluster(lab, {
          remediation: { responders: [ALICE, ONCALL_GROUP], defragPauseSeconds: 0.2 },
          // 24 MB fragmented: under the default 50 MB a member is not worth it.
          maintenance: { defrag: { minFreeBytes: 1_000_000 } },
        }),
      ],
      'rem-clicks',
    );
  }, 60_000);

  afterAll(async () => {
    await h?.close();
    await lab?.destroy();
  });

  const dbSizes = async () =>
    Object.fromEntries(
      await Promise.all(
        lab.members.map(async (m) => [m.name, (await readStatus(m.clientUrl, 3000))?.dbSizeBytes ?? 0]),
      ),
    ) as Record<string, number>;

  it('defragments every member, followers first and the leader last (as a follower), and each shrinks', async () => {
    await lab.fragment({ bytes: 24 * 1024 * 1024 });
    const before = await dbSizes();
    const leader = await lab.leaderName();
    const anchor = await h.anchor();
    const button = await h.button('defragment', {});
    const [confirm] = await h.chat.click(anchor, button, { user: ALICE });
    expect(textOf(confirm)).toMatch(/Defragment .*one at a time/);
    // Double click on Run it, and a "Slack retry" of the same press: one run.
    const runIt = runItButton(confirm);
    const presses = await Promise.all([
      h.chat.click(anchor, runIt, { user: ALICE }),
      h.chat.click(anchor, runIt, { user: ALICE }),
    ]);
    const replies = presses.map((p) => textOf(p[0]));
    expect(replies.filter((r) => r.startsWith('Starting'))).toHaveLength(1);
    expect(replies.filter((r) => /already started by <@U0ALICE>/.test(r))).toHaveLength(1);

    await h.chat.waitFor((c) => finished(c) !== undefined, 60_000);
    const done = finished(h.chat)?.text ?? '';
    expect(done).toMatch(/finished in/);
    const order = [...done.matchAll(/• (etcd-\d)( \(leader\))?: db /g)].map((m) => m[1]);
    expect(order).toHaveLength(3);
    expect(order.at(-1)).toBe(leader);
    // Leadership moved off it first, so it was no longer the leader when its own turn came.
    expect(done).toMatch(new RegExp(`moved leadership from ${leader} to etcd-\\d`));
    expect(done).not.toMatch(new RegExp(`${leader} \\(leader\\): db`));
    const after = await dbSizes();
    for (const m of lab.members) expect(after[m.name]).toBeLessThan(before[m.name] ?? 0);

    const audit = await h.audit();
    expect(audit.filter((r) => r.event === 'started')).toHaveLength(1);
    const final = audit.find((r) => r.event === 'finished');
    expect(final?.detail).toMatch(new RegExp(`leadership moved from ${leader} to etcd-\\d first`));
    expect(final?.durationMs).toBeGreaterThan(0);
  }, 120_000);

  it('refuses an unauthorised click with who may, and lets a user-group member through', async () => {
    const anchor = await h.anchor();
    const button = await h.button('defragment', {});
    const [refusal] = await h.chat.click(anchor, button, { user: MALLORY });
    expect(textOf(refusal)).toMatch(
      /Only responders may press \*Defragment\*: <@U0ALICE>, <!subteam\^S0ONCALL>/,
    );
    const [confirm] = await h.chat.click(anchor, button, { user: BOB_IN_GROUP });
    expect(textOf(confirm)).toMatch(/Press \*Run it\*/);
    // The confirmation is bound to Bob.
    const [stolen] = await h.chat.click(anchor, runItButton(confirm), { user: ALICE });
    expect(textOf(stolen)).toMatch(/This confirmation belongs to <@U0BOB>/);
    const refused = (await h.audit()).filter((r) => r.event === 'refused').map((r) => r.user);
    expect(refused).toEqual(expect.arrayContaining([MALLORY, ALICE]));
  });

  it('refuses an expired button and a tampered value, and runs nothing', async () => {
    const anchor = await h.anchor();
    const old = await h.button('defragment', {}, { createdAt: Date.now() - 31 * 60_000 });
    const [expired] = await h.chat.click(anchor, old, { user: ALICE });
    expect(textOf(expired)).toMatch(/This button expired .*30 min.*run `\/etcd diagnose local` again/i);

    const tampered = { ...old, value: JSON.stringify({ v: 1, plan: 'x', action: 'defragment' }) };
    const [rejected] = await h.chat.click(anchor, tampered, { user: ALICE });
    expect(textOf(rejected)).toMatch(/not made by this version of etcd-doctor; nothing was done/);
    const forged = { ...old, value: JSON.stringify({ v: 1, plan: 'AAAAAAAAAAAAAAAA' }) };
    const [unknown] = await h.chat.click(anchor, forged, { user: ALICE });
    expect(textOf(unknown)).toMatch(/expired/);
    const badArgs = await h.button('restart-static-pod', { component: 'etcd; rm -rf /', node: 'x' });
    const [invalid] = await h.chat.click(anchor, badArgs, { user: ALICE });
    expect(textOf(invalid)).toMatch(/plan is not valid/);
  });

  it('the quorum guard refuses with one of three members down', async () => {
    await lab.kill('etcd-3');
    try {
      const anchor = await h.anchor();
      const before = h.chat.messages.length;
      const [confirm] = await h.chat.click(anchor, await h.button('defragment', {}), { user: ALICE });
      await h.chat.click(anchor, runItButton(confirm), { user: ALICE });
      await h.chat.waitFor((c) => c.messages.slice(before).some((m) => /: refused in/.test(m.text)), 30_000);
      const refusal = h.chat.messages.slice(before).find((m) => /: refused in/.test(m.text))?.text ?? '';
      expect(refusal).toMatch(/quorum of 2 and 2 healthy members, which is not fault tolerant/);
      expect(refusal).toMatch(/etcd-3/);
      // The refusal reaches the chat a moment before its audit entry is written: wait for it (bounded).
      const audited = async () =>
        (await h.audit()).some((r) => r.event === 'refused' && /not fault tolerant/.test(r.detail));
      let found = await audited();
      for (let i = 0; i < 50 && !found; i++) {
        await new Promise((r) => setTimeout(r, 100));
        found = await audited();
      }
      expect(found).toBe(true);
    } finally {
      await lab.restart('etcd-3');
    }
  }, 60_000);
});
