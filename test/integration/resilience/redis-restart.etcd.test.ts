import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { SlackAdapter } from '../../../src/chat/slack/slack-adapter.js';
import { type EtcdLab, startEtcdLab } from '../../support/lab/etcd-lab.js';
import { silentLogger } from '../../../src/logger.js';
import { type RunningRoles, startRoles } from '../../../src/roles/start-roles.js';
import { type FakeMessage, type FakeSlack, startFakeSlack } from '../../support/slack/fake-slack.js';
import { labConfig } from '../../support/lab/lab-config.js';
import { type PrivateRedis, startPrivateRedis } from '../../support/redis/private-redis.js';
import { ackText, messageText, sendSlashCommand } from '../../support/slack/slack-driver.js';
import { channelThreads, eventsUrl, httpSlackAdapter } from '../../support/slack/slack-http.js';

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
let redis: PrivateRedis;
let url: string;

const text = messageText;
const { roots, replies } = channelThreads(() => fake, CHANNEL);
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
  [lab, fake, redis] = await Promise.all([
    startEtcdLab(),
    startFakeSlack(),
    startPrivateRedis({ persist: false }),
  ]);
  chat = httpSlackAdapter(fake);
  roles = await startRoles({
    role: 'serve',
    chat,
    config: labConfig(lab),
    redisUrl: redis.url,
    queuePrefix: 'resilience-redis-restart',
    logger: silentLogger,
    tuning: { progressIntervalMs: 200, jobTimeoutMs: 20_000, backoffMs: 500, stalledIntervalMs: 1000 },
  });
  url = eventsUrl(chat);
}, 60_000);

afterAll(async () => {
  // stop() is bounded (1 s per part) when Redis is gone, so this cannot hang either.
  await roles?.stop();
  await Promise.all([redis?.destroy(), fake?.close(), lab?.destroy()]);
});

describe('Redis restarted mid-run', () => {
  it('answers before, refuses clearly during, and answers again after', async () => {
    const send = (cmd: string) => sendSlashCommand(url, { text: cmd, channel_id: CHANNEL, user_id: 'U111' });
    expect((await send('health local')).status).toBe(200);
    await answered(1, 20_000);

    await redis.stop();
    const during = await Promise.all(['health local', 'diagnose local', 'status'].map(send));
    for (const res of during) {
      expect(res.status).toBe(200);
      expect(res.ms).toBeLessThan(3000);
      expect(ackText(res)).toMatch(/queue is unavailable \(Redis does not answer\)/);
    }
    // Commands that need no queue still work.
    expect(ackText(await send('help'))).toContain('/etcd diagnose <cluster>');

    await redis.start();
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
    await redis.stop();
    const running = roles;
    roles = undefined;
    const started = Date.now();
    await running?.stop();
    // The bound is 1 s per part with Redis down (src/roles/shutdown.ts), far inside any grace period.
    expect(Date.now() - started).toBeLessThan(6000);
  }, 30_000);
});
