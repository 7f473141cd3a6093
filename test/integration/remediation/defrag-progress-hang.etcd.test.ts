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

/**
 * A progress edit must never sit between the per-member quorum guard and Defragment, so a chat that
 * hangs (Slack took 201 s to fail an edit) held the action, and the guard went stale. Here every
 * progress edit of a member's defragmentation hangs for good: the run must still finish promptly.
 */
describe('defragment while the chat hangs on progress edits', () => {
  let lab: EtcdLab;
  let h: Harness;
  let hanging = 0;
  const never = new Promise<void>(() => undefined);

  beforeAll(async () => {
    lab = await startEtcdLab();
    h = await startHarness(
      [
        labCluster(lab, {
          remediation: { responders: [ALICE], defragPauseSeconds: 0.2 },
          // Every member is defragmented, however little it holds free.
          maintenance: { defrag: { minFreeRatio: 0, minFreeBytes: 0 } },
        }),
      ],
      'rem-defrag-hang',
      {
        onChange: async (m) => {
          if (!/defragmenting etcd-\d/.test(m.text)) return;
          hanging += 1;
          await never;
        },
      },
    );
  }, 60_000);

  afterAll(async () => {
    await h?.close();
    await lab?.destroy();
  });

  it('defragments every member although no progress edit ever returns', async () => {
    const anchor = await h.anchor();
    const [confirm] = await h.chat.click(anchor, await h.button('defragment', {}), { user: ALICE });
    const pressed = Date.now();
    await h.chat.click(anchor, runItButton(confirm), { user: ALICE });
    await h.chat.waitFor((c) => finished(c) !== undefined, 30_000);
    const done = finished(h.chat)?.text ?? '';
    expect(hanging).toBeGreaterThan(0);
    expect(done).toMatch(/finished in/);
    expect([...done.matchAll(/• (etcd-\d)( \(leader\))?: db /g)]).toHaveLength(3);
    expect(Date.now() - pressed).toBeLessThan(30_000);
  }, 60_000);
});
