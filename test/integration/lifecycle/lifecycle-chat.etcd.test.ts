import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ReportView } from '../../../src/report/chat-view.js';
import { type EtcdLab, startEtcdLab } from '../../support/lab/etcd-lab.js';
import { ALICE, type Harness, labCluster, startHarness } from '../../support/chat/remediation-harness.js';

/**
 * The chat side of issue 40 through the real roles (bot and worker, Redis, the memory chat): `/etcd
 * upgrade-check`, `/etcd recover` on a cluster with quorum, and the "Show the recovery plan" button of
 * a quorum-lost diagnosis, answered in its thread with the survivor named.
 */
describe('lifecycle commands in chat', () => {
  let lab: EtcdLab;
  let h: Harness;

  beforeAll(async () => {
    lab = await startEtcdLab();
    h = await startHarness([labCluster(lab)], 'lifecycle-chat', { probeTimeoutMs: 2000 });
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    await lab?.destroy();
  });

  const answerAfter = async (from: number, pattern: RegExp) => {
    await h.chat.waitFor((c) => c.messages.slice(from).some((m) => pattern.test(m.text)), 30_000);
    return h.chat.messages.slice(from).find((m) => pattern.test(m.text));
  };

  it('/etcd upgrade-check local 3.6: the verdict in the channel; 4.0 gets one line', async () => {
    const before = h.chat.messages.length;
    const [ack] = await h.chat.command('upgrade-check local 3.6', { user: ALICE });
    expect(ack && 'lines' in ack ? ack.lines.join(' ') : '').toContain(
      'Checking whether *local* can go to etcd 3.6',
    );
    const answer = await answerAfter(before, /Upgrade check of local to etcd 3\.6: NOT READY/);
    expect(answer?.text).toContain('Blocker: backup');
    const [bad] = await h.chat.command('upgrade-check local 4.0', { user: ALICE });
    expect(bad && 'lines' in bad ? bad.lines.join(' ') : '').toContain(
      '"4.0" is not an etcd minor etcd-doctor knows: use --to with one of 3.4, 3.5, 3.6, 3.7',
    );
  });

  it('/etcd recover local with quorum: one line to diagnose instead', async () => {
    const before = h.chat.messages.length;
    await h.chat.command('recover local', { user: ALICE });
    const answer = await answerAfter(before, /recover is for a cluster that lost quorum/);
    expect(answer?.text).toContain('Run etcd-doctor diagnose local instead');
  });

  it('quorum lost: the diagnosis offers Show the recovery plan; pressed, the plan names the survivor', async () => {
    for (const name of ['etcd-2', 'etcd-3']) await lab.wipe(name);
    const before = h.chat.messages.length;
    await h.chat.command('diagnose local', { user: ALICE });
    await h.chat.waitFor(
      (c) => c.messages.slice(before).some((m) => m.view.kind === 'report' && /quorum-lost/.test(m.text)),
      30_000,
    );
    const report = h.chat.messages.slice(before).find((m) => m.view.kind === 'report');
    const buttons = report?.view.kind === 'report' ? (report.view as ReportView).buttons : [];
    const button = buttons.find((b) => b.action === 'recovery-plan');
    expect(button?.label).toBe('Show the recovery plan');
    if (!report || !button) throw new Error('no recovery plan button');
    const from = h.chat.messages.length;
    await h.chat.click(report.ref, button, { user: ALICE });
    const plan = await answerAfter(
      from,
      /Recovery plan for local: restore from etcd-1 \(member, revision \d+/,
    );
    expect(plan?.text).toContain('etcd-doctor runs none of these steps');
    expect(plan?.text).toContain('--force-new-cluster');
  });
});
