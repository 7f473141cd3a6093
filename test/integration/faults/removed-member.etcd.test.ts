import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { cliInProcess } from '../../support/cli-in-process.js';
import { type EtcdLab, startEtcdLab } from '../../support/lab/etcd-lab.js';

const WAIT_MS = 30_000;

/**
 * A removed member still running, for real: etcd-3 is removed with `etcdctl member remove`, then
 * started again on its data dir (a static pod kubelet keeps restarting). Its peers refuse its
 * streams as a removed member's and it stops itself; the logs go through `etcd-doctor analyze`.
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
});
