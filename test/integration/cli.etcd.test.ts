import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { stringify } from 'yaml';
import { memberColors } from '../../src/charts/member-colors.js';
import { type EtcdLab, startEtcdLab } from '../support/lab/etcd-lab.js';
import { decodePng, drawnTop } from '../support/chat/png-pixels.js';
import { aboutTheCluster } from '../support/evidence/findings.js';
import { CLI_BIN, cliProcess } from '../support/process/cli-process.js';

const cli = (args: string[], env: Record<string, string> = {}) =>
  cliProcess(args, { env, timeoutMs: 30_000 });

/** The CLI as a user runs it: a real process, a real config file, a real cluster. */
describe('etcd-doctor CLI', () => {
  let lab: EtcdLab;
  let dir: string;
  let config: string;

  beforeAll(async () => {
    lab = await startEtcdLab();
    dir = await mkdtemp(join(tmpdir(), 'etcd-doctor-cli-'));
    config = join(dir, 'etcd-doctor.yaml');
    await writeFile(
      config,
      stringify({
        clusters: [
          { name: 'local', etcd: { endpoints: lab.endpoints, metricsUrls: lab.metricsUrls } },
          { name: 'other', etcd: { endpoints: ['http://127.0.0.1:1'] } },
        ],
        probes: { timeoutMs: 2000, metricsWindowMs: 1000 },
      }),
    );
  });
  afterAll(async () => {
    await lab?.destroy();
    await rm(dir, { recursive: true, force: true });
  });

  it('health prints the member table and exits 0 when healthy', async () => {
    const res = await cli(['health', 'local', '--config', config]);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/^Health of local: HEALTHY/);
    expect(res.stdout).toMatch(/MEMBER\s+ENDPOINT\s+ROLE\s+TOOK\s+DB SIZE\s+FSYNC P99/);
    for (const name of ['etcd-1', 'etcd-2', 'etcd-3']) expect(res.stdout).toContain(name);
    expect(res.stdout).toContain('No problems found.');
  });

  it('diagnose --json follows the contract, and ETCD_DOCTOR_CONFIG is honoured', async () => {
    const res = await cli(['diagnose', 'local', '--json'], { ETCD_DOCTOR_CONFIG: config });
    expect(res.code).toBe(0);
    const report = JSON.parse(res.stdout) as Record<string, unknown>;
    expect(Object.keys(report)).toEqual(
      expect.arrayContaining(['cluster', 'status', 'durationMs', 'members', 'findings', 'probes']),
    );
    expect(report).toMatchObject({ cluster: 'local', status: 'healthy' });
    expect(aboutTheCluster(report.findings as Array<{ cause: string }>)).toEqual([]);
    const members = report.members as Array<Record<string, unknown>>;
    expect(members).toHaveLength(3);
    for (const m of members) {
      expect(Object.keys(m)).toEqual(
        expect.arrayContaining([
          'name',
          'endpoint',
          'id',
          'reachable',
          'isLeader',
          'tookMs',
          'dbSizeBytes',
          'dbSizeInUseBytes',
        ]),
      );
    }
    const probes = report.probes as Array<Record<string, unknown>>;
    expect(probes.length).toBeGreaterThanOrEqual(14);
    for (const p of probes) expect(Object.keys(p).sort()).toEqual(['durationMs', 'error', 'name', 'ok']);
  });

  it('a killed leader exits 1 and is named member-down, not quorum-lost, while the others elect a new one', async () => {
    // Right after the kill the other two answer with no leader until they elect one (1-2 s): the
    // check waits for that election instead of calling it a lost quorum (probes/election.ts).
    const victim = (await lab.leaderName()) ?? 'etcd-1';
    await lab.kill(victim);
    try {
      const res = await cli(['diagnose', 'local', '--config', config]);
      expect(res.code).toBe(1);
      expect(res.stdout).toMatch(new RegExp(`Root cause: member-down \\[critical\\] on ${victim}`));
    } finally {
      await lab.restart(victim);
    }
  });

  it('diagnose --explain prints every rule with its numbers', async () => {
    const res = await cli(['diagnose', 'local', '--config', config, '--explain']);
    expect(res.stdout).toContain('Rules:');
    expect(res.stdout).toMatch(/quiet\s+slow-disk\n\s+etcd-1: wal fsync p99/);
    expect(res.stdout).toMatch(
      /quiet\s+quorum-lost\n\s+3 of 3 voting members take part in consensus, 0 are out, 0 unknown; quorum is 2/,
    );
  });

  it('diagnose --chart FILE writes a PNG in which the slow member stands out; --json stays pure JSON', async () => {
    const leader = await lab.leaderName();
    const victim = lab.members.map((m) => m.name).find((n) => n !== leader) ?? 'etcd-2';
    const chart = join(dir, 'chart.png');
    const slow = await lab.slowDisk(victim, 100_000);
    try {
      const load = lab.writeLoad({ ratePerSecond: 60, durationMs: 4000, valueBytes: 256 });
      const res = await cli(['diagnose', 'local', '--config', config, '--json', '--chart', chart]);
      await load;
      expect(res.code).toBe(1);
      // observer-load (an info finding about this loaded CI host's own CLI process) may come too.
      // Symptoms of it (slow-reads under the write load) may come too, linked to it.
      const { findings } = JSON.parse(res.stdout) as {
        findings: Array<{ cause: string; causedBy?: string }>;
      };
      const [root, ...others] = aboutTheCluster(findings);
      expect(root).toMatchObject({ cause: 'slow-disk', members: [victim] });
      expect(others.filter((f) => f.causedBy !== 'slow-disk').map((f) => f.cause)).toEqual([]);
      expect(res.stderr.trim()).toMatch(
        new RegExp(
          `^chart: wrote ${chart} \\(local: wal fsync p99 per member \\(${victim} above 10 ms\\), \\d+x\\d+ PNG\\)$`,
        ),
      );
    } finally {
      await slow.stop();
    }
    const img = decodePng(await readFile(chart));
    const names = lab.members.map((m) => m.name);
    const colors = memberColors(names, [victim]);
    const top = (member: string) => drawnTop(img, colors[member], undefined, `line of ${member}`);
    for (const other of names.filter((n) => n !== victim)) expect(top(victim)).toBeLessThan(top(other) - 100);
  });

  it('diagnose --chart into a folder that does not exist says so, and the diagnosis still prints', async () => {
    const res = await cli([
      'diagnose',
      'local',
      '--config',
      config,
      '--chart',
      join(dir, 'missing', 'c.png'),
    ]);
    // The exit code is the diagnosis's: the slow disk above was removed, and a disk slow only in the
    // since-start figures is told as the past (info), so the cluster is healthy now.
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/^Diagnosis of local: /);
    expect(res.stderr).toMatch(/^chart: could not write .*missing\/c\.png: .*ENOENT/);
  });

  it('an unknown cluster lists the known ones, exit 2', async () => {
    const res = await cli(['health', 'prod', '--config', config]);
    expect(res.code).toBe(2);
    expect(res.stderr.trim()).toBe('etcd-doctor: unknown cluster "prod"; known clusters: local, other');
  });

  it('a bad config names the field, exit 2, one line', async () => {
    const bad = join(dir, 'bad.yaml');
    await writeFile(
      bad,
      'clusters:\n  - name: a\n    etcd: { endpoints: [http://127.0.0.1:1] }\n  - name: b\n    etcd: { endpoints: [nope] }\n',
    );
    const res = await cli(['health', 'a', '--config', bad]);
    expect(res.code).toBe(2);
    expect(res.stderr.trim()).toBe(`etcd-doctor: ${bad}: clusters[1].etcd.endpoints[0]: not a URL`);
  });

  it('usage errors exit 2 with a hint', async () => {
    const res = await cli(['diagnose']);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain("missing required argument 'cluster'");
    const unknown = await cli(['frobnicate']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown command 'frobnicate'");
  });

  it('a reader that closed its end early (`| head`) ends the command quietly, not with a stack trace', async () => {
    // The pipe's read end is closed before the CLI writes, so its first write fails with EPIPE.
    const child = spawn('node', [CLI_BIN, '--help'], {
      env: { ...process.env, NODE_OPTIONS: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const [code] = (await once(child, 'close')) as [number | null];
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  });
});
