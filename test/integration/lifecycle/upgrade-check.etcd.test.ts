import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { stringify } from 'yaml';
import type { UpgradeCheckJson } from '../../../src/lifecycle/upgrade-check.js';
import { type EtcdLab, startEtcdLab } from '../../support/lab/etcd-lab.js';
import { cliProcess } from '../../support/process/cli-process.js';

const cli = (args: string[]) => cliProcess(args, { env: {}, timeoutMs: 60_000 });

/**
 * `etcd-doctor upgrade-check` on a real lab run with `--enable-v2=true` and keys written through
 * the v2 API (Debian's 3.4.23, or 3.5.30 with ETCD_VERSION=3.5): the v2 data blocks 3.6, and a
 * target two minors ahead is told to go through the one between.
 */
describe('etcd-doctor upgrade-check', () => {
  let lab: EtcdLab;
  let dir: string;
  let config: string;
  let minor: string;

  beforeAll(async () => {
    lab = await startEtcdLab({ extraArgs: ['--enable-v2=true'] });
    dir = await mkdtemp(join(tmpdir(), 'etcd-doctor-upgrade-'));
    config = join(dir, 'etcd-doctor.yaml');
    await writeFile(
      config,
      stringify({
        clusters: [{ name: 'lab', etcd: { endpoints: lab.endpoints, metricsUrls: lab.metricsUrls } }],
        probes: { timeoutMs: 2000, metricsWindowMs: 1000 },
      }),
    );
    // Two keys through the v2 API (a form PUT, as etcdctl v2's `set` sends).
    for (const [key, value] of [
      ['legacy-config', 'a'],
      ['flannel', 'b'],
    ]) {
      const res = await fetch(`${lab.endpoints[0]}/v2/keys/${key}`, {
        method: 'PUT',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: `value=${value}`,
      });
      expect(res.status).toBeLessThan(300);
    }
    const version = await lab.etcdctl(['version']);
    minor = /etcdctl version: (\d+\.\d+)/.exec(version.stdout)?.[1] ?? '';
  });
  afterAll(async () => {
    await lab?.destroy();
    await rm(dir, { recursive: true, force: true });
  });

  it('--to 3.6 with v2 keys: NOT READY, naming the v2 data on the members and etcdutl check v2store', async () => {
    const res = await cli(['upgrade-check', 'lab', '--to', '3.6', '--json', '--config', config]);
    expect(res.code).toBe(1);
    const verdict = JSON.parse(res.stdout) as UpgradeCheckJson;
    expect(verdict).toMatchObject({ cluster: 'lab', target: '3.6', ready: false });
    const v2 = verdict.blockers.find((b) => b.check === 'v2-store');
    expect(v2?.members.sort()).toEqual(['etcd-1', 'etcd-2', 'etcd-3']);
    expect(v2?.summary).toMatch(/^The v2 API answers with data: etcd-\d lists 2 top-level v2 keys/);
    expect(v2?.fix).toContain('etcdutl check v2store --data-dir');
    expect(verdict.blockers.find((b) => b.check === 'backup')?.summary).toMatch(/no backups in its config/);
  });

  it('two minors ahead: told to go through the one between first', async () => {
    const [major, n] = minor.split('.').map(Number);
    const next = `${major}.${(n ?? 0) + 1}`;
    const skip = `${major}.${(n ?? 0) + 2}`;
    const res = await cli(['upgrade-check', 'lab', '--to', skip, '--config', config]);
    expect(res.code).toBe(1);
    expect(res.stdout).toMatch(new RegExp(`^Upgrade check of lab to etcd ${skip}: NOT READY`));
    expect(res.stdout).toContain(`Blocker: one-minor on etcd-1, etcd-2, etcd-3`);
    expect(res.stdout).toContain(
      `Fix: Upgrade to ${next} first (its newest patch), then to ${skip}: etcd-doctor upgrade-check lab --to ${next}`,
    );
  });

  it('bad input: one line, exit 2', async () => {
    const bad = await cli(['upgrade-check', 'lab', '--to', '4.0', '--config', config]);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toContain(
      '"4.0" is not an etcd minor etcd-doctor knows: use --to with one of 3.4, 3.5, 3.6, 3.7',
    );
    const unknown = await cli(['upgrade-check', 'nope', '--to', '3.6', '--config', config]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown cluster "nope"; known clusters: lab');
  });
});
