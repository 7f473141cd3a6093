import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { type EtcdLab, startEtcdLab } from '../support/lab/etcd-lab.js';
import { allocateFreePorts } from '../support/lab/free-ports.js';
import { type FakeSlack, startFakeSlack } from '../support/slack/fake-slack.js';
import { labConfigYaml } from '../support/lab/lab-config.js';
import {
  baseEnv,
  connectHttp,
  type RoleProcess,
  reportOf,
  spawnRole,
  texts,
} from '../support/chat/mcp-client.js';
import { Redis } from 'ioredis';
import { createAuditLog } from '../../src/state/audit-log.js';
import { purgePrefix, REDIS_URL, testPrefix } from '../support/redis/redis-prefix.js';
import { SIGNING_SECRET } from '../support/slack/slack-driver.js';
import { waitUntil } from '../support/process/worker-process.js';
import { within } from '../support/process/within.js';
import { TEST_SIGNING_KEY_TEXT } from '../support/redis/signing-key.js';

/**
 * `/mcp` on the serve and bot roles' HTTP server: MCP's Streamable HTTP transport behind the
 * MCP_TOKEN bearer token, driven by the official SDK's client, against a real etcd.
 */

const TOKEN = 'mcp-test-token-7f3a9c-0123456789abcdef';
const START_MS = 30_000;
let lab: EtcdLab;
let dir: string;
let configPath: string;
const prefix = testPrefix('mcp-http');

beforeAll(async () => {
  lab = await startEtcdLab();
  dir = await mkdtemp(join(tmpdir(), 'etcd-doctor-mcp-http-'));
  configPath = join(dir, 'etcd-doctor.yaml');
  await writeFile(configPath, labConfigYaml(lab, { timeoutMs: 3000, metricsWindowMs: 1000 }));
});

afterAll(async () => {
  await lab?.destroy();
  await rm(dir, { recursive: true, force: true });
  await purgePrefix(prefix);
});

/** `etcd-doctor serve` (the shell chat, no Slack) with PORT set, as a real process. */
async function startServe(
  env: Record<string, string>,
  stdin: 'open' | 'closed' = 'open',
  own: { config?: (port: number) => Promise<string>; prefix?: string } = {},
): Promise<{ role: RoleProcess; base: string }> {
  const [port = 0] = await allocateFreePorts(1, '127.0.0.1');
  const config = own.config ? await own.config(port) : configPath;
  const role = spawnRole(
    'serve',
    ['--config', config, '--queue-prefix', own.prefix ?? prefix],
    baseEnv({ PORT: String(port), LISTEN_HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env }),
    stdin,
  );
  await waitUntil(() => role.logged('serving /healthz, /readyz and /metrics'), START_MS, 'serve listens');
  return { role, base: `http://127.0.0.1:${port}` };
}

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'curl', version: '1' } },
};

function post(url: string, headers: Record<string, string>, body: unknown = initialize): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify(body),
  });
}

describe('serve with PORT and MCP_TOKEN', () => {
  let serve: { role: RoleProcess; base: string };
  let client: Client | undefined;
  beforeAll(async () => {
    serve = await startServe({ MCP_TOKEN: TOKEN });
  });
  afterAll(async () => {
    await client?.close();
    await serve?.role.stop();
  });

  it('logs that it serves /mcp behind the token', () => {
    expect(serve.role.logged('serving MCP (Streamable HTTP) at /mcp behind MCP_TOKEN')).toBe(true);
    expect(serve.role.log()).not.toContain(TOKEN);
  });

  it('with the token, the SDK client lists the tools and gets a diagnosis naming the killed member', async () => {
    client = await connectHttp(`${serve.base}/mcp`, TOKEN);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual([
      'etcd_list_clusters',
      'etcd_health',
      'etcd_diagnose',
      'etcd_status',
      'etcd_space',
      'etcd_upgrade_check',
      'etcd_recover',
      'etcd_audit_trail',
    ]);
    await lab.kill('etcd-2');
    try {
      const result = (await client.callTool({
        name: 'etcd_diagnose',
        arguments: { cluster: 'local' },
      })) as Parameters<typeof texts>[0];
      expect(reportOf(result).findings[0]).toMatchObject({ cause: 'member-down', members: ['etcd-2'] });
      expect(texts(result)[0]).toMatch(/^Root cause: member-down on etcd-2 \(critical\)/);
    } finally {
      await lab.restart('etcd-2');
    }
  });

  it('an unknown cluster is a tool error listing the known ones, over HTTP too', async () => {
    client ??= await connectHttp(`${serve.base}/mcp`, TOKEN);
    const result = (await client.callTool({
      name: 'etcd_health',
      arguments: { cluster: 'prod' },
    })) as Parameters<typeof texts>[0];
    expect(result.isError).toBe(true);
    expect(texts(result)).toEqual(['unknown cluster "prod"; known clusters: local']);
  });

  it("the audit trail over /mcp is read on the role's own Redis, under the role's key prefix", async () => {
    const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    try {
      await createAuditLog(redis, prefix).append({
        event: 'finished',
        cluster: 'local',
        user: 'U0CAROL',
        action: 'defragment',
        plan: 'p-http',
        detail: 'etcd-1 defragmented',
        durationMs: 1500,
      });
    } finally {
      redis.disconnect();
    }
    client ??= await connectHttp(`${serve.base}/mcp`, TOKEN);
    const result = (await client.callTool({
      name: 'etcd_audit_trail',
      arguments: { cluster: 'local', since: '1h' },
    })) as Parameters<typeof texts>[0];
    expect(result.isError).toBeFalsy();
    expect(texts(result)[0]).toMatch(
      /^1 audit entries in the last 1h:\n\S+Z {2}local {2}U0CAROL {2}defragment {2}finished {2}\(1\.5 s\)/,
    );
  });

  it('a wrong token or none gets 401 with a JSON-RPC error, and the SDK client cannot connect', async () => {
    for (const headers of [{ authorization: 'Bearer not-the-token' }, {}]) {
      const res = await post(`${serve.base}/mcp`, headers);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="etcd-doctor"');
      expect(await res.json()).toEqual({
        jsonrpc: '2.0',
        error: { code: -32001, message: 'unauthorized: send MCP_TOKEN as a bearer token' },
        id: null,
      });
    }
    await expect(connectHttp(`${serve.base}/mcp`, 'not-the-token')).rejects.toThrow(
      /unauthorized: send MCP_TOKEN as a bearer token/,
    );
  });

  it('a browser request (an Origin not in mcp.allowedOrigins) is 403 even with the token: DNS rebinding', async () => {
    const res = await post(`${serve.base}/mcp`, {
      authorization: `Bearer ${TOKEN}`,
      origin: 'http://rebound.example',
    });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({
      jsonrpc: '2.0',
      error: {
        code: -32003,
        message: 'forbidden: Origin "http://rebound.example" is not in mcp.allowedOrigins',
      },
      id: null,
    });
  });

  it('a body that is not JSON is 400, and GET /mcp (a server stream) is 405: the server is stateless', async () => {
    const bad = await fetch(`${serve.base}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: '{"jsonrpc": ',
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: number } }).error.code).toBe(-32700);
    const get = await fetch(`${serve.base}/mcp`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
  });

  it('a client that disconnects mid-diagnosis cancels it: the probes stop, the server stays up', async () => {
    const leaving = await connectHttp(`${serve.base}/mcp`, TOKEN);
    lab.stop('etcd-3');
    try {
      // The first progress notification says the diagnosis is under way (the fast members'
      // probes are done; the hung member's run for 3 s): the client leaves then.
      let underway = false;
      const pending = leaving.callTool(
        { name: 'etcd_diagnose', arguments: { cluster: 'local' } },
        undefined,
        {
          onprogress: () => {
            underway = true;
          },
        },
      );
      pending.catch(() => undefined);
      await waitUntil(() => underway, 2500, 'a first progress notification of etcd_diagnose');
      await leaving.close();
      await waitUntil(() => serve.role.logged('cancelled by the client'), 5000, 'the server logs the cancel');
      const line = serve.role
        .log()
        .split('\n')
        .find((l) => l.includes('cancelled by the client'));
      const logged = JSON.parse(line ?? '{}') as { tool: string; durationMs: number };
      expect(logged.tool).toBe('etcd_diagnose');
      // Stopped when the client left (well under 1 s), not when the hung member's probes would have (3 s).
      expect(logged.durationMs).toBeLessThan(2500);
    } finally {
      lab.cont('etcd-3');
    }
    client ??= await connectHttp(`${serve.base}/mcp`, TOKEN);
    const after = (await client.callTool({
      name: 'etcd_health',
      arguments: { cluster: 'local' },
    })) as Parameters<typeof texts>[0];
    expect(reportOf(after).members).toHaveLength(3);
  });
});

/** A remote caller is held to the SDK's DNS-rebinding checks, and the chat's rate limiter in front of the tools. */
describe('serve with mcp.allowedHosts, mcp.allowedOrigins and call limits', () => {
  const limitedPrefix = testPrefix('mcp-http-limits');
  let serve: { role: RoleProcess; base: string };
  let port = 0;
  const IDE = 'https://ide.example.com';
  beforeAll(async () => {
    serve = await startServe({ MCP_TOKEN: TOKEN }, 'open', {
      prefix: limitedPrefix,
      config: async (p) => {
        port = p;
        const path = join(dir, 'limits.yaml');
        const mcp = [
          'mcp:',
          `  allowedHosts: ["127.0.0.1:${p}"]`,
          `  allowedOrigins: ["${IDE}"]`,
          '  maxConcurrentCalls: 2',
          '  callsPerMinute: 3',
          '',
        ].join('\n');
        await writeFile(path, labConfigYaml(lab) + mcp);
        return path;
      },
    });
  });
  afterAll(async () => {
    await serve?.role.stop();
    await purgePrefix(limitedPrefix);
  });

  const call = (id: number, name = 'etcd_list_clusters') => ({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name, arguments: {} },
  });

  /** A POST with any Host header (fetch does not let a caller set one). */
  function postWithHost(host: string): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          path: '/mcp',
          method: 'POST',
          headers: {
            host,
            authorization: `Bearer ${TOKEN}`,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
          },
        },
        (res) => {
          let body = '';
          res.on('data', (c: Buffer) => {
            body += c.toString('utf8');
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify(initialize));
    });
  }

  it('refuses a Host that is not listed and an Origin that is not listed; a listed Origin is served', async () => {
    const rebound = await postWithHost(`rebound.example:${port}`);
    expect(rebound.status).toBe(403);
    expect(JSON.parse(rebound.body)).toMatchObject({
      error: { message: `Invalid Host header: rebound.example:${port}` },
    });
    expect((await postWithHost(`127.0.0.1:${port}`)).status).toBe(200);
    const browser = await post(`${serve.base}/mcp`, {
      authorization: `Bearer ${TOKEN}`,
      origin: 'http://rebound.example',
    });
    expect(browser.status).toBe(403);
    expect(await browser.json()).toMatchObject({
      error: { message: 'Invalid Origin header: http://rebound.example' },
    });
    expect((await post(`${serve.base}/mcp`, { authorization: `Bearer ${TOKEN}`, origin: IDE })).status).toBe(
      200,
    );
  });

  it('answers 429 to a batch of more calls than may run at once, and runs none of them', async () => {
    const batch = await post(`${serve.base}/mcp`, { authorization: `Bearer ${TOKEN}` }, [
      call(1, 'etcd_health'),
      call(2, 'etcd_health'),
      call(3, 'etcd_health'),
    ]);
    expect(batch.status).toBe(429);
    expect(batch.headers.get('retry-after')).toBe('1');
    expect(await batch.json()).toEqual({
      jsonrpc: '2.0',
      error: {
        code: -32029,
        message:
          'too many tool calls at once: this server runs at most 2 (0 running, 3 asked); send them one by one',
      },
      id: null,
    });
    expect(serve.role.logged('"tool":"etcd_health"')).toBe(false);
  });

  it('answers 429 past the calls a minute, counted in Redis, saying when to retry', async () => {
    for (let id = 1; id <= 3; id++)
      expect((await post(`${serve.base}/mcp`, { authorization: `Bearer ${TOKEN}` }, call(id))).status).toBe(
        200,
      );
    const over = await post(`${serve.base}/mcp`, { authorization: `Bearer ${TOKEN}` }, call(4));
    expect(over.status).toBe(429);
    const seconds = Number(over.headers.get('retry-after'));
    expect(seconds).toBeGreaterThan(0);
    expect(seconds).toBeLessThanOrEqual(60);
    expect(await over.json()).toMatchObject({
      error: {
        code: -32029,
        message: `3 tool calls in the last minute, the limit of this server; try again in ${seconds} s`,
      },
    });
  });
});

describe('serve with stdin closed (serve </dev/null, a container without a tty)', () => {
  it('says what it serves, and keeps serving HTTP and /mcp after stdin ends', async () => {
    const serve = await startServe({ MCP_TOKEN: TOKEN }, 'closed');
    try {
      expect(serve.role.logged('serving /healthz, /readyz and /metrics, and /mcp')).toBe(true);
      await waitUntil(
        () => serve.role.logged('stdin ended: the shell takes no more commands; HTTP is still served'),
        START_MS,
        'serve notes that stdin ended',
      );
      // It used to exit here, a few seconds after start, with nothing logged.
      expect((await fetch(`${serve.base}/healthz`)).status).toBe(200);
      expect((await post(`${serve.base}/mcp`, { authorization: `Bearer ${TOKEN}` })).status).toBe(200);
      expect(serve.role.child.exitCode).toBeNull();
    } finally {
      await serve.role.stop();
    }
  });

  it('without PORT, says why it exits instead of going silently', async () => {
    const role = spawnRole(
      'serve',
      ['--config', configPath, '--queue-prefix', prefix],
      baseEnv({ LOG_LEVEL: 'info' }),
      'closed',
    );
    const code = await within(
      new Promise<number | null>((resolve) => role.child.once('exit', resolve)),
      START_MS,
      'serve exits once stdin is closed',
    );
    expect(code).toBe(0);
    expect(role.log()).toContain(
      'stdin ended before any command and PORT is not set, so there is nothing to serve',
    );
  });
});

describe('serve with PORT but no MCP_TOKEN', () => {
  it('does not serve /mcp (404) and says why in the log; the other routes still answer', async () => {
    const serve = await startServe({});
    try {
      expect(serve.role.logged('not serving /mcp: MCP_TOKEN is not set')).toBe(true);
      expect((await post(`${serve.base}/mcp`, { authorization: `Bearer ${TOKEN}` })).status).toBe(404);
      expect((await fetch(`${serve.base}/healthz`)).status).toBe(200);
    } finally {
      await serve.role.stop();
    }
  });
});

describe('the Slack roles with MCP_TOKEN: the bot (HTTP mode) and the worker', () => {
  let fake: FakeSlack;
  const started: RoleProcess[] = [];
  beforeAll(async () => {
    fake = await startFakeSlack();
  });
  afterAll(async () => {
    await Promise.all(started.map((r) => r.stop()));
    await fake?.close();
  });

  /** The role as a real process talking to the fake Slack, once it logged that it started. */
  async function startSlackRole(role: 'bot' | 'worker', env: Record<string, string>) {
    const [port] = await allocateFreePorts(1, '127.0.0.1');
    const proc = spawnRole(
      role,
      ['--config', configPath, '--queue-prefix', prefix],
      baseEnv({
        PORT: String(port),
        LISTEN_HOST: '127.0.0.1',
        LOG_LEVEL: 'info',
        SLACK_BOT_TOKEN: 'xoxb-1-mcp',
        SLACK_API_URL: fake.url,
        REMEDIATION_SIGNING_KEY: TEST_SIGNING_KEY_TEXT,
        ...env,
      }),
    );
    started.push(proc);
    await waitUntil(() => proc.logged('etcd-doctor started'), START_MS, `the ${role} starts`);
    return { proc, mcp: `http://127.0.0.1:${port}/mcp`, base: `http://127.0.0.1:${port}` };
  }

  /** etcd_health over /mcp with the token: the report. */
  async function healthOver(url: string) {
    const client = await connectHttp(url, TOKEN);
    try {
      const result = (await client.callTool({
        name: 'etcd_health',
        arguments: { cluster: 'local' },
      })) as Parameters<typeof texts>[0];
      return reportOf(result);
    } finally {
      await client.close();
    }
  }

  it("the bot serves /mcp beside /slack/events, through Bolt's receiver", async () => {
    const bot = await startSlackRole('bot', { SLACK_SIGNING_SECRET: SIGNING_SECRET, MCP_TOKEN: TOKEN });
    const report = await healthOver(bot.mcp);
    expect(report).toMatchObject({ cluster: 'local' });
    expect(report.members.map((m) => m.name)).toEqual(['etcd-1', 'etcd-2', 'etcd-3']);
    expect((await post(bot.mcp, {})).status).toBe(401);
  });

  it('a worker serves /mcp on its own HTTP server, with the access the workers have (deploy/ components/mcp)', async () => {
    const worker = await startSlackRole('worker', { MCP_TOKEN: TOKEN });
    expect(worker.proc.logged('serving MCP (Streamable HTTP) at /mcp behind MCP_TOKEN')).toBe(true);
    expect(await healthOver(worker.mcp)).toMatchObject({ cluster: 'local', status: 'healthy' });
    expect((await post(worker.mcp, {})).status).toBe(401);
  });

  it('a worker without MCP_TOKEN serves no /mcp (404) and does not warn about it', async () => {
    const worker = await startSlackRole('worker', {});
    expect((await post(worker.mcp, { authorization: `Bearer ${TOKEN}` })).status).toBe(404);
    expect((await fetch(`${worker.base}/healthz`)).status).toBe(200);
    expect(worker.proc.logged('not serving /mcp')).toBe(false);
  });
});
