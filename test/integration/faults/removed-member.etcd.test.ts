import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { cliInProcess } from '../../support/process/cli-in-process.js';
import { type EtcdLab, startEtcdLab } from '../../support/lab/etcd-lab.js';

const WAIT_MS = 30_000;

/**
 * A member that is none any more, for real, its logs through `etcd-doctor analyze`: etcd-3 removed
 * with `etcdctl member remove`, then started again on its data dir (a static pod kubelet keeps
 * restarting; its peers refuse its streams and it stops itself); and etcd-3's data dir wiped, then
 * started again as a founding member (`--initial-cluster-state new`: already bootstrapped).
 */
describe('a removed member started again, from the logs real etcd wrote', () => {
  let lab: EtcdLab;
  let dir: string;
  beforeAll(async () => {
    [lab, dir] = await Promise.all([startEtcdLab(), mkdtemp(join(tmpdir(), 'etcd-doctor-removed-'))]);
  });
  afterAll(async () => {
    await lab?.destroy();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('names etcd-3 as removed but running, with one step: stop it and clear its data dir', async () => {
    const list = await lab.etcdctl(['member', 'list', '-w', 'json', `--endpoints=${lab.endpoints[0]}`]);
    const members = (JSON.parse(list.stdout) as { members: Array<{ ID: number | string; name: string }> })
      .members;
    const raw = /"ID":\s*(\d+)[^}]*"name":\s*"etcd-3"/.exec(list.stdout)?.[1];
    expect(members.map((m) => m.name)).toContain('etcd-3');
    if (!raw) throw new Error('etcd-3 is not in the member list');
    const id = BigInt(raw).toString(16);
    // etcd refuses a removal while a member has been active for less than 5 s ("unhealthy cluster").
    const remove = () => lab.etcdctl(['member', 'remove', id, `--endpoints=${lab.endpoints[0]}`]);
    let removal = await remove();
    for (let i = 0; i < 30 && removal.code !== 0 && /unhealthy cluster/.test(removal.stderr); i++) {
      await new Promise((r) => setTimeout(r, 500));
      removal = await remove();
    }
    expect({ code: removal.code, stderr: removal.stderr }).toEqual({ code: 0, stderr: '' });
    // Whatever the removed member did on hearing it, start it again on its data dir.
    const restarted = lab.restart('etcd-3').then(
      () => 'serving',
      () => 'not serving',
    );
    const removedSeen = () => lab.logs('etcd-3').includes('permanently removed from the cluster');
    const refusedSeen = () =>
      ['etcd-1', 'etcd-2'].some((m) => lab.logs(m).includes('because it was removed'));
    const deadline = Date.now() + WAIT_MS;
    while (Date.now() < deadline && !(removedSeen() && refusedSeen()))
      await new Promise((r) => setTimeout(r, 250));
    expect({ removed: removedSeen(), refused: refusedSeen() }).toEqual({ removed: true, refused: true });
    await restarted;
    const files = await Promise.all(
      lab.members.map(async (m) => {
        const path = join(dir, `${m.name}.log`);
        await writeFile(path, lab.logs(m.name));
        return path;
      }),
    );
    const r = await cliInProcess(['analyze', ...files, '--json']);
    const report = JSON.parse(r.stdout) as {
      findings: Array<{ cause: string; members: string[]; summary: string; remediation: string[] }>;
    };
    expect(report.findings[0]).toMatchObject({ cause: 'cluster-mismatch', members: ['etcd-3'] });
    expect(report.findings[0]?.summary).toBe('etcd-3 was removed from the cluster but still runs');
    // Its failed dials are its own removal, not its peers gone: etcd-1 and etcd-2 are not called down.
    for (const f of report.findings) expect(f.members).not.toEqual(expect.arrayContaining(['etcd-1']));
    for (const f of report.findings) expect(f.members).not.toEqual(expect.arrayContaining(['etcd-2']));
    expect(report.findings[0]?.remediation).toEqual([
      expect.stringMatching(/^Stop etcd-3 for good and move its data dir aside/),
    ]);
  }, 90_000);

  it('a wiped data dir started as new: "has already been bootstrapped", its data is gone', async () => {
    // A fresh lab: etcd-3 of the first test is no member any more.
    const fresh = await startEtcdLab();
    try {
      const member = fresh.member('etcd-3');
      await fresh.kill('etcd-3');
      await rm(member.dataDir, { recursive: true, force: true });
      // The founding members start with --initial-cluster-state new: on an empty data dir etcd asks
      // its peers, finds itself already started, and exits.
      const restarted = fresh.restart('etcd-3').then(
        () => 'serving',
        () => 'not serving',
      );
      const deadline = Date.now() + WAIT_MS;
      while (Date.now() < deadline && !fresh.logs('etcd-3').includes('has already been bootstrapped'))
        await new Promise((r) => setTimeout(r, 250));
      expect(fresh.logs('etcd-3')).toContain('has already been bootstrapped');
      expect(await restarted).toBe('not serving');
      const files = await Promise.all(
        fresh.members.map(async (m) => {
          const path = join(dir, `fresh-${m.name}.log`);
          await writeFile(path, fresh.logs(m.name));
          return path;
        }),
      );
      const r = await cliInProcess(['analyze', ...files, '--json']);
      const report = JSON.parse(r.stdout) as {
        findings: Array<{ cause: string; members: string[]; summary: string; remediation: string[] }>;
      };
      expect(report.findings[0]).toMatchObject({ cause: 'cluster-mismatch', members: ['fresh-etcd-3'] });
      expect(report.findings[0]?.summary).toMatch(/^fresh-etcd-3 cannot start: its data dir holds no WAL/);
      expect(report.findings[0]?.remediation).toEqual([
        expect.stringMatching(/^Check fresh-etcd-3's --data-dir/),
      ]);
    } finally {
      await fresh.destroy();
    }
  }, 90_000);
});
