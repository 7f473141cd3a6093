import { readdir, stat, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type EtcdLab, startEtcdLab } from '../../support/lab/etcd-lab.js';
import type { ReportView } from '../../../src/report/chat-view.js';
import {
  ALICE,
  finished,
  type Harness,
  labCluster,
  runItButton,
  startHarness,
  textOf,
} from '../../support/chat/remediation-harness.js';

/** KB R4 end to end: a cluster in NOSPACE, the button from the diagnosis, confirmation, writable again. */
describe('recover-nospace on a real 3-member etcd with a 16 MiB quota', () => {
  let lab: EtcdLab;
  let h: Harness;
  let killAfterSnapshot: string | undefined;

  beforeAll(async () => {
    lab = await startEtcdLab({ quotaBackendBytes: 16 * 1024 * 1024 });
    h = await startHarness(
      // The production pause (36 s between members, no defragPauseSeconds): only an upper bound now.
      [labCluster(lab, { remediation: { responders: [ALICE], snapshotKeep: 2 } })],
      'rem-nospace',
      {
        // The run waits for its progress message: the member dies right after the snapshot.
        onChange: async (m) => {
          if (!killAfterSnapshot || !/snapshot of .* saved/.test(m.text)) return;
          const victim = killAfterSnapshot;
          killAfterSnapshot = undefined;
          await lab.kill(victim);
        },
      },
    );
  }, 60_000);

  afterAll(async () => {
    await h?.close();
    await lab?.destroy();
  });

  it('snapshots, compacts, defragments, disarms, and a write works', async () => {
    const filled = await lab.fill({ valueBytes: 100 * 1024, maxPuts: 400, keyPrefix: 'junk/' });
    expect(filled.nospace).toBe(true);
    expect((await lab.etcdctl(['alarm', 'list'])).stdout).toMatch(/NOSPACE/);
    // What fills a quota in practice is history (old revisions), not live data: the keys are deleted
    // (deletes are allowed under NOSPACE), so only compaction + defragmentation can give the space back.
    // Without this, live data alone can exceed the quota and no recovery can work (seen: 16.9 MB live).
    expect((await lab.etcdctl(['del', '--prefix', 'junk/'])).code).toBe(0);

    await h.chat.command('diagnose local', { user: ALICE });
    await h.chat.waitFor((c) => c.messages.some((m) => m.view.kind === 'report'), 30_000);
    const report = h.chat.messages.find((m) => m.view.kind === 'report');
    if (!report) throw new Error('no report');
    const recover = (report.view as ReportView).buttons.find((b) => b.action === 'recover-nospace');
    if (!recover) throw new Error(`no recover button: ${report.text}`);

    const [confirm] = await h.chat.click(report.ref, recover, { user: ALICE });
    expect(textOf(confirm)).toMatch(/Snapshot .*Compact .*Defragment .*leader .*Disarm NOSPACE/s);
    // Older snapshots of this cluster, and of others, which stay: `other`, and `local-eu`, whose name
    // starts with `local-` (such names sort after the fresh one, which must not be the one removed). One of
    // this cluster dated ahead (a clock that ran fast) sorts after the fresh one: the fresh one stays.
    for (const old of [
      'local-2020-01-01T00-00-00-000Z.db',
      'local-2020-01-02T00-00-00-000Z.db',
      'local-2099-01-01T00-00-00-000Z.db',
      'local-eu-2030-01-01T00-00-00-000Z.db',
      'local-eu-2030-01-02T00-00-00-000Z.db',
      'other-2020-01-01T00-00-00-000Z.db',
    ])
      await writeFile(join(h.snapshotDir, old), 'old');
    const pressed = Date.now();
    const [started] = await h.chat.click(report.ref, runItButton(confirm), { user: ALICE });
    expect(textOf(started)).toMatch(/Starting \*Recover from NOSPACE\* on \*local\*/);

    // A small database must not wait out a fixed pause: writes back within 20 s of the confirmation for a small database (it was 72 s with
    // the fixed 36 s pause); each member goes once the previous one is ready again.
    await h.chat.waitFor((c) => finished(c) !== undefined, 20_000);
    expect(Date.now() - pressed).toBeLessThan(20_000);
    const done = finished(h.chat);
    expect(done?.text).toMatch(/etcd-\d ready after \d+\.\d s: answers, knows the leader, caught up/);
    expect(done?.text).toMatch(/@U0ALICE ran \*?Recover from NOSPACE\*? on \*?local\*?: finished in/);
    expect(done?.text).toMatch(/snapshot of .* saved/);
    expect(done?.text).toMatch(/a write works/);
    // In the report's thread.
    expect(done?.threadTs).toBe(report.threadTs);

    expect((await lab.etcdctl(['alarm', 'list'])).stdout.trim()).toBe('');
    const put = await lab.etcdctl(['put', 'after-recovery', 'ok']);
    expect(put.code).toBe(0);
    // Mode 0600, the fresh one and the newest other of this cluster kept, the thread says where it is.
    const files = (await readdir(h.snapshotDir)).sort();
    expect(files).toEqual([
      expect.stringMatching(/^local-20[2-8]\d-.*\.db$/),
      'local-2099-01-01T00-00-00-000Z.db',
      'local-eu-2030-01-01T00-00-00-000Z.db',
      'local-eu-2030-01-02T00-00-00-000Z.db',
      'other-2020-01-01T00-00-00-000Z.db',
    ]);
    const fresh = files[0] ?? '';
    expect((await stat(join(h.snapshotDir, fresh))).mode & 0o777).toBe(0o600);
    expect(done?.text).toContain(`saved on ${hostname()}: ${join(h.snapshotDir, fresh)}`);
    expect(done?.text).toMatch(/mode 600; keeping the newest 2 of local there, 2 older removed/);

    const events = (await h.audit()).map((r) => r.event);
    expect(events).toEqual(['confirm-shown', 'confirmed', 'started', 'finished']);
  }, 120_000);

  it('guards quorum again before each defragment: a member that died during the snapshot stops it', async () => {
    (h.chat.messages as unknown[]).length = 0;
    const anchor = await h.anchor();
    const [confirm] = await h.chat.click(anchor, await h.button('recover-nospace', {}), { user: ALICE });
    // A follower: the leader is the snapshot's source, whose death fails the compaction instead.
    const leader = await lab.leaderName();
    const victim = lab.members.map((m) => m.name).find((n) => n !== leader) ?? 'etcd-3';
    killAfterSnapshot = victim;
    try {
      await h.chat.click(anchor, runItButton(confirm), { user: ALICE });
      await h.chat.waitFor((c) => finished(c) !== undefined, 60_000);
      const done = finished(h.chat)?.text ?? '';
      expect(killAfterSnapshot).toBeUndefined();
      expect(done).toMatch(
        /failed in .*refusing to defragment etcd-\d: the cluster has quorum of 2 and 2 healthy members/,
      );
      expect(done).toContain(`${victim} did not answer Status`);
      // No member was defragmented.
      expect(done).not.toMatch(/: db .* → /);
    } finally {
      await lab.restart(victim);
    }
  }, 90_000);
});
