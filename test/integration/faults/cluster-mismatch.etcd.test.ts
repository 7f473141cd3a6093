import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { configFileSchema } from '../../../src/config/schema.js';
import { createDoctor, type Doctor } from '../../../src/doctor.js';
import { cliInProcess } from '../../support/process/cli-in-process.js';
import { type EtcdLab, startEtcdLab } from '../../support/lab/etcd-lab.js';

/**
 * A second, single-member etcd (another cluster, its own cluster ID) listed among the endpoints of
 * a real 3-member lab, as when a member was re-created with `--initial-cluster-state new` or a URL
 * in the config points at the wrong cluster: Status names its cluster ID, and the member list of the
 * real cluster does not hold it.
 */
describe('cluster-mismatch, live: a member of another cluster among the endpoints', () => {
  let main: EtcdLab;
  let other: EtcdLab;
  let doctor: Doctor;
  beforeAll(async () => {
    [main, other] = await Promise.all([startEtcdLab(), startEtcdLab({ size: 1 })]);
    const config = configFileSchema.parse({
      clusters: [
        {
          name: 'lab',
          etcd: {
            endpoints: [...main.endpoints, ...other.endpoints],
            metricsUrls: [...main.metricsUrls, ...other.metricsUrls],
          },
        },
      ],
      probes: { timeoutMs: 3000, metricsWindowMs: 3000 },
    });
    doctor = createDoctor({ config, readFileBuffer: (p) => readFile(p) });
  });
  afterAll(async () => {
    await doctor?.close();
    await Promise.all([main?.destroy(), other?.destroy()]);
  });

  it('names the endpoint that answers for another cluster, with the fix in one line', async () => {
    const report = await doctor.run('lab', 'diagnose');
    const stranger = other.endpoints[0]?.replace(/^https?:\/\//, '') ?? '';
    expect(report.status).toBe('critical');
    expect(report.findings[0]).toMatchObject({
      cause: 'cluster-mismatch',
      severity: 'critical',
      members: [stranger],
    });
    expect(report.findings[0]?.summary).toMatch(
      new RegExp(
        `^${stranger} answers for another cluster \\(cluster ID [0-9a-f]+\\) and is not in this cluster's member list$`,
      ),
    );
    expect(report.findings[0]?.evidence[0]).toMatch(
      new RegExp(`^cluster IDs from Status: etcd-1, etcd-2 and etcd-3 [0-9a-f]+; ${stranger} [0-9a-f]+$`),
    );
    expect(report.findings[0]?.remediation).toHaveLength(1);
    expect(report.findings[0]?.remediation[0]).toMatch(/^Take .* out of this cluster's endpoints/);
    // The three real members answer and are not called down; the stranger is not "down" either.
    expect(report.members.filter((m) => m.reachable).map((m) => m.name)).toEqual(
      expect.arrayContaining(['etcd-1', 'etcd-2', 'etcd-3', stranger]),
    );
    expect(report.findings.map((f) => f.cause)).not.toContain('member-down');
    expect(report.findings.map((f) => f.cause)).not.toContain('quorum-lost');
  });

  it('the stranger answering MemberList first is still the one named, never a member of this cluster', async () => {
    // The three real members paused for half a second (under an election timeout): only the stranger
    // can answer MemberList at first. Its list is of its own cluster (its one member is called etcd-1
    // too), and taking the first answer named this cluster's members as the strangers.
    const names = main.members.map((m) => m.name);
    await Promise.all(names.map((name) => main.stop(name)));
    let running: Promise<Awaited<ReturnType<Doctor['run']>>> | undefined;
    try {
      running = doctor.run('lab', 'diagnose');
      await new Promise((r) => setTimeout(r, 500));
    } finally {
      await Promise.all(names.map((name) => main.cont(name)));
    }
    const report = await running;
    const stranger = other.endpoints[0]?.replace(/^https?:\/\//, '') ?? '';
    expect(report.findings[0]).toMatchObject({ cause: 'cluster-mismatch', members: [stranger] });
    expect(report.members.map((m) => m.name).sort()).toEqual(['etcd-1', 'etcd-2', 'etcd-3', stranger].sort());
  });

  it('without the stranger the same cluster is not a mismatch', async () => {
    const config = configFileSchema.parse({
      clusters: [{ name: 'lab', etcd: { endpoints: main.endpoints, metricsUrls: main.metricsUrls } }],
      probes: { timeoutMs: 3000, metricsWindowMs: 3000 },
    });
    const alone = createDoctor({ config, readFileBuffer: (p) => readFile(p) });
    try {
      const report = await alone.run('lab', 'diagnose');
      expect(report.findings.map((f) => f.cause)).not.toContain('cluster-mismatch');
    } finally {
      await alone.close();
    }
  });

  it('the logs both clusters write when one dials a member of the other name the stranger', async () => {
    // A learner added with the stranger's peer URL: the leader streams to that URL, and the process
    // there belongs to another cluster. Learners are not voters: the cluster keeps its quorum.
    const stray = other.members[0];
    if (!stray) throw new Error('the second lab has one member');
    const added = await main.etcdctl(['member', 'add', 'stray', '--learner', `--peer-urls=${stray.peerUrl}`]);
    expect(added.code).toBe(0);
    const mismatches = () => ({
      theirs: count(other.logs(stray.name), 'request cluster ID mismatch'),
      ours: main.members.reduce((n, m) => n + count(main.logs(m.name), 'due to cluster ID mismatch'), 0),
    });
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline && (mismatches().theirs < 3 || mismatches().ours < 3))
      await new Promise((r) => setTimeout(r, 250));
    expect(Math.min(mismatches().theirs, mismatches().ours)).toBeGreaterThanOrEqual(3);
    const dir = await mkdtemp(join(tmpdir(), 'etcd-doctor-mismatch-'));
    try {
      const files = await Promise.all(
        [...main.members.map((m) => [m.name, main.logs(m.name)]), ['stray', other.logs(stray.name)]].map(
          async ([name, text]) => {
            const path = join(dir, `${name}.log`);
            await writeFile(path, text ?? '');
            return path;
          },
        ),
      );
      const r = await cliInProcess(['analyze', ...files, '--json']);
      const report = JSON.parse(r.stdout) as {
        findings: Array<{ cause: string; members: string[]; summary: string; remediation: string[] }>;
      };
      // Both sides logged the mismatch: the one whose own cluster ID is not the majority's is the stranger.
      expect(report.findings[0]).toMatchObject({ cause: 'cluster-mismatch', members: ['stray'] });
      expect(report.findings[0]?.summary).toMatch(
        // The members that had logged it when the logs were read (the leader at least).
        /^stray belongs to another cluster than etcd-\d((, etcd-\d)* and etcd-\d)?: /,
      );
      expect(report.findings[0]?.remediation).toHaveLength(1);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

function count(log: string, text: string): number {
  return log.split('\n').filter((l) => l.includes(text)).length;
}
