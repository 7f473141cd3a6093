import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { stringify } from 'yaml';
import type { RecoveryPlanJson } from '../../../src/lifecycle/recovery-plan.js';
import { type EtcdLab, startEtcdLab } from '../../support/lab/etcd-lab.js';
import { cliProcess } from '../../support/process/cli-process.js';

const cli = (args: string[]) => cliProcess(args, { env: {}, timeoutMs: 60_000 });
const KEYS = 25;
/** A learner is promoted once it has caught up; the lab's catch up takes a second or two. */
const PROMOTE_DEADLINE_MS = 30_000;

/**
 * A 3-member lab loses two members and their data dirs: `etcd-doctor recover` names the survivor
 * and its revision, and the test follows the plan's steps on the lab (force-new-cluster, then the
 * others back one at a time as learners, promoted) until three voters hold every key.
 */
describe('etcd-doctor recover', () => {
  let lab: EtcdLab;
  let dir: string;
  let config: string;

  beforeAll(async () => {
    lab = await startEtcdLab();
    dir = await mkdtemp(join(tmpdir(), 'etcd-doctor-recover-'));
    config = join(dir, 'etcd-doctor.yaml');
    await writeFile(
      config,
      stringify({
        clusters: [{ name: 'lab', etcd: { endpoints: lab.endpoints, metricsUrls: lab.metricsUrls } }],
        probes: { timeoutMs: 2000, metricsWindowMs: 1000 },
      }),
    );
    for (let i = 0; i < KEYS; i++) {
      const put = await lab.etcdctl(['put', `/registry/keys/k${i}`, `v${i}`]);
      expect(put.code).toBe(0);
    }
  });
  afterAll(async () => {
    await lab?.destroy();
    await rm(dir, { recursive: true, force: true });
  });

  it('a cluster with quorum: one line saying recover is for a lost quorum, exit 2', async () => {
    const res = await cli(['recover', 'lab', '--config', config]);
    expect(res.code).toBe(2);
    expect(res.stderr.trim().split('\n')).toHaveLength(1);
    expect(res.stderr).toContain(
      'recover is for a cluster that lost quorum. Run etcd-doctor diagnose lab instead',
    );
  });

  it('two members and their data gone: the plan names the survivor and its revision; followed, three voters hold every key', async () => {
    const survivor = lab.members[0];
    if (!survivor) throw new Error('no member');
    const e1 = survivor.clientUrl;
    const revision = await revisionOf(lab, e1);
    for (const name of ['etcd-2', 'etcd-3']) await lab.wipe(name);
    await untilUnhealthy(lab, e1);

    const res = await cli(['recover', 'lab', '--json', '--config', config]);
    expect(res.code).toBe(1);
    const plan = JSON.parse(res.stdout) as RecoveryPlanJson;
    expect(plan.restoreFrom).toMatchObject({ member: 'etcd-1', source: 'member', revision });
    expect(plan.candidates.filter((c) => c.source === 'down').map((c) => c.member)).toEqual([
      'etcd-2',
      'etcd-3',
    ]);
    expect(plan.dataAtRisk).toContain(`Restoring from etcd-1 keeps revision ${revision}.`);
    const force = plan.steps.find((s) => s.command.includes('--force-new-cluster'));
    expect(force?.on).toBe('etcd-1');
    expect(
      plan.steps.filter((s) => /member add etcd-[23] --learner/.test(s.command)).map((s) => s.on),
    ).toEqual(['etcd-1', 'etcd-1']);

    // The steps, as an operator runs them: etcd-1 once with --force-new-cluster, checked, then as usual.
    await lab.restartWith('etcd-1', ['--force-new-cluster']);
    expect((await memberList(lab, e1)).length).toBe(1);
    expect(await revisionOf(lab, e1)).toBeGreaterThanOrEqual(revision);
    await lab.restartWith('etcd-1', []);
    for (const name of ['etcd-2', 'etcd-3']) await addBack(lab, e1, name);

    const members = await memberList(lab, e1);
    expect(members.map((m) => m.name).sort()).toEqual(['etcd-1', 'etcd-2', 'etcd-3']);
    expect(members.every((m) => !m.isLearner)).toBe(true);
    for (const endpoint of lab.endpoints) {
      const got = await lab.etcdctl([
        `--endpoints=${endpoint}`,
        'get',
        '/registry/keys/',
        '--prefix',
        '-w',
        'json',
      ]);
      // Every key on every member, its value as written (etcdctl's JSON gives keys and values in base64).
      const kvs = (JSON.parse(got.stdout) as { kvs?: Array<{ key: string; value: string }> }).kvs ?? [];
      const values = new Map(
        kvs.map((kv) => [
          Buffer.from(kv.key, 'base64').toString(),
          Buffer.from(kv.value, 'base64').toString(),
        ]),
      );
      expect(values.size).toBe(KEYS);
      for (let i = 0; i < KEYS; i++) expect(values.get(`/registry/keys/k${i}`)).toBe(`v${i}`);
    }
  });
});

/** Until etcd-1 stops serving linearizable reads (it lost its peers), at most 20 s. */
async function untilUnhealthy(lab: EtcdLab, endpoint: string): Promise<void> {
  const giveUpAt = Date.now() + 20_000;
  while (Date.now() < giveUpAt) {
    const res = await lab.etcdctl([`--endpoints=${endpoint}`, 'endpoint', 'health', '--command-timeout=1s'], {
      timeoutMs: 5000,
    });
    if (res.code !== 0) return;
    await sleep(200);
  }
  throw new Error(`${endpoint} still serves linearizable reads 20 s after its peers were wiped`);
}

async function revisionOf(lab: EtcdLab, endpoint: string): Promise<number> {
  const res = await lab.etcdctl([`--endpoints=${endpoint}`, 'endpoint', 'status', '-w', 'json']);
  const [status] = JSON.parse(res.stdout) as Array<{ Status: { header: { revision: number } } }>;
  return status?.Status.header.revision ?? -1;
}

async function memberList(
  lab: EtcdLab,
  endpoint: string,
): Promise<Array<{ name: string; isLearner: boolean }>> {
  const res = await lab.etcdctl([`--endpoints=${endpoint}`, 'member', 'list', '-w', 'json']);
  const parsed = JSON.parse(res.stdout) as { members?: Array<{ name?: string; isLearner?: boolean }> };
  return (parsed.members ?? []).map((m) => ({ name: m.name ?? '', isLearner: m.isLearner === true }));
}

/** The plan's add-back steps for one member: member add --learner, start it joining, promote. */
async function addBack(lab: EtcdLab, e1: string, name: string): Promise<void> {
  const peerUrl = lab.member(name).peerUrl;
  // Right after a restart etcd refuses membership changes for a while (--strict-reconfig-check:
  // `unhealthy cluster`), as the lab's own addLearner retries.
  const addBy = Date.now() + PROMOTE_DEADLINE_MS;
  let added = await lab.etcdctl([
    `--endpoints=${e1}`,
    'member',
    'add',
    name,
    '--learner',
    `--peer-urls=${peerUrl}`,
  ]);
  while (
    added.code !== 0 &&
    /unhealthy cluster|timed out|leader changed|deadline exceeded/i.test(added.stderr)
  ) {
    if (Date.now() > addBy) break;
    await sleep(500);
    added = await lab.etcdctl([
      `--endpoints=${e1}`,
      'member',
      'add',
      name,
      '--learner',
      `--peer-urls=${peerUrl}`,
    ]);
  }
  expect(added.stderr).toBe('');
  expect(added.code).toBe(0);
  // etcdctl prints the id with %16x: an id under 16 hex digits is padded with spaces.
  const id = /Member\s+([0-9a-f]+)\s+added/.exec(added.stdout)?.[1] ?? '';
  expect(id).toMatch(/^[0-9a-f]{1,16}$/);
  const initialCluster = /ETCD_INITIAL_CLUSTER="([^"]+)"/.exec(added.stdout)?.[1] ?? '';
  await lab.join(name, initialCluster);
  const giveUpAt = Date.now() + PROMOTE_DEADLINE_MS;
  for (;;) {
    const promoted = await lab.etcdctl([`--endpoints=${e1}`, 'member', 'promote', id]);
    if (promoted.code === 0) return;
    if (Date.now() > giveUpAt) throw new Error(`promote ${name}: ${promoted.stderr}`);
    await sleep(500);
  }
}
