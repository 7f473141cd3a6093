import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type EtcdLab, startEtcdLab } from '../../support/lab/etcd-lab.js';
import {
  ALICE,
  finished,
  type Harness,
  labCluster,
  runItButton,
  startHarness,
} from '../../support/chat/remediation-harness.js';

/** Shorter than etcd's own request timeout (5 s + 2 election timeouts), so ours is what ends the call. */
const CALL_TIMEOUT_MS = 2000;

/**
 * The write check at the end of recover-nospace had no deadline, so a leader that hangs
 * (stopped here) kept the job running, and its lock renewed, for as long as etcd let it.
 */
describe('recover-nospace: the write check has a deadline', () => {
  let lab: EtcdLab;
  let h: Harness;
  let hangLeader = false;
  let hung: string | undefined;

  beforeAll(async () => {
    lab = await startEtcdLab();
    h = await startHarness([labCluster(lab, { remediation: { responders: [ALICE] } })], 'rem-nospace-dl', {
      settings: { etcdCallTimeoutMs: CALL_TIMEOUT_MS },
      // Progress never holds the run, but the memory chat calls this hook as the line is added,
      // before the run goes on: the member the write check is about to use hangs (SIGSTOP) then.
      onChange: (m) => {
        const target = /checking that a write works on (etcd-\d)/.exec(m.text)?.[1];
        if (!hangLeader || !target) return;
        hangLeader = false;
        lab.stop(target);
        hung = target;
      },
    });
  }, 60_000);

  afterAll(async () => {
    if (hung) lab.cont(hung);
    await h?.close();
    await lab?.destroy();
  });

  it('reports a write that does not finish within etcdCallTimeoutMs as failed', async () => {
    const anchor = await h.anchor();
    const [confirm] = await h.chat.click(anchor, await h.button('recover-nospace', {}), { user: ALICE });
    hangLeader = true;
    await h.chat.click(anchor, runItButton(confirm), { user: ALICE });
    await h.chat.waitFor((c) => finished(c) !== undefined, 30_000);
    const done = finished(h.chat)?.text ?? '';
    expect(hung).toBeDefined();
    expect(done).toMatch(/failed in .*the alarm is disarmed but a write still fails/s);
    expect(done).toMatch(
      new RegExp(
        `a write to ${hung} \\(http://127\\.0\\.0\\.1:\\d+\\) did not answer within ${CALL_TIMEOUT_MS} ms`,
      ),
    );
  }, 60_000);
});
