import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createSlackAdapter, type SlackAdapter } from '../../../src/chat/slack/slack-adapter.js';
import { createRedisConnections } from '../../../src/clients/redis.js';
import { type EtcdLab, startEtcdLab } from '../../support/lab/etcd-lab.js';
import { createLogger } from '../../../src/logger.js';
import { createMetrics, type Metrics } from '../../../src/metrics/metrics.js';
import { createJobQueue } from '../../../src/queue/job-queue.js';
import { healthRoutes, metricsRoute } from '../../../src/http/health-routes.js';
import { type RunningRoles, startRoles } from '../../../src/roles/start-roles.js';
import { Secret } from '../../../src/secret.js';
import { type FakeMessage, type FakeSlack, startFakeSlack } from '../../support/slack/fake-slack.js';
import { inspectQueue, waitForQueueSettled } from '../../support/redis/job-states.js';
import { labConfig } from '../../support/lab/lab-config.js';
import { purgePrefix, REDIS_URL, testPrefix } from '../../support/redis/redis-prefix.js';
import { SIGNING_SECRET, sendSlashCommand } from '../../support/slack/slack-driver.js';
import { channelThreads } from '../../support/slack/slack-http.js';
import { within } from '../../support/process/within.js';
import { TEST_SIGNING_KEY_TEXT } from '../../support/redis/signing-key.js';

/**
 * Operating etcd-doctor: /healthz, /readyz and /metrics on every role, logs that name the job and
 * cluster and never show a token, a signing secret or certificate contents, and a SIGTERM that lets
 * the running diagnosis answer exactly once.
 */

const BIN = fileURLToPath(new URL('../../../bin/etcd-doctor.js', import.meta.url));
const BOT_TOKEN = 'xoxb-4242-4242-RecognisableBotTokenValue';
const APP_TOKEN_SHAPE = 'xapp-1-A0000-4242-RecognisableAppToken';
const PEM_BODY = 'MIIBFAKEPEMBODYTHATMUSTNEVERBELOGGEDAAAA';
const PEM = `-----BEGIN CERTIFICATE-----\n${PEM_BODY}\nQUJDREVGR0g=\n-----END CERTIFICATE-----\n`;
const KEY = `-----BEGIN PRIVATE KEY-----\n${PEM_BODY}KEY\n-----END PRIVATE KEY-----\n`;
const ALERTMANAGER_TOKEN = 'RecognisableAlertmanagerToken-0123456789';
const SECRETS = [
  BOT_TOKEN,
  SIGNING_SECRET,
  PEM_BODY,
  'RecognisableAppToken',
  ALERTMANAGER_TOKEN,
  TEST_SIGNING_KEY_TEXT,
];
const CHANNEL = 'C0OBS';

let lab: EtcdLab;
let fake: FakeSlack;
let dir: string;
const prefixes: string[] = [];
const children: ChildProcessWithoutNullStreams[] = [];

const { roots, replies } = channelThreads(() => fake, CHANNEL);

/** A cluster behind TLS whose client files hold a fake PEM: its contents must never be logged. */
function tlsCluster() {
  return {
    name: 'secured',
    etcd: {
      endpoints: ['https://127.0.0.1:9'],
      tls: {
        caFile: join(dir, 'ca.pem'),
        certFile: join(dir, 'client.pem'),
        keyFile: join(dir, 'client-key.pem'),
      },
    },
  };
}

function configYaml(): string {
  const list = (items: string[]) => `[${items.join(', ')}]`;
  const tls = tlsCluster();
  return [
    'clusters:',
    '  - name: local',
    '    etcd:',
    `      endpoints: ${list(lab.endpoints)}`,
    `      metricsUrls: ${list(lab.metricsUrls)}`,
    '    slack:',
    `      channel: ${CHANNEL}`,
    `  - name: ${tls.name}`,
    '    etcd:',
    `      endpoints: ${list(tls.etcd.endpoints)}`,
    '      tls:',
    `        caFile: ${tls.etcd.tls.caFile}`,
    `        certFile: ${tls.etcd.tls.certFile}`,
    `        keyFile: ${tls.etcd.tls.keyFile}`,
    'probes:',
    '  timeoutMs: 1500',
    '  metricsWindowMs: 200',
    '',
  ].join('\n');
}

async function get(url: string): Promise<{ status: number; text: string }> {
  const res = await fetch(url);
  return { status: res.status, text: await res.text() };
}

/** Samples of one metric family from the text exposition: labels and value per line. */
function samples(text: string, name: string): Array<{ labels: Record<string, string>; value: number }> {
  const out: Array<{ labels: Record<string, string>; value: number }> = [];
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)) labels[l[1] ?? ''] = l[2] ?? '';
    out.push({ labels, value: Number(m[3]) });
  }
  return out;
}

function expectDiagnoseMetrics(text: string): void {
  const completed = samples(text, 'etcd_doctor_jobs_total').filter((s) => s.labels.outcome === 'completed');
  expect(completed.reduce((a, s) => a + s.value, 0)).toBeGreaterThanOrEqual(1);
  const statusProbes = samples(text, 'etcd_doctor_probe_duration_seconds_count').filter(
    (s) => s.labels.probe === 'status',
  );
  expect(statusProbes.reduce((a, s) => a + s.value, 0)).toBeGreaterThanOrEqual(3);
  expect(text).toMatch(/^etcd_doctor_probe_duration_seconds_bucket\{.*probe="metrics"/m);
  expect(samples(text, 'etcd_doctor_diagnosis_duration_seconds_count').length).toBeGreaterThanOrEqual(1);
  expect(text).toContain('# TYPE etcd_doctor_findings_total counter');
  expect(
    samples(text, 'etcd_doctor_slack_api_calls_total').some((s) => s.labels.method === 'chat.postMessage'),
  ).toBe(true);
  expect(text).toMatch(/^etcd_doctor_queue_jobs\{queue="jobs",state="waiting"\} \d+/m);
  expect(samples(text, 'process_cpu_user_seconds_total')).toHaveLength(1);
}

function expectNoSecrets(lines: string[]): void {
  for (const line of lines) for (const secret of SECRETS) expect(line).not.toContain(secret);
  expect(lines.join('\n')).not.toMatch(/-----BEGIN/);
}

interface Spawned {
  child: ChildProcessWithoutNullStreams;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; atMs: number }>;
  /** Resolves with the first log line whose msg matches. */
  logged(msg: string, timeoutMs?: number): Promise<Record<string, unknown>>;
}

function spawnRole(args: string[], env: Record<string, string>): Spawned {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: 'pipe',
  });
  children.push(child);
  let stderr = '';
  child.stderr.on('data', (b: Buffer) => {
    stderr += b.toString();
  });
  child.stdout.on('data', () => undefined);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; atMs: number }>(
    (resolve) => child.on('exit', (code, signal) => resolve({ code, signal, atMs: Date.now() })),
  );
  const logged = async (msg: string, timeoutMs = 30_000) => {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      for (const line of stderr.split('\n')) {
        if (!line.startsWith('{')) continue;
        const parsed = JSON.parse(line) as Record<string, unknown>;
        if (parsed.msg === msg) return parsed;
      }
      if (child.exitCode !== null) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`no "${msg}" log line within ${timeoutMs} ms; stderr:\n${stderr}`);
  };
  return { child, stderr: () => stderr, exited, logged };
}

beforeAll(async () => {
  [lab, fake] = await Promise.all([startEtcdLab(), startFakeSlack()]);
  dir = await mkdtemp(join(tmpdir(), 'etcd-doctor-obs-'));
  await writeFile(join(dir, 'ca.pem'), PEM);
  await writeFile(join(dir, 'client.pem'), PEM);
  await writeFile(join(dir, 'client-key.pem'), KEY);
  await writeFile(join(dir, 'etcd-doctor.yaml'), configYaml());
});

afterAll(async () => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await Promise.all([fake?.close(), lab?.destroy()]);
  await rm(dir, { recursive: true, force: true });
  for (const prefix of prefixes) await purgePrefix(prefix);
});

describe('in-process bot and worker: metrics, readiness and redacted logs', () => {
  let roles: RunningRoles;
  let chat: SlackAdapter;
  let metrics: Metrics;
  const lines: string[] = [];

  beforeAll(async () => {
    const prefix = testPrefix('observability');
    prefixes.push(prefix);
    const logger = createLogger('debug', { write: (line) => lines.push(line) });
    metrics = createMetrics();
    chat = createSlackAdapter({
      botToken: new Secret(BOT_TOKEN),
      signingSecret: new Secret(SIGNING_SECRET),
      apiUrl: fake.url,
      listen: { port: 0, host: '127.0.0.1' },
      routes: [
        ...healthRoutes({ redis: () => roles.redisReady(), slack: () => chat.authOk() }),
        metricsRoute(metrics),
      ],
      logger,
      metrics,
    });
    roles = await startRoles({
      role: 'serve',
      chat,
      config: labConfig(lab, { extra: [tlsCluster()], probes: { timeoutMs: 1500, metricsWindowMs: 200 } }),
      redisUrl: REDIS_URL,
      queuePrefix: prefix,
      logger,
      metrics,
      tuning: { progressIntervalMs: 100, jobTimeoutMs: 30_000 },
    });
    // Secrets a careless line could carry: a field, an error message, a config dump.
    logger.warn(
      { botToken: BOT_TOKEN, err: `auth failed for ${BOT_TOKEN} / ${APP_TOKEN_SHAPE}`, ca: PEM },
      `tls material: ${KEY}`,
    );
  });

  afterAll(async () => {
    await roles?.stop();
    await chat?.stop();
  });

  it('answers /healthz and /readyz (Redis up, Slack auth.test ok)', async () => {
    const base = `http://127.0.0.1:${chat.address()?.port}`;
    await expect(get(`${base}/healthz`)).resolves.toMatchObject({ status: 200 });
    await expect(get(`${base}/readyz`)).resolves.toEqual({ status: 200, text: 'ready\n' });
  });

  it('diagnoses through a signed slash command; /metrics shows the job, probes and findings', async () => {
    const base = `http://127.0.0.1:${chat.address()?.port}`;
    fake.reset();
    for (const cluster of ['local', 'secured']) {
      const res = await sendSlashCommand(`${base}/slack/events`, {
        text: `diagnose ${cluster}`,
        channel_id: CHANNEL,
        user_id: 'U0OBS',
      });
      expect(res.status).toBe(200);
    }
    await fake.waitFor(() => roots().length === 2 && roots().every((r) => replies(r).length === 1), 30_000);
    await roles.idle(10_000);

    const scraped = await get(`${base}/metrics`);
    expect(scraped.status).toBe(200);
    expectDiagnoseMetrics(scraped.text);

    const started = lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.msg === 'job started');
    expect([...new Set(started.map((l) => l.cluster))].sort()).toEqual(['local', 'secured']);
    for (const line of started) expect(line.jobId).toEqual(expect.any(String));
  });

  it('never logs a token, the signing secret or certificate contents', () => {
    expect(lines.length).toBeGreaterThan(5);
    expect(lines.join('\n')).toContain('[redacted]');
    expectNoSecrets(lines);
  });
});

describe('spawned processes', () => {
  const env = (prefixEnv: Record<string, string>) => ({
    REDIS_URL,
    ETCD_DOCTOR_CONFIG: join(dir, 'etcd-doctor.yaml'),
    SLACK_BOT_TOKEN: BOT_TOKEN,
    SLACK_API_URL: fake.url,
    REMEDIATION_SIGNING_KEY: TEST_SIGNING_KEY_TEXT,
    PORT: '0',
    LISTEN_HOST: '127.0.0.1',
    LOG_LEVEL: 'debug',
    ...prefixEnv,
  });

  it('etcd-doctor serve: answers a signed slash command, serves /metrics, logs no secret, stops on SIGTERM', async () => {
    const prefix = testPrefix('obs-serve');
    prefixes.push(prefix);
    fake.reset();
    const serve = spawnRole(
      ['serve', '--queue-prefix', prefix],
      env({ SLACK_SIGNING_SECRET: SIGNING_SECRET }),
    );
    const started = await serve.logged('etcd-doctor started');
    const base = `http://127.0.0.1:${String(started.port)}`;
    for (const cluster of ['local', 'secured'])
      await sendSlashCommand(`${base}/slack/events`, {
        text: `diagnose ${cluster}`,
        channel_id: CHANNEL,
        user_id: 'U1',
      });
    await fake.waitFor(() => roots().length === 2 && roots().every((r) => replies(r).length === 1), 30_000);
    await expect(get(`${base}/readyz`)).resolves.toEqual({ status: 200, text: 'ready\n' });
    // Each root is edited to its verdict right after its thread reply: a root left at a progress
    // line would be a bug a user sees, not a slow test.
    await fake.waitFor(() => roots().every((r) => !/probes done|starting/.test(r.text ?? '')), 15_000);
    expectDiagnoseMetrics((await get(`${base}/metrics`)).text);

    serve.child.kill('SIGTERM');
    await expect(within(serve.exited, 30_000, 'serve exits on SIGTERM')).resolves.toMatchObject({ code: 0 });
    const lines = serve.stderr().split('\n').filter(Boolean);
    expect(lines.some((l) => /"msg":"job started"/.test(l) && /"cluster":"secured"/.test(l))).toBe(true);
    expectNoSecrets(lines);
  }, 90_000);

  it('etcd-doctor serve in Socket Mode: connects out to Slack, and its own port takes /healthz and POST /alertmanager', async () => {
    const prefix = testPrefix('obs-socket');
    prefixes.push(prefix);
    fake.reset();
    const connectionsBefore = fake.socketMode.connections;
    const serve = spawnRole(
      ['serve', '--queue-prefix', prefix],
      env({ SLACK_APP_TOKEN: APP_TOKEN_SHAPE, ALERTMANAGER_TOKEN }),
    );
    const started = await serve.logged('etcd-doctor started');
    expect(started.mode).toBe('socket');
    await fake.waitFor(() => fake.socketMode.connections > connectionsBefore, 10_000);
    const base = `http://127.0.0.1:${String(started.port)}`;
    await expect(get(`${base}/healthz`)).resolves.toMatchObject({ status: 200 });

    const startsAt = new Date().toISOString();
    const alert = {
      status: 'firing',
      labels: { alertname: 'etcdMembersDown', cluster: 'local', instance: '127.20.0.13:2379', job: 'etcd' },
      annotations: { summary: 'etcd cluster members are down.' },
      startsAt,
      endsAt: '0001-01-01T00:00:00Z',
      generatorURL: 'http://prometheus.example:9090/graph',
      fingerprint: '5f3c8a1d2e4b6c70',
    };
    const res = await fetch(`${base}/alertmanager`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ALERTMANAGER_TOKEN}` },
      body: JSON.stringify({
        version: '4',
        groupKey: '{}:{alertname="etcdMembersDown"}',
        truncatedAlerts: 0,
        status: 'firing',
        receiver: 'etcd-doctor',
        groupLabels: { alertname: 'etcdMembersDown' },
        commonLabels: alert.labels,
        commonAnnotations: alert.annotations,
        externalURL: 'http://alertmanager.example:9093',
        alerts: [alert],
      }),
    });
    expect(res.status).toBe(202);
    await fake.waitFor(() => roots().length === 1 && replies(roots()[0] as FakeMessage).length >= 1, 30_000);
    expect((roots()[0] as FakeMessage).text).toMatch(/FIRING: etcdMembersDown on local/);

    serve.child.kill('SIGTERM');
    await expect(within(serve.exited, 30_000, 'serve exits on SIGTERM')).resolves.toMatchObject({ code: 0 });
    expectNoSecrets(serve.stderr().split('\n').filter(Boolean));
  }, 90_000);

  it('etcd-doctor worker: serves /healthz and /metrics, and on SIGTERM mid-diagnosis answers exactly once, then exits 0', async () => {
    const prefix = testPrefix('obs-sigterm');
    prefixes.push(prefix);
    fake.reset();
    const worker = spawnRole(['worker', '--queue-prefix', prefix], env({}));
    const started = await worker.logged('etcd-doctor started');
    const base = `http://127.0.0.1:${String(started.port)}`;
    await expect(get(`${base}/healthz`)).resolves.toMatchObject({ status: 200 });
    await expect(get(`${base}/readyz`)).resolves.toEqual({ status: 200, text: 'ready\n' });

    // A hung member makes the diagnosis last a probe timeout (1.5 s) or more: time to send SIGTERM.
    lab.stop('etcd-3');
    const producer = createRedisConnections(REDIS_URL);
    const queue = createJobQueue({ connection: producer.connect('test-obs-producer'), prefix });
    try {
      await queue.enqueue({
        v: 1,
        kind: 'check',
        depth: 'diagnose',
        cluster: 'local',
        channel: CHANNEL,
        user: 'U1',
        requestedAt: Date.now(),
      });
      await worker.logged('job started', 20_000);
      const sentAt = Date.now();
      worker.child.kill('SIGTERM');
      const exit = await within(worker.exited, 40_000, 'the worker exits after draining on SIGTERM');
      expect(exit.code).toBe(0);
      expect(exit.atMs - sentAt).toBeLessThan(27_000);
      await fake.waitFor(
        () => roots().length === 1 && replies(roots()[0] as FakeMessage).length >= 1,
        10_000,
      );
      // Nothing else answers later: the worker has exited, and its job completed before it did.
      const inspect = inspectQueue(prefix);
      try {
        const { completed } = await waitForQueueSettled(inspect, 1, 5000);
        expect(completed).toHaveLength(1);
      } finally {
        await inspect.close();
      }
      expect(roots()).toHaveLength(1);
      expect(replies(roots()[0] as FakeMessage)).toHaveLength(1);
      const lines = worker.stderr().split('\n').filter(Boolean);
      expect(lines.some((l) => /"msg":"shutting down/.test(l))).toBe(true);
      expectNoSecrets(lines);
    } finally {
      await lab.restart('etcd-3').catch(() => undefined);
      await queue.close();
      producer.shutdown();
    }
  }, 90_000);
});
