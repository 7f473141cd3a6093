import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { MemoryMessage } from '../../../src/chat/memory/memory-adapter.js';
import type { ReportView, TextView, ViewButton } from '../../../src/report/chat-view.js';
import { type EtcdLab, startEtcdLab } from '../../support/lab/etcd-lab.js';
import {
  ALICE,
  type Harness,
  labCluster,
  MALLORY,
  startHarness,
  textOf,
} from '../../support/chat/remediation-harness.js';

const RAN = /ran .*: (finished|refused|failed) in/;
const START_FLAGS = /--initial-cluster-state existing --initial-cluster ([^\s`]+)/;

/**
 * Issue: a member whose disk is gone, replaced from the diagnosis thread on a real 3-member etcd:
 * removed, added back as a learner, started empty as the thread says, caught up, promoted.
 */
describe('replace-member on a real 3-member etcd', () => {
  let lab: EtcdLab;
  let h: Harness;
  /** Every text a message showed, edits included: the progress as it was shown live. */
  const shown: string[] = [];

  beforeAll(async () => {
    lab = await startEtcdLab();
    h = await startHarness([labCluster(lab, { remediation: { responders: [ALICE] } })], 'rem-replace', {
      settings: { learnerStartWaitMs: 60_000, learnerCatchUpWaitMs: 60_000, learnerPollMs: 250 },
      probeTimeoutMs: 3000,
      onChange: (m) => {
        shown.push(m.text);
      },
    });
  }, 60_000);

  afterAll(async () => {
    await h?.close();
    await lab?.destroy();
  });

  const follower = async (): Promise<string> => {
    const leader = await lab.leaderName();
    return lab.members.map((m) => m.name).find((n) => n !== leader) ?? 'etcd-3';
  };

  /** Every "ran …" outcome in the chat, oldest first. */
  const outcomes = (): MemoryMessage[] => h.chat.messages.filter((m) => RAN.test(m.text));

  const waitOutcome = async (count: number, timeoutMs: number): Promise<MemoryMessage> => {
    await h.chat.waitFor(() => outcomes().length >= count, timeoutMs);
    const found = outcomes()[count - 1];
    if (!found) throw new Error('no outcome');
    return found;
  };

  /** Diagnoses, and returns the report's message and its Replace button for `name`. */
  const diagnoseForReplace = async (name: string) => {
    const before = h.chat.messages.length;
    await h.chat.command('diagnose local', { user: ALICE });
    await h.chat.waitFor((c) => c.messages.slice(before).some((m) => m.view.kind === 'report'), 30_000);
    const report = h.chat.messages.slice(before).find((m) => m.view.kind === 'report');
    if (!report) throw new Error('no report');
    const button = (report.view as ReportView).buttons.find(
      (b) => b.action === 'replace-member' && b.label === `Replace ${name}`,
    );
    if (!button) throw new Error(`no Replace ${name} button: ${report.text}`);
    return { report, button };
  };

  const choice = (view: TextView | undefined, label: RegExp): ViewButton => {
    const b = view?.buttons?.find((x) => label.test(x.label));
    if (!b) throw new Error(`no ${label} button in: ${textOf(view)}`);
    return b;
  };

  /** The --initial-cluster string of the start instructions posted after `from`. */
  const instructions = async (from: number): Promise<{ text: string; initialCluster: string }> => {
    await h.chat.waitFor((c) => c.messages.slice(from).some((m) => START_FLAGS.test(m.text)), 30_000);
    const text = h.chat.messages.slice(from).find((m) => START_FLAGS.test(m.text))?.text ?? '';
    return { text, initialCluster: START_FLAGS.exec(text)?.[1] ?? '' };
  };

  const memberList = async () => {
    const res = await lab.etcdctl(['member', 'list', '-w', 'json']);
    const parsed = JSON.parse(res.stdout) as { members: Array<{ name?: string; isLearner?: boolean }> };
    return parsed.members;
  };

  const expectThreeHealthyVoters = async () => {
    const members = await memberList();
    expect(members).toHaveLength(3);
    expect(members.map((m) => m.name).sort()).toEqual(['etcd-1', 'etcd-2', 'etcd-3']);
    expect(members.every((m) => !m.isLearner)).toBe(true);
    const health = await lab.etcdctl(['endpoint', 'health']);
    expect(health.code).toBe(0);
    expect(health.stderr.concat(health.stdout).match(/is healthy/g)).toHaveLength(3);
  };

  it('replaces a follower whose data dir is gone, and promotes it itself once caught up', async () => {
    const victim = await follower();
    await lab.wipe(victim);
    const { report, button } = await diagnoseForReplace(victim);

    const [denied] = await h.chat.click(report.ref, button, { user: MALLORY });
    expect(textOf(denied)).toMatch(/Only responders may press \*Replace\*: <@U0ALICE>/);

    const [confirm] = await h.chat.click(report.ref, button, { user: ALICE });
    expect(textOf(confirm)).toMatch(/add it back as a learner with the same name and peer URLs/);
    const view = confirm as TextView;
    expect(view.buttons?.map((b) => b.label)).toEqual([
      'Run it, promote when caught up',
      'Run it, I will press Promote',
    ]);
    const from = h.chat.messages.length;
    const [started] = await h.chat.click(report.ref, choice(view, /promote when caught up/), { user: ALICE });
    expect(textOf(started)).toMatch(new RegExp(`Starting \\*Replace ${victim}\\*`));
    // The other choice of the same confirmation: it runs once.
    const [again] = await h.chat.click(report.ref, choice(view, /I will press Promote/), { user: ALICE });
    expect(textOf(again)).toMatch(/already started by <@U0ALICE>; it runs once/);

    const posted = await instructions(from);
    expect(posted.text).toMatch(new RegExp(`How to start ${victim} again`));
    expect(posted.text).toMatch(/empty data dir/);
    // The member list holds it as a learner that has not started, under a new ID.
    const listed = await memberList();
    expect(listed.filter((m) => m.isLearner)).toEqual([expect.not.objectContaining({ name: victim })]);
    expect(posted.initialCluster.split(',').map((e) => e.split('=')[0])).toEqual(
      expect.arrayContaining(['etcd-1', 'etcd-2', 'etcd-3']),
    );

    // The thread says it waits for the member before anyone starts it.
    expect(shown.some((t) => t.includes(`• waiting up to 60 s for ${victim} to be started as posted…`))).toBe(
      true,
    );
    await lab.join(victim, posted.initialCluster);
    const done = await waitOutcome(1, 60_000);
    expect(shown.some((t) => new RegExp(`• ${victim} started: .*; catching up…`).test(t))).toBe(true);
    expect(done.text).toMatch(new RegExp(`${victim} started: applied index \\d+ of the leader's \\d+`));
    expect(done.text).toMatch(/@U0ALICE ran \*?Replace etcd-\d\*? on \*?local\*?: finished in/);
    expect(done.text).toContain(`removed ${victim} (id `);
    expect(done.text).toContain(`added ${victim} back as a learner`);
    expect(done.text).toMatch(new RegExp(`${victim} caught up`));
    expect(done.text).toContain(`promoted ${victim} (id `);
    expect(done.text).toMatch(/member list now: .*\(voter.*\(voter.*\(voter/);
    expect(done.text).not.toMatch(/member list now: .*learner/);
    expect(done.threadTs).toBe(report.threadTs);
    await expectThreeHealthyVoters();

    const audit = await h.audit();
    const events = audit.filter((r) => r.action === 'replace-member');
    expect(events.map((r) => r.event)).toEqual(
      expect.arrayContaining(['refused', 'confirm-shown', 'confirmed', 'started', 'finished']),
    );
    const finished = events.find((r) => r.event === 'finished');
    expect(finished?.user).toBe(ALICE);
    expect(finished?.detail).toMatch(new RegExp(`promoted ${victim}`));
    expect(events.find((r) => r.event === 'refused')?.user).toBe(MALLORY);
  }, 150_000);

  it('with "I will press Promote": stops at a caught-up learner and a responder promotes it', async () => {
    const victim = await follower();
    await lab.wipe(victim);
    const { report, button } = await diagnoseForReplace(victim);
    const [confirm] = await h.chat.click(report.ref, button, { user: ALICE });
    const from = h.chat.messages.length;
    const count = outcomes().length;
    await h.chat.click(report.ref, choice(confirm as TextView, /I will press Promote/), { user: ALICE });
    const posted = await instructions(from);
    expect(posted.text).toMatch(/then offers a Promote button/);
    await lab.join(victim, posted.initialCluster);

    const done = await waitOutcome(count + 1, 60_000);
    expect(done.text).toMatch(/finished in/);
    expect(done.text).toMatch(new RegExp(`a responder may press Promote ${victim} now`));
    expect(done.text).toMatch(new RegExp(`${victim} \\(learner`));
    const learners = (await memberList()).filter((m) => m.isLearner);
    expect(learners.map((m) => m.name)).toEqual([victim]);
    const promote = choice(done.view as TextView, new RegExp(`^Promote ${victim}$`));

    const [denied] = await h.chat.click(done.ref, promote, { user: MALLORY });
    expect(textOf(denied)).toMatch(/Only responders may press \*Promote\*: <@U0ALICE>/);
    const [confirmPromote] = await h.chat.click(done.ref, promote, { user: ALICE });
    expect(textOf(confirmPromote)).toMatch(/Promote learner etcd-\d to a voting member/);
    await h.chat.click(done.ref, choice(confirmPromote as TextView, /^Run it$/), { user: ALICE });
    const promoted = await waitOutcome(count + 2, 30_000);
    expect(promoted.text).toMatch(/@U0ALICE ran \*?Promote etcd-\d\*? on \*?local\*?: finished in/);
    expect(promoted.text).toContain(`promoted ${victim} (id `);
    await expectThreeHealthyVoters();
    const audit = await h.audit();
    expect(
      audit.some((r) => r.action === 'promote-learner' && r.event === 'finished' && r.user === ALICE),
    ).toBe(true);
  }, 150_000);

  it('refuses a member that answers: it is not lost', async () => {
    const count = outcomes().length;
    const anchor = await h.anchor();
    const target = await follower();
    const [confirm] = await h.chat.click(anchor, await h.button('replace-member', { member: target }), {
      user: ALICE,
    });
    await h.chat.click(anchor, choice(confirm as TextView, /promote when caught up/), { user: ALICE });
    const done = await waitOutcome(count + 1, 30_000);
    expect(done.text).toMatch(/refused in/);
    expect(done.text).toContain(`refusing to replace ${target}: it answers Status, so it is not lost`);
    expect(await memberList()).toHaveLength(3);
    await expectThreeHealthyVoters();
  }, 60_000);

  it('a member nobody starts: the watch ends within its bound, and the learner stays with how to finish', async () => {
    const h2 = await startHarness(
      [labCluster(lab, { remediation: { responders: [ALICE] } })],
      'rem-replace-wait',
      { settings: { learnerStartWaitMs: 2000, learnerPollMs: 250 } },
    );
    try {
      const victim = await follower();
      await lab.wipe(victim);
      const anchor = await h2.anchor();
      const [confirm] = await h2.chat.click(anchor, await h2.button('replace-member', { member: victim }), {
        user: ALICE,
      });
      await h2.chat.click(anchor, choice(confirm as TextView, /promote when caught up/), { user: ALICE });
      await h2.chat.waitFor((c) => c.messages.some((m) => RAN.test(m.text)), 30_000);
      const done = h2.chat.messages.find((m) => RAN.test(m.text))?.text ?? '';
      expect(done).toMatch(/failed in/);
      expect(done).toContain(
        `${victim} did not start within 2 s (last: has not started); it stays in the member list as a learner`,
      );
      expect(done).toMatch(/member list now: .*\(learner, not started\)/);

      // Finished by hand as the thread says: started as posted, then promoted with etcdctl.
      const posted = h2.chat.messages.find((m) => START_FLAGS.test(m.text))?.text ?? '';
      await lab.join(victim, START_FLAGS.exec(posted)?.[1] ?? '');
      const id = /etcdctl member remove ([0-9a-f]+)/.exec(done)?.[1] ?? '';
      let promoted = await lab.etcdctl(['member', 'promote', id]);
      // etcd refuses until the learner is in sync with the leader: bounded retries.
      for (let i = 0; i < 40 && promoted.code !== 0; i++) {
        await new Promise((r) => setTimeout(r, 250));
        promoted = await lab.etcdctl(['member', 'promote', id]);
      }
      expect(promoted.stdout).toMatch(/promoted/);
      await expectThreeHealthyVoters();
    } finally {
      await h2.close();
    }
  }, 90_000);

  it('refuses when another member went down after the diagnosis: quorum', async () => {
    const victim = await follower();
    await lab.kill(victim);
    try {
      const { report, button } = await diagnoseForReplace(victim);
      const other = lab.members.map((m) => m.name).find((n) => n !== victim) ?? 'etcd-1';
      await lab.kill(other);
      const count = outcomes().length;
      const [confirm] = await h.chat.click(report.ref, button, { user: ALICE });
      await h.chat.click(report.ref, choice(confirm as TextView, /promote when caught up/), { user: ALICE });
      const done = await waitOutcome(count + 1, 30_000);
      expect(done.text).toMatch(/refused in/);
      // etcd 3.4 answers the member list from one member's own state; 3.5 reads it through raft,
      // which fails without quorum. Either way nothing was removed.
      expect(done.text).toMatch(
        new RegExp(
          `refusing to replace ${victim}: (removing it would leave [01] healthy voting member\\(s\\) of 2, below quorum 2|no member answered the member list)`,
        ),
      );
    } finally {
      for (const m of lab.members) if (m.pid === undefined) await lab.restart(m.name);
    }
    expect(await memberList()).toHaveLength(3);
  }, 90_000);

  /** Runs Replace `victim` from its report's button (promote when caught up); its start instructions. */
  const instructionsFor = async (victim: string, report: MemoryMessage, button: ViewButton) => {
    const [confirm] = await h.chat.click(report.ref, button, { user: ALICE });
    const at = h.chat.messages.length;
    await h.chat.click(report.ref, choice(confirm as TextView, /promote when caught up/), { user: ALICE });
    const posted = await instructions(at);
    expect(posted.text).toMatch(new RegExp(`How to start ${victim} again`));
    return posted;
  };

  it('the leader lost: a diagnosis at once keeps one progress total, and Replace waits out the election instead of refusing', async () => {
    const victim = await lab.leaderName();
    if (!victim) throw new Error('the lab knows no leader');
    const from = shown.length;
    await lab.wipe(victim);
    // At once, while the others still follow the dead leader or are electing a new one.
    const { report, button } = await diagnoseForReplace(victim);
    // The election wait is listed among the probes, never counted: one total from start to end.
    const totals = shown
      .slice(from)
      .flatMap((t) => [...t.matchAll(/\d+ of (\d+) probes done/g)].map((m) => m[1]));
    expect(totals.length).toBeGreaterThan(0);
    expect(new Set(totals).size).toBe(1);

    // The leader lost again, and Replace run on it at once: the membership step waits for the
    // election (up to 10 s) instead of refusing a cluster that knows no leader yet.
    const replaced = outcomes().length;
    await lab.join(victim, (await instructionsFor(victim, report, button)).initialCluster);
    expect((await waitOutcome(replaced + 1, 60_000)).text).toMatch(/finished in/);
    await expectThreeHealthyVoters();
    const leader = await lab.leaderName();
    if (!leader) throw new Error('the lab knows no leader');
    await lab.wipe(leader);
    const count = outcomes().length;
    const anchor = await h.anchor();
    const [confirm] = await h.chat.click(anchor, await h.button('replace-member', { member: leader }), {
      user: ALICE,
    });
    const at = h.chat.messages.length;
    await h.chat.click(anchor, choice(confirm as TextView, /promote when caught up/), { user: ALICE });
    const posted = await instructions(at);
    await lab.join(leader, posted.initialCluster);
    const done = await waitOutcome(count + 1, 60_000);
    expect(done.text).toMatch(/finished in/);
    expect(done.text).toContain(`removed ${leader} (id `);
    expect(done.text).not.toMatch(/knows no leader/);
    await expectThreeHealthyVoters();
  }, 240_000);
});
