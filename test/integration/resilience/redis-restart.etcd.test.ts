import { type ChildProcess, spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { SlackAdapter } from '../../../src/chat/slack/slack-adapter.js';
import { type EtcdLab, startEtcdLab } from '../../support/lab/etcd-lab.js';
import { allocateFreePorts } from '../../support/lab/free-ports.js';
import { silentLogger } from '../../../src/logger.js';
import { type RunningRoles, startRoles } from '../../../src/roles/start-roles.js';
import { type FakeMessage, type FakeSlack, startFakeSlack } from '../../support/fake-slack.js';
import { labConfig } from '../../support/lab-config.js';
import { ackText, messageText, sendSlashCommand } from '../../support/slack-driver.js';
import { channelThreads, eventsUrl, httpSlackAdapter } from '../../support/slack-http.js';

/**
 * A private redis-server on a free loopback port, stopped mid-run and started again on the same
 * port: a command before the outage is answered, commands during it get a clear "queue unavailable"
 * within Slack's 3 s ack window, and commands after it are answered again. Nothing waits unbounded.
 */

const CHANNEL = 'C111';
let lab: EtcdLab;
let fake: FakeSlack;
let chat: SlackAdapter;
let roles: RunningRoles | undefined;
let redis: ChildProcess | undefined;
let redisPort: number;
let url: string;

const text = messageText;
const { roots, replies } = channelThreads(() => fake, CHANNEL);
async function startRedis(): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: ['ignore', 'pipe', 'ignore'] },
  );
  let out = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`redis-server did not start: ${out}`)), 10_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      if (out.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  return child;
}

async function stopRedis(): Promise<void> {
  const child = redis;
  redis = undefined;
  if (!child || child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

/** Answered: one reply in the thread and a verdict on the root. */
async function answered(count: number, timeoutMs: number): Promise<void> {
  await fake.waitFor(
    () =>
      roots().length >= count &&
      roots().every((r) => replies(r).length > 0 && !/probes done|starting/.test(text(r))),
    timeoutMs,
  );
}

beforeAll(async () => {
  [lab, fake] = await Promise.all([startEtcdLab(), startFakeSlack()]);
  [redisPort = 0] = await allocateFreePorts(1, '127.0.0.1');
  redis = await startRedis();
  chat = httpSlackAdapter(fake);
  roles = await startRoles({
    role: 'serve',
    chat,
    config: labConfig(lab),
    redisUrl: `redis://127.0.0.1:${redisPort}`,
    queuePrefix: 'resilience-redis-restart',
    logger: silentLogger,
    tuning: { progressIntervalMs: 200, jobTimeoutMs: 20_000, backoffMs: 500, stalledIntervalMs: 1000 },
  });
  url = eventsUrl(chat);
}, 60_000);

afterAll(async () => {
  // stop() is bounded (1 s per part) when Redis is gone, so this cannot hang either.
  await roles?.stop();
  await stopRedis();
  await Promise.all([fake?.close(), lab?.destroy()]);
});

describe('Redis restarted mid-run', () => {
  it('answers before, refuses clearly during, and answers again after', async () => {
    const send = (cmd: string) => sendSlashCommand(url, { text: cmd, channel_id: CHANNEL, user_id: 'U111' });
    expect((await send('health local')).status).toBe(200);
    await answered(1, 20_000);

    await stopRedis();
    const during = await Promise.all(['health local', 'diagnose local', 'status'].map(send));
    for (const res of during) {
      expect(res.status).toBe(200);
      expect(res.ms).toBeLessThan(3000);
      expect(ackText(res)).toMatch(/queue is unavailable \(Redis does not answer\)/);
    }
    // Commands that need no queue still work.
    expect(ackText(await send('help'))).toContain('/etcd diagnose <cluster>');

    redis = await startRedis();
    // The bot reconnects on its own; ioredis backs off, so allow a few seconds before the first try.
    const deadline = Date.now() + 30_000;
    let queued = false;
    while (!queued && Date.now() < deadline) {
      const res = await send('health local');
      queued = !/queue is unavailable/.test(ackText(res));
      if (!queued) await new Promise((r) => setTimeout(r, 500));
    }
    expect(queued).toBe(true);
    await send('diagnose local');
    await answered(2, 30_000);
    const [, after] = roots();
    expect(replies(after as FakeMessage)).toHaveLength(1);
    expect(text(replies(after as FakeMessage)[0] as FakeMessage)).toMatch(/(Health|Diagnosis) of local/);
  }, 90_000);

  it('shuts down within seconds while Redis is gone (nothing waits on a dead connection)', async () => {
    await stopRedis();
    const running = roles;
    roles = undefined;
    const started = Date.now();
    await running?.stop();
    // The bound is 1 s per part with Redis down (src/roles/shutdown.ts), far inside any grace period.
    expect(Date.now() - started).toBeLessThan(6000);
  }, 30_000);
});
