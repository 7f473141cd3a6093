import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { SlackAdapter } from '../../src/chat/slack/slack-adapter.js';
import { configFileSchema } from '../../src/config/schema.js';
import { silentLogger } from '../../src/logger.js';
import { healthRoutes } from '../../src/http/health-routes.js';
import { type RunningRoles, startRoles } from '../../src/roles/start-roles.js';
import { type FakeSlack, startFakeSlack } from '../support/slack/fake-slack.js';
import { blocksText, sendSlashCommand, shown } from '../support/slack/slack-driver.js';
import { eventsUrl, httpSlackAdapter } from '../support/slack/slack-http.js';

/** Redis down: the user is told the queue is unavailable, within Slack's ack window, not left in silence. */

let fake: FakeSlack;
let chat: SlackAdapter;
let roles: RunningRoles;
let url: string;
let closedPort: number;

/** A port that was just free: bind, read, close. Nothing listens there during the test. */
async function closedLoopbackPort(): Promise<number> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

beforeAll(async () => {
  fake = await startFakeSlack();
  closedPort = await closedLoopbackPort();
  chat = httpSlackAdapter(fake, {
    routes: healthRoutes(() => roles.redisReady()),
  });
  const config = configFileSchema.parse({
    clusters: [{ name: 'local', etcd: { endpoints: ['http://127.0.0.1:2379'] } }],
  });
  roles = await startRoles({
    role: 'serve',
    chat,
    config,
    redisUrl: `redis://127.0.0.1:${closedPort}`,
    queuePrefix: 'test-unavailable',
    logger: silentLogger,
  });
  url = eventsUrl(chat);
});

afterAll(async () => {
  await roles?.stop();
  await fake?.close();
});

describe('Redis unreachable', () => {
  it('answers "the queue is unavailable" within the ack window', async () => {
    const res = await sendSlashCommand(url, { text: 'diagnose local', channel_id: 'C111', user_id: 'U111' });
    expect(res.status).toBe(200);
    expect(res.ms).toBeLessThan(2500);
    const body = JSON.parse(res.text) as { text?: string; blocks?: unknown; response_type?: string };
    expect(body.response_type).toBe('ephemeral');
    expect(shown(blocksText(body.blocks))).toContain(
      'the queue is unavailable (Redis does not answer), try again in a minute',
    );
    expect(fake.messages()).toHaveLength(0);
  });

  it('still answers commands that need no queue', async () => {
    const res = await sendSlashCommand(url, { text: 'clusters', channel_id: 'C111', user_id: 'U111' });
    expect(shown(blocksText((JSON.parse(res.text) as { blocks?: unknown }).blocks))).toContain(
      '*local*: 1 endpoint',
    );
  });

  it('reports not ready on /readyz', async () => {
    const res = await fetch(url.replace('/slack/events', '/readyz'));
    expect(res.status).toBe(503);
    const health = await fetch(url.replace('/slack/events', '/healthz'));
    expect(health.status).toBe(200);
  });
});
