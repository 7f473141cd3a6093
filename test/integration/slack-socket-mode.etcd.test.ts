import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createSlackAdapter, type SlackAdapter } from '../../src/chat/slack/slack-adapter.js';
import { type EtcdLab, startEtcdLab } from '../support/lab/etcd-lab.js';
import { silentLogger } from '../../src/logger.js';
import { type RunningRoles, startRoles } from '../../src/roles/start-roles.js';
import { Secret } from '../../src/secret.js';
import { type FakeMessage, type FakeSlack, startFakeSlack } from '../support/slack/fake-slack.js';
import { labConfig } from '../support/lab/lab-config.js';
import { purgePrefix, REDIS_URL, testPrefix } from '../support/redis/redis-prefix.js';
import { blocksText, shown } from '../support/slack/slack-driver.js';

/**
 * Socket Mode against the fake: apps.connections.open (through SLACK_API_URL), hello, a slash
 * command envelope and its ack, the answer through the Web API, and a reconnect after the server
 * drops the socket.
 */

const CHANNEL = 'C111';
let lab: EtcdLab;
let fake: FakeSlack;
let chat: SlackAdapter;
let roles: RunningRoles;
const prefix = testPrefix('slack-socket');

const threadReplies = (): FakeMessage[] => fake.messages(CHANNEL).filter((m) => m.thread_ts !== undefined);
const ackText = (payload: unknown): string => {
  const { text, blocks } = (payload ?? {}) as { text?: string; blocks?: unknown };
  return shown(`${text ?? ''}\n${blocksText(blocks)}`);
};

beforeAll(async () => {
  [lab, fake] = await Promise.all([startEtcdLab(), startFakeSlack()]);
  chat = createSlackAdapter({
    botToken: new Secret('xoxb-1-test'),
    appToken: new Secret('xapp-1-test'),
    apiUrl: fake.url,
    // Reconnect delay after a close is this times the failures in a row (contract §5.3).
    socketPingTimeoutMs: 1000,
    logger: silentLogger,
  });
  roles = await startRoles({
    role: 'serve',
    chat,
    config: labConfig(lab),
    redisUrl: REDIS_URL,
    queuePrefix: prefix,
    logger: silentLogger,
  });
});

afterAll(async () => {
  await roles?.stop();
  await Promise.all([fake?.close(), lab?.destroy()]);
  await purgePrefix(prefix);
});

describe('Slack Socket Mode', () => {
  it('connects through apps.connections.open at SLACK_API_URL with the app token', () => {
    const opens = fake.calls('apps.connections.open');
    expect(opens).toHaveLength(1);
    expect(opens[0]?.token).toBe('xapp-1-test');
    expect(fake.socketMode.connections).toBe(1);
  });

  it('acks a slash command envelope and answers in a thread', async () => {
    const ack = await fake.socketMode.sendSlashCommand({
      text: 'health local',
      channel_id: CHANNEL,
      user_id: 'U111',
    });
    expect(ackText(ack)).toContain('Checking the health of *local*');
    await fake.waitFor(() => threadReplies().length === 1, 20_000);
    const reply = threadReplies()[0] as FakeMessage;
    expect(shown(blocksText(reply.blocks))).toMatch(/`etcd-1`[\s\S]*`etcd-2`[\s\S]*`etcd-3`/);
  });

  it('reconnects after the server drops the socket, and keeps answering', async () => {
    fake.reset();
    fake.socketMode.dropConnection();
    await fake.socketMode.waitForConnections(2, 15_000);
    expect(fake.calls('apps.connections.open')).toHaveLength(1);
    const ack = await fake.socketMode.sendSlashCommand({
      text: 'diagnose nowhere',
      channel_id: CHANNEL,
      user_id: 'U111',
    });
    expect(ackText(ack)).toContain('unknown cluster "nowhere"; known clusters: local');
  });

  it('reconnects after a refresh_requested disconnect', async () => {
    fake.socketMode.disconnect('refresh_requested');
    await fake.socketMode.waitForConnections(3, 15_000);
    const ack = await fake.socketMode.sendSlashCommand({
      text: 'clusters',
      channel_id: CHANNEL,
      user_id: 'U111',
    });
    expect(ackText(ack)).toContain('*local*: 3 endpoints');
    expect(fake.socketMode.openConnections).toBe(1);
  });
});
