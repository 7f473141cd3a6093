import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Etcd3 } from 'etcd3';
import { stringify } from 'yaml';
import { configFileSchema } from '../../../src/config/schema.js';
import { createDoctor } from '../../../src/doctor.js';
import { silentLogger } from '../../../src/logger.js';
import { createMcpServer } from '../../../src/mcp/create-mcp-server.js';
import { mcpOfflineAnalysis } from '../../../src/offline/mcp-analysis.js';
import type { SnapshotReport } from '../../../src/offline/snapshot/analyze-snapshot.js';
import type { SpaceReport } from '../../../src/space/space-report.js';
import { cliInProcess } from '../../support/process/cli-in-process.js';
import { startFakeKubeApi } from '../../support/kube/fake-kube-api.js';
import { writeFakeKubeconfig } from '../../support/kube/fake-kubeconfig.js';
import { loadKubeFixture } from '../../support/kube/kube-fixtures.js';
import { type EtcdLab, startEtcdLab } from '../../support/lab/etcd-lab.js';

/**
 * What fills etcd, measured live on a real 3-member lab holding Kubernetes-shaped keys: events
 * (many, small), pods, configmaps (one of 300 kB), a custom resource widgets.example.com (few,
 * large) and one key outside the layout. Expectations come from etcd itself (a full range of every
 * key), the members' own /metrics (which member served the ranges) and `etcdctl`.
 */

const BIG_KEY = '/registry/configmaps/kube-system/big-bundle';
const BIG_BYTES = 300_000;

/** The resource each key prefix is, as the test wrote them (the layout under test is not used here). */
const RESOURCES: Array<[string, string]> = [
  ['/registry/events/', 'events'],
  ['/registry/configmaps/', 'configmaps'],
  ['/registry/pods/', 'pods'],
  ['/registry/example.com/widgets/', 'widgets.example.com'],
  ['/other/thing/', '/other/thing'],
];

async function writeKeys(client: Etcd3): Promise<void> {
  const fill = (n: number, c: string) => c.repeat(n);
  for (let i = 0; i < 300; i++)
    await client.put(`/registry/events/ns-${i % 5}/ev-${i}`).value(fill(400, 'e'));
  for (let i = 0; i < 60; i++) await client.put(`/registry/pods/ns-${i % 3}/pod-${i}`).value(fill(3000, 'p'));
  for (let i = 0; i < 20; i++)
    await client.put(`/registry/configmaps/ns-${i % 2}/cm-${i}`).value(fill(2000, 'c'));
  await client.put(BIG_KEY).value(`${fill(BIG_BYTES / 2, 'b')}MARKER${fill(BIG_BYTES / 2 - 6, 'b')}`);
  for (let i = 0; i < 5; i++)
    await client.put(`/registry/example.com/widgets/ns-a/w-${i}`).value(fill(40_000, 'w'));
  await client.put('/other/thing/x').value(fill(100, 'o'));
}

type Tally = Map<string, { keys: number; bytes: number }>;

/** What etcd itself holds: every key with its value, per resource. */
async function etcdPerResource(client: Etcd3): Promise<Tally> {
  const all = await client.getAll().prefix('/').buffers();
  const per: Tally = new Map();
  for (const [key, value] of Object.entries(all)) {
    const resource = RESOURCES.find(([p]) => key.startsWith(p))?.[1] ?? 'unexpected';
    const t = per.get(resource) ?? { keys: 0, bytes: 0 };
    per.set(resource, { keys: t.keys + 1, bytes: t.bytes + Buffer.byteLength(key) + value.length });
  }
  return per;
}

const ranked = (per: Tally) =>
  [...per.entries()]
    .sort((a, b) => b[1].bytes - a[1].bytes)
    .map(([resource, t]) => ({ resource, keys: t.keys, bytes: t.bytes }));

/** One counter of a member's /metrics, summed over its label sets. */
async function counter(metricsUrl: string, name: string): Promise<number> {
  const text = await (await fetch(`${metricsUrl}/metrics`)).text();
  return text
    .split('\n')
    .filter((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`))
    .reduce((sum, l) => sum + Number(l.split(/\s+/).at(-1)), 0);
}

let lab: EtcdLab;
let client: Etcd3;
let dir: string;
let configPath: string;

async function revisionNow(): Promise<number> {
  return Number((await client.get('/none').exec()).header.revision);
}

async function space(extra: string[] = []): Promise<{ code: number; report: SpaceReport; stderr: string }> {
  const r = await cliInProcess(['space', 'local', '--config', configPath, '--json', ...extra]);
  if (r.code !== 0 || r.stdout === '') throw new Error(`space exited ${r.code}: ${r.stderr}`);
  return { code: r.code, report: JSON.parse(r.stdout) as SpaceReport, stderr: r.stderr };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'etcd-doctor-space-'));
  lab = await startEtcdLab();
  client = new Etcd3({ hosts: lab.endpoints });
  await writeKeys(client);
  configPath = join(dir, 'etcd-doctor.yaml');
  await writeFile(
    configPath,
    stringify({
      clusters: [
        {
          name: 'local',
          etcd: { endpoints: lab.endpoints, metricsUrls: lab.metricsUrls },
          space: { churnSeconds: 2 },
        },
      ],
    }),
  );
}, 120_000);

afterAll(async () => {
  client?.close();
  await lab?.destroy();
  await rm(dir, { recursive: true, force: true });
});

describe('etcd-doctor space on a real lab', () => {
  it('ranks the resources by bytes and keys as etcd holds them, names the largest object and the custom resource, and reads from a follower only', async () => {
    const leader = await lab.leaderName();
    const ranges = () => Promise.all(lab.metricsUrls.map((u) => counter(u, 'etcd_mvcc_range_total')));
    const before = await ranges();
    const chart = join(dir, 'space.png');
    const { report, stderr } = await space(['--chart', chart]);
    const after = await ranges();
    const expected = await etcdPerResource(client);

    expect(report.cluster).toBe('local');
    expect(report.revision).toBe(await revisionNow());
    expect(report.compactRevision).toBe(0);
    expect(report.totalKeys).toBe(300 + 60 + 21 + 5 + 1);
    expect(report.byResource.map(({ resource, keys, bytes }) => ({ resource, keys, bytes }))).toEqual(
      ranked(expected),
    );
    expect(report.byResource.map((r) => r.resource)).toEqual([
      'configmaps',
      'widgets.example.com',
      'pods',
      'events',
      '/other/thing',
    ]);
    // By keys: events lead, the custom resource is near the bottom.
    expect([...report.byResource].sort((a, b) => b.keys - a.keys).map((r) => r.resource)[0]).toBe('events');
    expect(report.byResource.find((r) => r.resource === 'widgets.example.com')?.prefix).toBe(
      '/registry/example.com/widgets/',
    );
    expect(report.largest[0]).toEqual({
      key: BIG_KEY,
      bytes: BIG_KEY.length + BIG_BYTES,
      resource: 'configmaps',
    });
    expect(report.byNamespace).toContainEqual({
      resource: 'widgets.example.com',
      namespace: 'ns-a',
      keys: 5,
      bytes: 5 * ('/registry/example.com/widgets/ns-a/w-0'.length + 40_000),
    });
    expect(report.totalBytes).toBe([...expected.values()].reduce((n, t) => n + t.bytes, 0));
    expect(report.quota).toBe(2 * 1024 ** 3);
    expect(report.dbSize).toBeGreaterThan(report.totalBytes);
    expect(report.scan).toMatchObject({ complete: true, keysComplete: true, bytesRead: report.totalBytes });

    // Never the leader: its own range counter did not move; the scanned follower's did, by the pages.
    expect(report.scan.member).not.toBe(leader);
    const scanned = lab.members.findIndex((m) => m.name === report.scan.member);
    expect(scanned).toBeGreaterThanOrEqual(0);
    expect(report.scan.endpoint).toBe(lab.endpoints[scanned]);
    lab.members.forEach((m, i) => {
      const delta = (after[i] ?? 0) - (before[i] ?? 0);
      if (i === scanned) expect(delta).toBeGreaterThanOrEqual(3);
      else expect({ member: m.name, ranges: delta }).toEqual({ member: m.name, ranges: 0 });
    });

    expect(stderr).toMatch(
      /chart: wrote \S+space\.png \(local: what fills etcd \(configmaps hold the most, 341 KB\)/,
    );
    const png = await readFile(chart);
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    const alt = /Description\0([^\0]*?)[\s\S]{4}IDAT/.exec(png.toString('latin1'))?.[1];
    expect(alt).toMatch(
      /^Horizontal bar chart of key and value bytes per resource in local's etcd, revision \d+, complete scan: configmaps 341 KB \(40 %\); widgets\.example\.com 200 KB/,
    );
  });

  it('text: the breakdown a person reads, largest resource first', async () => {
    const r = await cliInProcess(['space', 'local', '--config', configPath]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^What fills local: database [\d.]+ [kM]?B of the 2\.1 GB quota \(0 %\)/);
    expect(r.stdout).toMatch(
      /By resource[^\n]*\n {2}configmaps +21 +341 KB +\d+ %\n {2}widgets\.example\.com +5 +200 KB/,
    );
    expect(r.stdout).toContain(`300 KB  ${BIG_KEY}`);
    expect(r.stdout).toMatch(/read from etcd-\d, a follower, .*; complete\./);
  });

  it('churn: events written while it measures are the writes per second', async () => {
    let writing = true;
    let puts = 0;
    const writer = (async () => {
      while (writing && puts < 2000) {
        await client.put(`/registry/events/ns-churn/ev-${puts++ % 50}`).value('x'.repeat(200));
        await new Promise((r) => setTimeout(r, 10));
      }
    })();
    try {
      const { report } = await space();
      expect(report.churnWindow).toMatchObject({ seconds: expect.any(Number), capped: false });
      expect(report.churnWindow.seconds).toBeGreaterThanOrEqual(1.9);
      expect(report.churn[0]?.resource).toBe('events');
      expect(report.churn[0]?.writesPerSecond).toBeGreaterThan(5);
      expect(report.churn.map((c) => c.resource)).not.toContain('pods');
    } finally {
      writing = false;
      await writer;
    }
    await client.delete().prefix('/registry/events/ns-churn/');
  });

  it('revision and compactRevision follow etcdctl compact', async () => {
    const first = await revisionNow();
    expect((await lab.etcdctl(['compact', String(first)])).code).toBe(0);
    const once = (await space()).report;
    expect(once).toMatchObject({ revision: first, compactRevision: first });
    // The member's own gauge agrees (etcd_debugging_mvcc_compact_revision, 3.4 and 3.5).
    const member = lab.members.findIndex((m) => m.name === once.scan.member);
    expect(await counter(lab.metricsUrls[member] ?? '', 'etcd_debugging_mvcc_compact_revision')).toBe(first);

    for (let i = 0; i < 3; i++) await client.put(`/registry/leases/kube-node-lease/n-${i}`).value('l');
    const second = await revisionNow();
    expect((await lab.etcdctl(['compact', String(second - 1)])).code).toBe(0);
    const twice = (await space()).report;
    expect(twice).toMatchObject({ revision: second, compactRevision: second - 1 });
    expect(twice.byResource.find((r) => r.resource === 'leases')).toMatchObject({ keys: 3 });
    await client.delete().prefix('/registry/leases/');
  });

  it('live and a snapshot of the same data agree; a flipped byte in the snapshot is called out (CLI and MCP)', async () => {
    const live = (await space()).report;
    const snap = join(dir, 'snapshot.db');
    const follower = lab.endpoints[lab.members.findIndex((m) => m.name === live.scan.member)] ?? '';
    const saved = await lab.etcdctl(['snapshot', 'save', snap, `--endpoints=${follower}`], {
      timeoutMs: 30_000,
    });
    expect(saved.code).toBe(0);
    const r = await cliInProcess(['analyze', snap, '--json']);
    expect(r.code).toBe(0);
    const offline = JSON.parse(r.stdout) as SnapshotReport;
    expect(offline.snapshot).toMatchObject({
      revision: live.revision,
      totalKeys: live.totalKeys,
      hashOk: true,
    });
    expect(offline.snapshot.compactRevision).toBe(live.compactRevision);
    const pick = (rows: SpaceReport['byResource']) =>
      rows.map(({ resource, keys, bytes, share }) => ({ resource, keys, bytes, share }));
    expect(pick(offline.space.byResource)).toEqual(pick(live.byResource));
    expect(offline.space.largest[0]).toEqual(live.largest[0]);
    expect(offline.space.totalBytes).toBe(live.totalBytes);

    const bytes = await readFile(snap);
    bytes[bytes.indexOf('MARKER')] = 'X'.charCodeAt(0);
    const flipped = join(dir, 'flipped.db');
    await writeFile(flipped, bytes);
    const cli = await cliInProcess(['analyze', flipped]);
    expect(cli.code).toBe(2);
    expect(cli.stderr).toMatch(/flipped\.db is damaged: its SHA-256 trailer does not match/);

    const mcp = await mcpClient();
    const result = (await mcp.callTool({
      name: 'etcd_analyze',
      arguments: { paths: [flipped] },
    })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    const [summary] = result.content as Array<{ type: 'text'; text: string }>;
    expect(summary?.text.split('\n')[0]).toMatch(/^DAMAGED: its SHA-256 trailer does not match its bytes/);
    expect(result.structuredContent).toMatchObject({ kind: 'snapshot', snapshot: { hashOk: false } });
    const good = (await mcp.callTool({
      name: 'etcd_analyze',
      arguments: { paths: [snap] },
    })) as CallToolResult;
    expect(good.structuredContent).toMatchObject({
      kind: 'snapshot',
      snapshot: { hashOk: true, revision: live.revision },
      space: {
        byResource: expect.arrayContaining([expect.objectContaining({ resource: 'widgets.example.com' })]),
      },
    });
    const cut = join(dir, 'cut.db');
    await writeFile(cut, bytes.subarray(0, Math.floor(bytes.length / 2)));
    const truncated = (await mcp.callTool({
      name: 'etcd_analyze',
      arguments: { paths: [cut] },
    })) as CallToolResult;
    expect(truncated.isError).toBe(true);
    expect((truncated.content as Array<{ text: string }>)[0]?.text).toMatch(
      /cut\.db is truncated: its meta page says/,
    );
    await mcp.close();
  });

  it('MCP etcd_space: the same JSON as structured content, led by what fills it', async () => {
    const mcp = await mcpClient();
    const result = (await mcp.callTool({
      name: 'etcd_space',
      arguments: { cluster: 'local' },
    })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    const report = result.structuredContent as unknown as SpaceReport;
    expect(report.byResource[0]).toMatchObject({ resource: 'configmaps', keys: 21 });
    expect(report.scan.complete).toBe(true);
    const [summary] = result.content as Array<{ type: 'text'; text: string }>;
    expect(summary?.text).toMatch(/^local: configmaps hold the most, 341 KB \(\d+ % of keys and values\)/);
    expect(summary?.text).toContain(`Largest object: ${BIG_KEY} (300 KB).`);
    const unknown = (await mcp.callTool({
      name: 'etcd_space',
      arguments: { cluster: 'nope' },
    })) as CallToolResult;
    expect(unknown.isError).toBe(true);
    expect((unknown.content as Array<{ text: string }>)[0]?.text).toBe(
      'unknown cluster "nope"; known clusters: local',
    );
    await mcp.close();
  });

  it("with Kubernetes configured, the API server's apiserver_storage_objects stand beside the keys etcd holds", async () => {
    const base = loadKubeFixture('kubeadm-1.29-healthy');
    const metrics = [
      '# TYPE apiserver_storage_objects gauge',
      'apiserver_storage_objects{resource="configmaps"} 21',
      'apiserver_storage_objects{resource="events"} 297',
      'apiserver_storage_objects{resource="widgets.example.com"} 5',
      'apiserver_storage_objects{resource="secrets"} -1',
      '',
    ].join('\n');
    const fake = await startFakeKubeApi({
      fixture: { ...base, readText: (p) => (p === 'metrics.txt' ? metrics : base.readText(p)) },
    });
    try {
      const kubeconfig = await writeFakeKubeconfig(fake.url, { token: fake.token, dir });
      const withKube = join(dir, 'with-kube.yaml');
      await writeFile(
        withKube,
        stringify({
          clusters: [
            {
              name: 'local',
              etcd: { endpoints: lab.endpoints },
              kubernetes: { kubeconfig, context: 'fake-admin@fake' },
              space: { churnSeconds: 1 },
            },
          ],
        }),
      );
      const r = await cliInProcess(['space', 'local', '--config', withKube, '--json']);
      expect(r.code).toBe(0);
      const report = JSON.parse(r.stdout) as SpaceReport;
      // -1 is "not counted yet": left out. The keys etcd holds stand beside each count.
      expect(report.apiserver).toEqual({
        metric: 'apiserver_storage_objects',
        objects: [
          { resource: 'events', objects: 297, keys: 300 },
          { resource: 'configmaps', objects: 21, keys: 21 },
          { resource: 'widgets.example.com', objects: 5, keys: 5 },
        ],
      });
      const text = await cliInProcess(['space', 'local', '--config', withKube]);
      expect(text.stdout).toContain(
        'apiserver_storage_objects: events 297 (etcd: 300), configmaps 21 (etcd: same), widgets.example.com 5 (etcd: same).',
      );
    } finally {
      await fake.close();
    }
  });

  it('a scan over its time box says how far it got; the keys are all counted and the rate limit held', async () => {
    const full = (await space()).report;
    // 100 kB/s against about 1 MB of keys and values: the 5 s time box ends it about half way.
    const { report } = await space(['--rate', '0.1', '--max-seconds', '5']);
    expect(report.scan).toMatchObject({
      complete: false,
      keysComplete: true,
      stoppedBecause: 'its time box ran out',
    });
    expect(report.scan.nextKey).toMatch(/^\/registry\//);
    expect(report.scan.bytesRead).toBeGreaterThan(0);
    expect(report.scan.bytesRead).toBeLessThan(full.totalBytes);
    // Paced on average from its start: at most the limit over its time, plus the one page read last
    // (a page holds at least one value, and the largest here is 300 kB).
    expect(report.scan.bytesRead).toBeLessThanOrEqual(
      100_000 * (report.scan.durationMs / 1000) + BIG_BYTES + 64 * 1024,
    );
    expect(
      report.byResource
        .map(({ resource, keys }) => ({ resource, keys }))
        .sort((a, b) => (a.resource < b.resource ? -1 : 1)),
    ).toEqual(
      full.byResource
        .map(({ resource, keys }) => ({ resource, keys }))
        .sort((a, b) => (a.resource < b.resource ? -1 : 1)),
    );
    const text = await cliInProcess([
      'space',
      'local',
      '--config',
      configPath,
      '--rate',
      '0.1',
      '--max-seconds',
      '5',
    ]);
    expect(text.stdout).toMatch(
      /PARTIAL: its time box ran out; bytes cover the keys before \/registry\/\S+ \(key counts are complete\)\./,
    );
    const bad = await cliInProcess(['space', 'local', '--config', configPath, '--rate', 'fast']);
    expect(bad).toMatchObject({
      code: 2,
      stderr: 'etcd-doctor: --rate must be a positive number, not "fast"',
    });
  }, 60_000);

  it('no member answers: one line naming each endpoint and why, exit 3 (etcd-doctor could not look)', async () => {
    const dead = join(dir, 'dead.yaml');
    await writeFile(
      dead,
      stringify({ clusters: [{ name: 'dead', etcd: { endpoints: ['http://127.0.0.1:9'] } }] }),
    );
    const r = await cliInProcess(['space', 'dead', '--config', dead, '--json']);
    expect(r).toEqual({
      code: 3,
      stdout: '',
      stderr:
        'etcd-doctor: no member of dead answered Status within 3 s (http://127.0.0.1:9: connect ECONNREFUSED 127.0.0.1:9): nothing was measured',
    });
  });

  it('with no follower answering, nothing is scanned (never the leader), and the answer says why', async () => {
    const leader = (await lab.leaderName()) ?? '';
    const followers = lab.members.map((m) => m.name).filter((n) => n !== leader);
    for (const f of followers) lab.stop(f);
    try {
      const { report } = await space();
      expect(report.scan).toMatchObject({ complete: false, member: null, bytesRead: 0 });
      expect(report.scan.stoppedBecause).toMatch(/^no follower answered Status/);
      expect(report.byResource).toEqual([]);
      expect(report.dbSize).toBeGreaterThan(0);
    } finally {
      for (const f of followers) lab.cont(f);
    }
  }, 60_000);
});

async function mcpClient(): Promise<Client> {
  const config = configFileSchema.parse({
    clusters: [{ name: 'local', etcd: { endpoints: lab.endpoints }, space: { churnSeconds: 1 } }],
  });
  const doctor = createDoctor({ config, readFileBuffer: (p) => readFile(p) });
  const server = createMcpServer({
    doctor,
    config,
    logger: silentLogger,
    analysis: mcpOfflineAnalysis(undefined),
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const mcp = new Client({ name: 'space-test', version: '1' });
  await mcp.connect(clientSide);
  const close = mcp.close.bind(mcp);
  mcp.close = async () => {
    await close();
    await doctor.close();
  };
  return mcp;
}
