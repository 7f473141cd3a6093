import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type EtcdLab, startEtcdLab } from '../../support/lab/etcd-lab.js';
import {
  ALICE,
  finished,
  type Harness,
  labCluster,
  runItButton,
  startHarness,
} from '../../support/remediation-harness.js';

/** Shorter than etcd's own request timeout (5 s + 2 election timeouts), so ours is what ends the call. */
const CALL_TIMEOUT_MS = 2000;

/**
 * Issue 28 #4: the write check at the end of recover-nospace had no deadline, so a leader that hangs
 * (its WAL fsync stuck here) kept the job running, and its lock renewed, for as long as etcd let it.
 */
describe('recover-nospace: the write check has a deadline', () => {
  let lab: EtcdLab;
  let h: Harness;
  let hangLeader = false;
  let slow: { stop(): Promise<void> } | undefined;

  beforeAll(async () => {
    lab = await startEtcdLab();
    h = await startHarness([labCluster(lab, { remediation: { responders: [ALICE] } })], 'rem-nospace-dl', {
      settings: { etcdCallTimeoutMs: CALL_TIMEOUT_MS },
      // The run waits for its progress message: the leader's disk hangs right after the disarm step.
      onChange: async (m) => {
        if (!hangLeader || !/no NOSPACE alarm was active|disarmed NOSPACE/.test(m.text)) return;
        hangLeader = false;
        const leader = await lab.leaderName();
        if (leader) slow = await lab.slowDisk(leader, 20_000_000);
      },
    });
  }, 60_000);

  afterAll(async () => {
    await slow?.stop();
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
    expect(slow).toBeDefined();
    expect(done).toMatch(/failed in .*the alarm is disarmed but a write still fails/s);
    expect(done).toMatch(
      new RegExp(
        `a write to etcd-\\d \\(http://127\\.0\\.0\\.1:\\d+\\) did not answer within ${CALL_TIMEOUT_MS} ms`,
      ),
    );
  }, 60_000);
});
