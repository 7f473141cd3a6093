import { spawn } from 'node:child_process';
import { aboutTheCluster } from '../support/evidence/findings.js';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { Redis } from 'ioredis';
import { stringify } from 'yaml';
import { createAuditLog } from '../../src/state/audit-log.js';
import { type EtcdLab, startEtcdLab } from '../support/lab/etcd-lab.js';
import { allocateFreePorts } from '../support/lab/free-ports.js';
import {
  BIN,
  baseEnv,
  connectStdio,
  reportOf,
  type StdioSession,
  texts,
} from '../support/chat/mcp-client.js';
import { purgePrefix, REDIS_URL, testPrefix } from '../support/redis/redis-prefix.js';
import { waitUntil } from '../support/process/worker-process.js';
import { within } from '../support/process/within.js';

/**
 * `etcd-doctor mcp` as an MCP client starts it: a real process on stdio, driven by the official
 * SDK's Client, against a real 3-member etcd with faults injected for real.
 */

const TOOLS = [
  'etcd_list_clusters',
  'etcd_health',
  'etcd_diagnose',
  'etcd_status',
  'etcd_space',
  'etcd_upgrade_check',
  'etcd_recover',
  'etcd_audit_trail',
  // Over stdio etcd_analyze is always there (mcp.analyzeRoots bounds it when set).
  'etcd_analyze',
];
let lab: EtcdLab;
let dir: string;
let configPath: string;
let session: StdioSession;
const prefix = testPrefix('mcp-stdio');

beforeAll(async () => {
  lab = await startEtcdLab();
  dir = await mkdtemp(join(tmpdir(), 'etcd-doctor-mcp-'));
  configPath = join(dir, 'etcd-doctor.yaml');
  await writeFile(
    configPath,
    stringify({
      clusters: [
        { name: 'local', etcd: { endpoints: lab.endpoints, metricsUrls: lab.metricsUrls } },
        // No endpoints, and a kubeconfig that is not there: etcd-doctor cannot even start checking it.
        { name: 'elsewhere', kubernetes: { kubeconfig: join(dir, 'missing-kubeconfig') } },
      ],
      probes: { timeoutMs: 3000, metricsWindowMs: 1000 },
    }),
  );
  session = await connectStdio(
    ['--config', configPath, '--queue-prefix', prefix],
    baseEnv({ LOG_LEVEL: 'info' }),
  );
});

afterAll(async () => {
  await session?.close();
  await lab?.destroy();
  await rm(dir, { recursive: true, force: true });
  await purgePrefix(prefix);
});

const call = (name: string, args: Record<string, unknown> = {}) =>
  session.client.callTool({ name, arguments: args }) as Promise<Parameters<typeof texts>[0]>;

describe('etcd-doctor mcp over stdio', () => {
  it('lists its tools: all read-only, described, with zod input schemas and report output schemas', async () => {
    const { tools } = await session.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(TOOLS);
    for (const tool of tools) {
      expect(tool.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
      expect(tool.description?.length).toBeGreaterThan(80);
      // etcd_analyze returns the report with source and timeline on top, without a declared schema.
      if (tool.name !== 'etcd_analyze') expect(tool.outputSchema?.type).toBe('object');
    }
    const diagnose = tools.find((t) => t.name === 'etcd_diagnose');
    expect(diagnose?.inputSchema.required).toEqual(['cluster']);
    expect(Object.keys(diagnose?.inputSchema.properties ?? {})).toEqual(['cluster', 'explain']);
    expect(diagnose?.description).toContain('findings[0] is the root cause');
    expect(session.client.getInstructions()).toContain('Every tool only reads');
  });

  it('etcd_list_clusters names the configured clusters, from the config alone', async () => {
    const result = await call('etcd_list_clusters');
    expect(result.structuredContent).toEqual({
      clusters: [
        { name: 'local', endpoints: lab.endpoints, kubernetes: false },
        { name: 'elsewhere', endpoints: null, kubernetes: true },
      ],
    });
    expect(texts(result)[0]).toMatch(/^2 clusters configured:\nlocal: http:\/\/127\.0\.0\.1:\d+/);
  });

  it('etcd_health of a healthy cluster: the --json report as structured content, a short summary first', async () => {
    const result = await call('etcd_health', { cluster: 'local' });
    const report = reportOf(result);
    expect(report).toMatchObject({ cluster: 'local', status: 'healthy' });
    expect(aboutTheCluster(report.findings)).toEqual([]);
    expect(report.members.map((m) => m.name)).toEqual(['etcd-1', 'etcd-2', 'etcd-3']);
    const [summary, json] = texts(result);
    expect(summary).toMatch(
      /^No problems found on local\.\nCluster local: HEALTHY; 3 of 3 members answered, leader etcd-\d/,
    );
    expect(JSON.parse(json ?? '')).toEqual(result.structuredContent);
  });

  it('a killed member: etcd_diagnose leads with member-down on that member', async () => {
    await lab.kill('etcd-2');
    try {
      const result = await call('etcd_diagnose', { cluster: 'local' });
      const report = reportOf(result);
      expect(report.status).toBe('critical');
      expect(report.findings[0]).toMatchObject({
        cause: 'member-down',
        members: ['etcd-2'],
        severity: 'critical',
      });
      expect(texts(result)[0]).toMatch(/^Root cause: member-down on etcd-2 \(critical\): etcd-2 is down/);
    } finally {
      await lab.restart('etcd-2');
    }
  });

  it('a hung member (SIGSTOP) is a normal result: "did not answer Status in 3 s", the others still report', async () => {
    lab.stop('etcd-3');
    try {
      const result = await call('etcd_diagnose', { cluster: 'local' });
      expect(result.isError).toBeFalsy();
      const report = reportOf(result);
      expect(report.findings[0]).toMatchObject({ cause: 'member-down', members: ['etcd-3'] });
      expect(report.findings[0]?.evidence[0]).toMatch(
        /^etcd-3 \(http:\/\/127\.0\.0\.1:\d+\) did not answer Status in 3 s$/,
      );
      expect(report.members.filter((m) => m.name !== 'etcd-3').every((m) => m.reachable)).toBe(true);
      expect(texts(result)[0]).toContain('did not answer Status in 3 s');
    } finally {
      lab.cont('etcd-3');
    }
  });

  it("a diagnosis that outlives the client's request timeout is cancelled: its probes stop, the server carries on", async () => {
    lab.stop('etcd-3');
    try {
      // A hung member holds an uncancelled diagnosis for its 3 s probe timeout.
      const late = call('etcd_diagnose', { cluster: 'local' });
      const timedOut = session.client.callTool(
        { name: 'etcd_diagnose', arguments: { cluster: 'local' } },
        undefined,
        {
          timeout: 1000,
        },
      );
      await expect(timedOut).rejects.toMatchObject({ code: ErrorCode.RequestTimeout });
      await expect(timedOut).rejects.toBeInstanceOf(McpError);
      await waitUntil(
        () => session.stderr().includes('cancelled by the client'),
        5000,
        'the server logs the cancel',
      );
      const line =
        session
          .stderr()
          .split('\n')
          .find((l) => l.includes('cancelled by the client')) ?? '{}';
      const logged = JSON.parse(line) as { tool: string; durationMs: number };
      expect(logged.tool).toBe('etcd_diagnose');
      // Stopped about when the client gave up (1 s), not when the hung member's probes would have (3 s).
      expect(logged.durationMs).toBeLessThan(2500);
      // The other call, never cancelled, still gets its full answer.
      expect(reportOf(await late).findings[0]).toMatchObject({ cause: 'member-down', members: ['etcd-3'] });
    } finally {
      lab.cont('etcd-3');
    }
    const after = reportOf(await call('etcd_health', { cluster: 'local' }));
    expect(after.members).toHaveLength(3);
    expect(session.stderr()).not.toMatch(/"level":50/);
  });

  it('an unknown cluster is a tool error that lists the known ones', async () => {
    const result = await call('etcd_diagnose', { cluster: 'prod' });
    expect(result.isError).toBe(true);
    expect(texts(result)).toEqual(['unknown cluster "prod"; known clusters: local, elsewhere']);
  });

  it('bad arguments are a tool error naming the field', async () => {
    const result = await call('etcd_diagnose', { cluster: 'local', explain: 'yes' });
    expect(result.isError).toBe(true);
    expect(texts(result)[0]).toMatch(/explain/);
  });

  it('etcd_diagnose with explain returns every rule and whether it fired', async () => {
    const report = reportOf(await call('etcd_diagnose', { cluster: 'local', explain: true }));
    expect(report.explain?.map((t) => t.rule)).toEqual(expect.arrayContaining(['slow-disk', 'quorum-lost']));
  });

  it('progress notifications follow the probes for a client that asks', async () => {
    const progress: Array<{ progress: number; total?: number | undefined }> = [];
    await session.client.callTool({ name: 'etcd_diagnose', arguments: { cluster: 'local' } }, undefined, {
      onprogress: (p) => progress.push(p),
    });
    expect(progress.length).toBeGreaterThan(5);
    // On the wire, the last notification before the result says the run is complete.
    const wire = session.received();
    const answer = wire.findLastIndex((m) => 'result' in m);
    const notes = wire
      .slice(0, answer)
      .flatMap((m) => ('method' in m && m.method === 'notifications/progress' ? [m.params] : []));
    const last = notes.at(-1) as { progress: number; total: number } | undefined;
    expect(last?.total).toBeGreaterThan(5);
    expect(last?.progress).toBe(last?.total);
  });

  it('etcd_status: a report per cluster it could check, and the reason for one it could not', async () => {
    const result = await call('etcd_status');
    const { reports, errors } = result.structuredContent as {
      reports: Array<{ cluster: string; status: string }>;
      errors: Array<{ cluster: string; error: string }>;
    };
    expect(reports.map((r) => [r.cluster, r.status])).toEqual([['local', 'healthy']]);
    expect(errors).toEqual([
      { cluster: 'elsewhere', error: expect.stringContaining('could not be discovered through Kubernetes') },
    ]);
    expect(texts(result)[0]).toMatch(
      /^local: HEALTHY\. No problems found on local\.\nelsewhere: could not be checked/,
    );
  });

  it('etcd_audit_trail reads who pressed what from Redis, filtered by cluster', async () => {
    const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    try {
      const audit = createAuditLog(redis, prefix);
      await audit.append({
        event: 'finished',
        cluster: 'local',
        user: 'U0ALICE',
        action: 'defragment',
        plan: 'p1',
        detail: 'etcd-1, etcd-2, etcd-3 defragmented',
        durationMs: 4200,
      });
      await audit.append({
        event: 'refused',
        cluster: 'other',
        user: 'U0BOB',
        action: 'restart-static-pod',
        plan: 'p2',
        detail: 'not a responder',
      });
    } finally {
      redis.disconnect();
    }
    const result = await call('etcd_audit_trail', { cluster: 'local', since: '1h' });
    expect(result.isError).toBeFalsy();
    const { entries } = result.structuredContent as { entries: Array<Record<string, unknown>> };
    expect(entries).toEqual([
      expect.objectContaining({ event: 'finished', user: 'U0ALICE', action: 'defragment', durationMs: 4200 }),
    ]);
    expect(texts(result)[0]).toMatch(
      /^1 audit entries in the last 1h:\n\S+Z {2}local {2}U0ALICE {2}defragment {2}finished {2}\(4\.2 s\)/,
    );
    const none = await call('etcd_audit_trail', { cluster: 'prod' });
    expect(texts(none)[0]).toBe(
      'No audit entries for prod in the last 24h: nobody pressed a remediation button (prod is not a configured cluster; configured: local, elsewhere).',
    );
  });
});

describe('etcd-doctor mcp, failures around it', () => {
  it('Redis unreachable: the audit tool says so at once, as a tool error', async () => {
    const [port] = await allocateFreePorts(1, '127.0.0.1');
    const down = await connectStdio(
      ['--config', configPath],
      baseEnv({ REDIS_URL: `redis://127.0.0.1:${port}` }),
    );
    try {
      const started = performance.now();
      const result = (await down.client.callTool({ name: 'etcd_audit_trail', arguments: {} })) as Parameters<
        typeof texts
      >[0];
      expect(performance.now() - started).toBeLessThan(4000);
      expect(result.isError).toBe(true);
      expect(texts(result)[0]).toMatch(
        new RegExp(
          `^Redis at redis://127\\.0\\.0\\.1:${port} does not answer \\(.*ECONNREFUSED.*\\), and the audit trail lives there`,
        ),
      );
      // The cluster tools do not need Redis.
      expect(
        reportOf(
          (await down.client.callTool({
            name: 'etcd_health',
            arguments: { cluster: 'local' },
          })) as Parameters<typeof texts>[0],
        ).cluster,
      ).toBe('local');
    } finally {
      await down.close();
    }
  });

  it('stdout carries only JSON-RPC, even with debug logging (logs go to stderr)', async () => {
    const child = spawn(process.execPath, [BIN, 'mcp', '--config', configPath], {
      env: baseEnv({ LOG_LEVEL: 'debug' }),
      stdio: 'pipe',
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => {
      stdout += b.toString();
    });
    child.stderr.on('data', (b: Buffer) => {
      stderr += b.toString();
    });
    const send = (msg: object) => child.stdin.write(`${JSON.stringify(msg)}\n`);
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'etcd_health', arguments: { cluster: 'local' } },
    });
    await waitUntil(() => stdout.includes('"id":2'), 20_000, 'the tools/call answer');
    child.stdin.end();
    await within(new Promise((resolve) => child.once('exit', resolve)), 20_000, 'mcp exits once stdin ends');
    const lines = stdout.split('\n').filter((l) => l !== '');
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
    expect(stderr).toContain('etcd-doctor MCP server ready');
    expect(stderr).toContain('the client closed stdin');
  });

  it('a bad config file: one line on stderr naming the field, exit 2, nothing on stdout', async () => {
    const bad = join(dir, 'bad.yaml');
    await writeFile(bad, 'clusters:\n  - name: a\n    etcd: { endpoints: [nope] }\n');
    const child = spawn(process.execPath, [BIN, 'mcp', '--config', bad], { env: baseEnv(), stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => {
      stdout += b.toString();
    });
    child.stderr.on('data', (b: Buffer) => {
      stderr += b.toString();
    });
    const code = await within(
      new Promise((resolve) => child.once('exit', resolve)),
      20_000,
      'mcp exits on a bad config',
    );
    // Our end of its stdin: nothing was written, and nothing will be.
    child.stdin.destroy();
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr.trim()).toBe(`etcd-doctor: ${bad}: clusters[0].etcd.endpoints[0]: not a URL`);
  });
});
