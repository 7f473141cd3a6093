import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { SlackAdapter } from '../../src/chat/slack/slack-adapter.js';
import { configFileSchema } from '../../src/config/schema.js';
import { silentLogger } from '../../src/logger.js';
import { type RunningRoles, startRoles } from '../../src/roles/start-roles.js';
import { type FakeSlack, startFakeSlack } from '../support/slack/fake-slack.js';
import { eventsUrl, httpSlackAdapter } from '../support/slack/slack-http.js';
import { blocksText, sendFileShare, shown } from '../support/slack/slack-driver.js';
import { purgePrefix, REDIS_URL, testPrefix } from '../support/redis/redis-prefix.js';

/**
 * The same offline triage in HTTP mode: Slack POSTs the `event_callback` (signed, JSON) to
 * /slack/events, Bolt answers 200 at once, and the worker answers in the thread.
 */

const SLOW_DISK_LOG = new URL(
  '../fixtures/kube/leaderelection-restarts/logs/kube-system/etcd-master-2/etcd.log',
  import.meta.url,
);
const DM = 'D0HTTP001';
let fake: FakeSlack;
let chat: SlackAdapter;
let roles: RunningRoles;
const prefix = testPrefix('slack-files-http');

beforeAll(async () => {
  fake = await startFakeSlack();
  chat = httpSlackAdapter(fake);
  roles = await startRoles({
    role: 'serve',
    chat,
    config: configFileSchema.parse({
      clusters: [{ name: 'local', etcd: { endpoints: ['http://127.0.0.1:9'] } }],
    }),
    redisUrl: REDIS_URL,
    queuePrefix: prefix,
    logger: silentLogger,
  });
});

afterAll(async () => {
  await roles?.stop();
  await fake?.close();
  await purgePrefix(prefix);
});

describe('Slack HTTP mode', () => {
  it('acks a message.im file_share event at once and answers in its thread', async () => {
    const file = fake.shareFile({ name: 'etcd-master-2.log', content: await readFile(SLOW_DISK_LOG) });
    const ts = `${Math.floor(Date.now() / 1000)}.000100`;
    const res = await sendFileShare(eventsUrl(chat), {
      channel: DM,
      user: 'U0HTTP001',
      ts,
      file,
      eventId: 'Ev0HTTP0001',
    });
    expect(res.status).toBe(200);
    await fake.waitFor(
      () => fake.messages(DM).some((m) => m.thread_ts === ts && /Root cause/.test(blocksText(m.blocks))),
      20_000,
    );
    const answer = fake
      .messages(DM)
      .find((m) => m.thread_ts === ts && m.blocks && /Root cause/.test(blocksText(m.blocks)));
    expect(shown(blocksText(answer?.blocks))).toMatch(
      /Root cause: `slow-disk`\* \(critical\) on etcd-master-2/,
    );
  });
});
