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

/**
 * Learners seen in a diagnosis, on a real 5-member etcd with a learner: the caught-up learner gets a
 * Promote button that a responder confirms; Replace is refused while the learner is there, and
 * again while a second member is down although quorum would hold.
 */
describe('learners and replacement refusals on a real 5-member etcd', () => {
  let lab: EtcdLab;
  let h: Harness;
  let promote: { message: MemoryMessage; button: ViewButton } | undefined;

  beforeAll(async () => {
    lab = await startEtcdLab({ size: 5 });
    h = await startHarness([labCluster(lab, { remediation: { responders: [ALICE] } })], 'rem-learners', {
      probeTimeoutMs: 3000,
    });
  }, 60_000);

  afterAll(async () => {
    await h?.close();
    await lab?.destroy();
  });

  const outcomes = (): MemoryMessage[] => h.chat.messages.filter((m) => RAN.test(m.text));
  const waitOutcome = async (count: number, timeoutMs: number): Promise<MemoryMessage> => {
    await h.chat.waitFor(() => outcomes().length >= count, timeoutMs);
    const found = outcomes()[count - 1];
    if (!found) throw new Error('no outcome');
    return found;
  };

  const diagnose = async (): Promise<MemoryMessage> => {
    const before = h.chat.messages.length;
    await h.chat.command('diagnose local', { user: ALICE });
    await h.chat.waitFor((c) => c.messages.slice(before).some((m) => m.view.kind === 'report'), 30_000);
    const report = h.chat.messages.slice(before).find((m) => m.view.kind === 'report');
    if (!report) throw new Error('no report');
    return report;
  };

  const runIt = (view: TextView | undefined, label: RegExp): ViewButton => {
    const b = view?.buttons?.find((x) => label.test(x.label));
    if (!b) throw new Error(`no ${label} button in: ${textOf(view)}`);
    return b;
  };

  /** Presses a forged-free Replace plan for `name` (as an earlier diagnosis made it) and returns the outcome. */
  const pressReplace = async (name: string): Promise<string> => {
    const count = outcomes().length;
    const anchor = await h.anchor();
    const [confirm] = await h.chat.click(anchor, await h.button('replace-member', { member: name }), {
      user: ALICE,
    });
    await h.chat.click(anchor, runIt(confirm as TextView, /promote when caught up/), { user: ALICE });
    return (await waitOutcome(count + 1, 30_000)).text;
  };

  const followers = async (): Promise<string[]> => {
    const leader = await lab.leaderName();
    return ['etcd-2', 'etcd-3', 'etcd-4', 'etcd-5'].filter((n) => n !== leader);
  };

  const voters = async () => {
    const res = await lab.etcdctl(['member', 'list', '-w', 'json']);
    const members = (JSON.parse(res.stdout) as { members: Array<{ name?: string; isLearner?: boolean }> })
      .members;
    return {
      voters: members.filter((m) => !m.isLearner).length,
      learners: members.filter((m) => m.isLearner),
    };
  };

  it('a caught-up learner gets a Promote button in the diagnosis', async () => {
    const learner = await lab.addLearner();
    expect(learner.name).toBe('etcd-6');
    const report = await diagnose();
    const json = (report.view as ReportView).report;
    const finding = json.findings.find((f) => f.cause === 'learner-not-promoted');
    expect(finding?.summary).toMatch(/^etcd-6 is a learner that has caught up with the leader/);
    expect(finding?.severity).toBe('info');
    const button = (report.view as ReportView).buttons.find((b) => b.action === 'promote-learner');
    expect(button?.label).toBe('Promote etcd-6');
    if (button) promote = { message: report, button };
  }, 60_000);

  it('refuses to replace a lost voter while the cluster has a learner, and offers no Replace', async () => {
    const [victim = 'etcd-5'] = (await followers()).reverse();
    await lab.kill(victim);
    const report = await diagnose();
    expect(report.text).toMatch(new RegExp(`member-down \\[\\w+\\] on ${victim}`));
    expect((report.view as ReportView).buttons.some((b) => b.action === 'replace-member')).toBe(false);
    const text = await pressReplace(victim);
    expect(text).toMatch(/refused in/);
    expect(text).toContain(`refusing to replace ${victim}: the cluster has a learner already (etcd-6)`);
    expect((await voters()).voters).toBe(5);
  }, 60_000);

  it('a responder confirms Promote; a non-responder is refused', async () => {
    if (!promote) throw new Error('no Promote button from the first test');
    const { message, button } = promote;
    const [denied] = await h.chat.click(message.ref, button, { user: MALLORY });
    expect(textOf(denied)).toMatch(/Only responders may press \*Promote\*: <@U0ALICE>/);
    const count = outcomes().length;
    const [confirm] = await h.chat.click(message.ref, button, { user: ALICE });
    expect(textOf(confirm)).toMatch(/Promote learner etcd-6 to a voting member/);
    await h.chat.click(message.ref, runIt(confirm as TextView, /^Run it$/), { user: ALICE });
    const done = await waitOutcome(count + 1, 30_000);
    expect(done.text).toMatch(/@U0ALICE ran \*?Promote etcd-6\*? on \*?local\*?: finished in/);
    expect(done.text).toContain('promoted etcd-6 (id ');
    expect(done.text).toMatch(/member list now: .*etcd-6 \(voter/);
    expect(await voters()).toEqual({ voters: 6, learners: [] });
    const audit = await h.audit();
    expect(audit.filter((r) => r.action === 'promote-learner').map((r) => [r.event, r.user])).toEqual(
      expect.arrayContaining([
        ['refused', MALLORY],
        ['started', ALICE],
        ['finished', ALICE],
      ]),
    );
  }, 60_000);

  it('refuses to replace one lost voter while another is down, though quorum would hold', async () => {
    const down = lab.members.filter((m) => m.pid === undefined).map((m) => m.name);
    expect(down).toHaveLength(1);
    const [victim = 'etcd-5'] = down;
    const [second = 'etcd-4'] = (await followers()).filter((n) => n !== victim);
    await lab.kill(second);
    try {
      const text = await pressReplace(victim);
      expect(text).toMatch(/refused in/);
      // Six voters, two down: removing one leaves 4 healthy of 5, quorum 3; the other down member refuses it.
      expect(text).toMatch(
        new RegExp(
          `refusing to replace ${victim}: ${second} did not answer Status.* too; .*one member at a time`,
        ),
      );
      expect((await voters()).voters).toBe(6);
    } finally {
      await lab.restart(second);
      await lab.restart(victim);
    }
  }, 90_000);
});
