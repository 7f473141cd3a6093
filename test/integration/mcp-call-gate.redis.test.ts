import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { configFileSchema } from '../../src/config/schema.js';
import { type HttpServer, startHttpServer } from '../../src/http/server.js';
import { silentLogger } from '../../src/logger.js';
import { installMcpHttp, type McpHttp } from '../../src/mcp/install-mcp-http.js';
import { createProcessParts, type ProcessParts } from '../../src/roles/role-base.js';
import { Secret } from '../../src/secret.js';
import { purgePrefix, REDIS_URL, testPrefix } from '../support/redis/redis-prefix.js';

/**
 * Issue 38 L1: the /mcp concurrency gate raced. It checked the calls running, then awaited the
 * per-minute count in Redis once per call, and only then counted its own: five POSTs of four calls
 * sent at once all passed the check under a limit of four, twenty calls at once. Real parallel HTTP
 * POSTs to the real route, the count in the real Redis; each call is an etcd_health on a "member"
 * that accepts TCP and never answers, so an admitted POST holds its four calls for the probe timeout.
 */
const TOKEN = 'mcp-call-gate-token-0123456789abcdef';
const PROBE_TIMEOUT_MS = 3000;

let silent: Server;
const sockets: Socket[] = [];
let http: HttpServer;
let mcp: McpHttp;
let parts: ProcessParts;
const prefix = testPrefix('mcp-gate');

beforeAll(async () => {
  silent = createServer((socket) => {
    sockets.push(socket);
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const address = silent.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const config = configFileSchema.parse({
    clusters: [{ name: 'hung', etcd: { endpoints: [`http://127.0.0.1:${port}`] } }],
    probes: { timeoutMs: PROBE_TIMEOUT_MS, metricsWindowMs: 300 },
    mcp: { maxConcurrentCalls: 4, callsPerMinute: 100 },
  });
  // The process's parts, as a role builds them (roles/role-base.ts): /mcp builds none of its own.
  parts = createProcessParts({ config, redisUrl: REDIS_URL, logger: silentLogger });
  mcp = installMcpHttp({
    token: new Secret(TOKEN),
    config,
    redisUrl: REDIS_URL,
    queuePrefix: prefix,
    logger: silentLogger,
    parts,
  });
  http = await startHttpServer({ port: 0, host: '127.0.0.1', routes: mcp.routes });
});

afterAll(async () => {
  await http?.close();
  await parts?.doctor.close();
  await parts?.closeRedis(true);
  for (const s of sockets) s.destroy();
  await new Promise<void>((resolve) => silent.close(() => resolve()));
  await purgePrefix(prefix);
});

const batchOfFour = (from: number) =>
  [0, 1, 2, 3].map((i) => ({
    jsonrpc: '2.0',
    id: from + i,
    method: 'tools/call',
    params: { name: 'etcd_health', arguments: { cluster: 'hung' } },
  }));

function post(body: unknown): Promise<Response> {
  const { port } = http.address();
  return fetch(`http://127.0.0.1:${port}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${TOKEN}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify(body),
  });
}

describe('/mcp under a limit of 4 calls at once', () => {
  it('five POSTs of four calls sent at once: one is admitted, four are answered 429', async () => {
    const responses = await Promise.all([0, 10, 20, 30, 40].map((from) => post(batchOfFour(from))));
    const statuses = responses.map((r) => r.status).sort();
    const refusals = await Promise.all(
      responses
        .filter((r) => r.status === 429)
        .map(async (r) => ((await r.json()) as { error: { message: string } }).error.message),
    );
    await Promise.all(responses.filter((r) => r.status === 200).map((r) => r.text()));

    expect(statuses).toEqual([200, 429, 429, 429, 429]);
    for (const message of refusals)
      expect(message).toBe(
        'too many tool calls at once: this server runs at most 4 (4 running, 4 asked); send them one by one',
      );
  }, 30_000);

  it('once those calls are done, the next POST of four is admitted', async () => {
    const response = await post(batchOfFour(100));
    await response.text();
    expect(response.status).toBe(200);
  }, 30_000);
});
