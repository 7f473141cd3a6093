import { copyFile, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { configFileSchema } from '../../../src/config/schema.js';
import { createDoctor } from '../../../src/doctor.js';
import { silentLogger } from '../../../src/logger.js';
import type { OfflineAnalysis } from '../../../src/mcp/analyze-tool.js';
import { redisLabel } from '../../../src/mcp/audit-tool.js';
import { createMcpServer, MCP_SERVER_VERSION } from '../../../src/mcp/create-mcp-server.js';
import { summarizeReport } from '../../../src/mcp/summarize-report.js';
import { mcpOfflineAnalysis } from '../../../src/offline/mcp-analysis.js';

const SLOW_DISK_LOGS = fileURLToPath(new URL('../../fixtures/offline/lab/slow-disk', import.meta.url));
const LAB_MEMBERS = ['etcd-1', 'etcd-2', 'etcd-3'];

const config = configFileSchema.parse({
  clusters: [{ name: 'lab', etcd: { endpoints: ['http://127.0.0.1:1'] } }],
});

async function connect(analysis?: OfflineAnalysis): Promise<Client> {
  const doctor = createDoctor({ config, readFileBuffer: (p) => readFile(p) });
  const server = createMcpServer({ doctor, config, logger: silentLogger, ...(analysis ? { analysis } : {}) });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'unit', version: '1' });
  await client.connect(clientSide);
  return client;
}

const finding = (cause: string, members: string[], causedBy: string | null = null) => ({
  cause,
  severity: 'critical' as const,
  members,
  summary: `${cause} summary`,
  evidence: [`${cause} evidence 1`, `${cause} evidence 2`, `${cause} evidence 3`],
  causedBy,
});

describe('summarizeReport', () => {
  it('leads with the root cause and its members, quotes two evidence lines, then symptoms and the cluster line', () => {
    const text = summarizeReport({
      cluster: 'prod',
      status: 'critical',
      durationMs: 4210,
      kind: 'diagnose',
      members: [
        { name: 'etcd-1', reachable: true, isLeader: true },
        { name: 'etcd-2', reachable: false, isLeader: false },
      ],
      findings: [finding('slow-disk', ['etcd-2']), finding('leader-churn', [], 'slow-disk')],
    });
    expect(text.split('\n')).toEqual([
      'Root cause: slow-disk on etcd-2 (critical): slow-disk summary',
      '  - slow-disk evidence 1',
      '  - slow-disk evidence 2',
      'Symptom (caused by slow-disk): leader-churn (critical): leader-churn summary',
      'Cluster prod: CRITICAL; 1 of 2 members answered, leader etcd-1; diagnosis took 4.2 s.',
    ]);
  });

  it('a member etcd-doctor could not check (reachable null) is not counted as answering', () => {
    const text = summarizeReport({
      cluster: 'prod',
      status: 'unknown',
      durationMs: 12,
      kind: 'health',
      members: [{ name: 'etcd-1', reachable: null, isLeader: false }],
      findings: [],
    });
    expect(text).toBe(
      'No problems found on prod.\nCluster prod: UNKNOWN; 0 of 1 members answered, no leader; health check took 12 ms.',
    );
  });
});

describe('the MCP server', () => {
  it('reports the version package.json has', async () => {
    const pkg = JSON.parse(await readFile('package.json', 'utf8')) as { version: string };
    expect(MCP_SERVER_VERSION).toBe(pkg.version);
    const client = await connect();
    expect(client.getServerVersion()).toEqual({ name: 'etcd-doctor', version: pkg.version });
  });

  it('has no etcd_analyze and no etcd_audit_trail unless their functions are given', async () => {
    const client = await connect();
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual([
      'etcd_list_clusters',
      'etcd_health',
      'etcd_diagnose',
      'etcd_status',
      'etcd_space',
      'etcd_upgrade_check',
      'etcd_recover',
    ]);
  });

  it('redisLabel drops credentials from a Redis URL', () => {
    expect(redisLabel('redis://user:hunter2@127.0.0.1:6380/0')).toBe('redis://127.0.0.1:6380');
    expect(redisLabel('not a url')).toBe('the configured Redis');
  });
});

describe('etcd_analyze, the seam for the offline analysis', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'etcd-doctor-analyze-'));
    await mkdir(join(dir, 'gather'));
    // A real incident's logs: the lab's members while etcd-1's fdatasync took 1.2 s.
    for (const m of LAB_MEMBERS)
      await copyFile(join(SLOW_DISK_LOGS, `${m}.log`), join(dir, 'gather', `${m}.log`));
    await writeFile(join(dir, 'secret.txt'), 'not for you\n');
    await symlink(join(dir, 'secret.txt'), join(dir, 'gather', 'link.txt'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  /** The offline analysis `etcd-doctor mcp` builds (its own thread), bounded to `roots` when given. */
  const analysis = (roots?: string[]): OfflineAnalysis => mcpOfflineAnalysis(roots);
  const gathered = () => LAB_MEMBERS.map((m) => join(dir, 'gather', `${m}.log`));

  const callAnalyze = async (client: Client, paths: string[]) =>
    (await client.callTool({ name: 'etcd_analyze', arguments: { paths } })) as CallToolResult;

  it('is registered when an analysis is given, and returns its report led by the root cause', async () => {
    const client = await connect(analysis());
    const tool = (await client.listTools()).tools.find((t) => t.name === 'etcd_analyze');
    // Its result is described like the other report tools', plus source and timeline;
    // or, for a snapshot file, its facts and space (one object type, by `kind`).
    expect(tool?.outputSchema).toMatchObject({ type: 'object', required: ['kind', 'durationMs', 'source'] });
    expect(Object.keys(tool?.outputSchema?.properties ?? {})).toEqual(
      expect.arrayContaining(['cluster', 'status', 'findings', 'timeline', 'snapshot', 'space']),
    );
    const result = await callAnalyze(client, gathered());
    expect(result.structuredContent).toMatchObject({
      kind: 'analyze',
      status: 'critical',
      findings: [{ cause: 'slow-disk', members: ['etcd-1'], severity: 'critical' }],
      source: gathered().map((path) => ({ kind: 'log', path })),
    });
    expect(result.content[0]).toMatchObject({
      text: expect.stringMatching(/^Root cause: slow-disk on etcd-1/),
    });
  });

  it('refuses relative and missing paths, and with roots, anything outside them (symlinks followed)', async () => {
    const client = await connect(analysis([join(dir, 'gather')]));
    const refused = async (path: string) => {
      const result = await callAnalyze(client, [path]);
      expect(result.isError).toBe(true);
      return result.content[0]?.type === 'text' ? result.content[0].text : '';
    };
    expect(await refused('gather/etcd.log')).toBe(
      '"gather/etcd.log" is not an absolute path; give the full path on the etcd-doctor host',
    );
    // A remote caller learns nothing about files outside the roots: missing or present,
    // outside or inside a root, the answer is the same.
    const same = (path: string) =>
      `${path} is not a file etcd-doctor may read (inside ${join(dir, 'gather')})`;
    for (const path of [
      join(dir, 'nope.log'),
      join(dir, 'secret.txt'),
      join(dir, 'gather', 'link.txt'),
      join(dir, 'gather', 'nope.log'),
    ])
      expect(await refused(path)).toBe(same(path));
    expect((await callAnalyze(client, gathered())).isError).toBeFalsy();
  });
});
