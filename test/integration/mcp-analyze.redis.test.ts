import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { stringify } from 'yaml';
import { allocateFreePorts } from '../support/lab/free-ports.js';
import {
  baseEnv,
  connectHttp,
  connectStdio,
  type RoleProcess,
  reportOf,
  spawnRole,
  type StdioSession,
  texts,
} from '../support/chat/mcp-client.js';
import { MG_ROOT, mustGatherFiles, writeTarball } from '../support/offline/offline-fixtures.js';
import { purgePrefix, testPrefix } from '../support/redis/redis-prefix.js';
import { waitUntil } from '../support/process/worker-process.js';

/**
 * etcd_analyze wired in `etcd-doctor mcp` (stdio) and `/mcp` (HTTP), with `mcp.analyzeRoots` from
 * the config: the SDK's client analyses a slow-disk etcd log inside the roots, is refused outside
 * them, and over HTTP without roots there is no etcd_analyze at all.
 */

const SLOW_DISK_LOG = fileURLToPath(
  new URL(
    '../fixtures/kube/leaderelection-restarts/logs/kube-system/etcd-master-2/etcd.log',
    import.meta.url,
  ),
);
const TOKEN = 'mcp-analyze-token-41c2-0123456789abcdef';
const prefix = testPrefix('mcp-analyze');
let dir: string;
let roots: string;
let log: string;
let outside: string;

async function writeConfig(
  name: string,
  analyzeRoots?: string[],
  offline?: { analysisMemoryMb: number },
): Promise<string> {
  const path = join(dir, name);
  const config = {
    clusters: [{ name: 'local', etcd: { endpoints: ['http://127.0.0.1:9'] } }],
    ...(analyzeRoots ? { mcp: { analyzeRoots } } : {}),
    ...(offline ? { offline } : {}),
  };
  await writeFile(path, stringify(config));
  return path;
}

const analyze = (client: Client, paths: string[]) =>
  client.callTool({ name: 'etcd_analyze', arguments: { paths } }) as Promise<CallToolResult>;

async function startServe(configPath: string): Promise<{ role: RoleProcess; url: string }> {
  const [port] = await allocateFreePorts(1, '127.0.0.1');
  const env = baseEnv({ PORT: String(port), LISTEN_HOST: '127.0.0.1', LOG_LEVEL: 'info', MCP_TOKEN: TOKEN });
  const role = spawnRole('serve', ['--config', configPath, '--queue-prefix', prefix], env);
  await waitUntil(() => role.logged('serving /healthz, /readyz and /metrics'), 30_000, 'serve listens');
  return { role, url: `http://127.0.0.1:${port}/mcp` };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'etcd-doctor-mcp-analyze-'));
  roots = join(dir, 'gathers');
  await mkdir(roots);
  log = join(roots, 'etcd-master-2.log');
  await copyFile(SLOW_DISK_LOG, log);
  outside = join(dir, 'elsewhere.log');
  await copyFile(SLOW_DISK_LOG, outside);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await purgePrefix(prefix);
});

describe('etcd-doctor mcp (stdio) with mcp.analyzeRoots', () => {
  let session: StdioSession;
  beforeAll(async () => {
    session = await connectStdio(['--config', await writeConfig('stdio.yaml', [roots])], baseEnv());
  });
  afterAll(async () => {
    await session?.close();
  });

  it('lists etcd_analyze, saying where paths must be', async () => {
    const { tools } = await session.client.listTools();
    const tool = tools.find((t) => t.name === 'etcd_analyze');
    expect(tool?.description).toContain(`Paths must be inside ${roots}`);
    expect(tool?.annotations).toMatchObject({ readOnlyHint: true });
  });

  it('names slow-disk on etcd-master-2 from its log', async () => {
    const report = reportOf(await analyze(session.client, [log]));
    expect(report.findings[0]).toMatchObject({ cause: 'slow-disk', members: ['etcd-master-2'] });
    expect(texts(await analyze(session.client, [log]))[0]).toMatch(/Root cause: slow-disk/);
  });

  it('refuses a path outside the roots', async () => {
    const result = await analyze(session.client, [outside]);
    expect(result.isError).toBe(true);
    expect(texts(result).join(' ')).toContain('is not a file etcd-doctor may read (inside ');
  });
});

describe('/mcp (HTTP)', () => {
  const running: Array<{ role: RoleProcess }> = [];
  const clients: Client[] = [];
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await Promise.all(running.map((r) => r.role.stop()));
  });

  it('with mcp.analyzeRoots, analyses inside them only', async () => {
    const serve = await startServe(await writeConfig('http-roots.yaml', [roots]));
    running.push(serve);
    const client = await connectHttp(serve.url, TOKEN);
    clients.push(client);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('etcd_analyze');
    expect(reportOf(await analyze(client, [log])).findings[0]?.cause).toBe('slow-disk');
    expect((await analyze(client, [outside])).isError).toBe(true);
  });

  it('reads the files in a process of its own: one that outgrows its heap is a tool error, and the server goes on', async () => {
    // 140,000 YAML nodes pass the document limits but not a 32 MiB heap.
    const files = mustGatherFiles('openshift-4.14-healthy').filter((f) => !f.path.endsWith('core/pods.yaml'));
    files.push({
      path: `${MG_ROOT}/namespaces/openshift-etcd/core/pods.yaml`,
      content: `[${'0,'.repeat(140_000)}0]\n`,
    });
    const heavy = await writeTarball(join(roots, 'heavy.tar.gz'), files);
    const serve = await startServe(await writeConfig('http-heap.yaml', [roots], { analysisMemoryMb: 32 }));
    running.push(serve);
    const client = await connectHttp(serve.url, TOKEN);
    clients.push(client);
    const result = await analyze(client, [heavy]);
    expect(result.isError).toBe(true);
    expect(texts(result)[0]).toMatch(
      /heavy\.tar\.gz needs more than the 32 MiB memory limit for one analysis/,
    );
    expect(reportOf(await analyze(client, [log])).findings[0]?.cause).toBe('slow-disk');
  });

  it('without mcp.analyzeRoots, has no etcd_analyze: a remote caller reads no file', async () => {
    const serve = await startServe(await writeConfig('http-none.yaml'));
    running.push(serve);
    const client = await connectHttp(serve.url, TOKEN);
    clients.push(client);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).not.toContain('etcd_analyze');
    expect(tools.map((t) => t.name)).toContain('etcd_diagnose');
  });
});
