import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { SlackAdapter } from '../../../src/chat/slack/slack-adapter.js';
import { silentLogger } from '../../../src/logger.js';
import { type RunningRoles, startRoles } from '../../../src/roles/start-roles.js';
import { type FakeMessage, type FakeSlack, startFakeSlack } from '../../support/slack/fake-slack.js';
import { type EtcdLab, startEtcdLab } from '../../support/lab/etcd-lab.js';
import { labConfig } from '../../support/lab/lab-config.js';
import { type PrivateRedis, startPrivateRedis } from '../../support/redis/private-redis.js';
import {
  ackText,
  buttonsIn,
  messageText,
  sendBlockAction,
  sendSlashCommand,
} from '../../support/slack/slack-driver.js';
import { channelThreads, eventsUrl, httpSlackAdapter } from '../../support/slack/slack-http.js';
import { TEST_SIGNING_KEY } from '../../support/redis/signing-key.js';

/**
 * A Redis without persistence (a real redis-server of the test's own) restarts while a request is
 * queued and no worker has taken it yet: Redis forgets the job. When the bot's connection comes
 * back, the user who asked is told "this request was lost with Redis; run it again" with a button,
 * not silence; a request answered before the restart gets no such message; the button runs the
 * diagnosis again and it is answered in its thread.
 */

const CHANNEL = 'C111';
const USER = 'U111';
const PREFIX = 'resilience-lost-jobs';
const TUNING = { progressIntervalMs: 200, jobTimeoutMs: 20_000, backoffMs: 500, stalledIntervalMs: 1000 };

let lab: EtcdLab;
let fake: FakeSlack;
let redis: PrivateRedis;
let bot: RunningRoles | undefined;
let worker: RunningRoles | undefined;
let url: string;

const text = messageText;
const { roots, replies } = channelThreads(() => fake, CHANNEL);
const send = (cmd: string) => sendSlashCommand(url, { text: cmd, channel_id: CHANNEL, user_id: USER });
const lostNotices = () => roots().filter((m) => /lost with Redis/.test(text(m)));

function startRole(role: 'bot' | 'worker', chat: SlackAdapter): Promise<RunningRoles> {
  return startRoles({
    role,
    chat,
    config: labConfig(lab),
    redisUrl: redis.url,
    queuePrefix: PREFIX,
    logger: silentLogger,
    tuning: TUNING,
    signingKey: TEST_SIGNING_KEY,
  });
}

beforeAll(async () => {
  [lab, fake, redis] = await Promise.all([
    startEtcdLab(),
    startFakeSlack(),
    startPrivateRedis({ persist: false }),
  ]);
  const chat = httpSlackAdapter(fake);
  bot = await startRole('bot', chat);
  worker = await startRole('worker', httpSlackAdapter(fake));
  url = eventsUrl(chat);
}, 60_000);

afterAll(async () => {
  await Promise.all([bot?.stop(), worker?.stop()]);
  await Promise.all([redis?.destroy(), fake?.close(), lab?.destroy()]);
});

describe('a queued request that Redis loses in a restart without persistence', () => {
  it('is answered "lost with Redis" with a button that runs it again; an answered one is not', async () => {
    // Answered before the restart: its markers vanish with Redis too, and it must stay quiet.
    expect((await send('health local')).status).toBe(200);
    await fake.waitFor(() => roots().length === 1 && replies(roots()[0] as FakeMessage).length > 0, 20_000);

    // No worker: the next request waits in the queue when Redis restarts empty.
    await worker?.stop();
    worker = undefined;
    const queued = await send('diagnose local');
    expect(ackText(queued)).not.toMatch(/unavailable/);
    await redis.restart();

    await fake.waitFor(() => lostNotices().length > 0, 30_000);
    const [notice] = lostNotices();
    expect(text(notice as FakeMessage)).toMatch(
      /<@U111> your diagnose of local: this request was lost with Redis; run it again/,
    );
    const [button] = buttonsIn((notice as FakeMessage).blocks);
    expect(button?.label).toBe('Run again');
    // One notice, for the diagnosis only: the health check was answered before Redis restarted.
    expect(lostNotices()).toHaveLength(1);
    expect(roots()).toHaveLength(2);

    worker = await startRole('worker', httpSlackAdapter(fake));
    const click = await sendBlockAction(url, {
      user: USER,
      channel: CHANNEL,
      messageTs: (notice as FakeMessage).ts,
      actionId: button?.actionId ?? '',
      value: button?.value ?? '',
      label: button?.label ?? '',
    });
    expect(click.status).toBe(200);
    await fake.waitFor(() => {
      const rerun = roots()[2];
      return rerun !== undefined && replies(rerun).some((r) => /Diagnosis of local/.test(text(r)));
    }, 30_000);
    expect(lostNotices()).toHaveLength(1);
  }, 120_000);
});
