import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { SlackAdapter } from '../../../src/chat/slack/slack-adapter.js';
import { configFileSchema } from '../../../src/config/schema.js';
import { silentLogger } from '../../../src/logger.js';
import { type RunningRoles, startRoles } from '../../../src/roles/start-roles.js';
import { type FakeSlack, startFakeSlack } from '../../support/slack/fake-slack.js';
import { purgePrefix, REDIS_URL, testPrefix } from '../../support/redis/redis-prefix.js';
import { ackText, postSigned, sendSlashCommand } from '../../support/slack/slack-driver.js';
import { eventsUrl, httpSlackAdapter } from '../../support/slack/slack-http.js';
import { slashCommandForm } from '../../support/slack/slack-signing.js';

/**
 * What test/integration/slack-http.etcd.test.ts does not cover: a burst of forged and replayed
 * requests, and oversized bodies (signed or not), are refused, and the next genuine command is
 * answered as usual. Bot role only: nothing here reaches a worker.
 */

let fake: FakeSlack;
let chat: SlackAdapter;
let roles: RunningRoles;
let url: string;
const prefix = testPrefix('slack-hostile');

async function expectStillAnswering(): Promise<void> {
  const res = await sendSlashCommand(url, { text: 'help', channel_id: 'C111', user_id: 'U111' });
  expect(res.status).toBe(200);
  expect(ackText(res)).toContain('/etcd diagnose <cluster>');
}

beforeAll(async () => {
  fake = await startFakeSlack();
  chat = httpSlackAdapter(fake);
  roles = await startRoles({
    role: 'bot',
    chat,
    // Nothing listens on port 9 of loopback; no command here probes it.
    config: configFileSchema.parse({
      clusters: [{ name: 'local', etcd: { endpoints: ['http://127.0.0.1:9'] } }],
    }),
    redisUrl: REDIS_URL,
    queuePrefix: prefix,
    logger: silentLogger,
  });
  url = eventsUrl(chat);
});

afterAll(async () => {
  await roles?.stop();
  await fake?.close();
  await purgePrefix(prefix);
});

describe('Slack HTTP receiver under hostile requests', () => {
  it('refuses a concurrent burst of forged, wrong-secret and replayed requests, then answers a genuine one', async () => {
    const body = slashCommandForm({ text: 'diagnose local' });
    const nowS = Date.now() / 1000;
    const forged = Array.from({ length: 40 }, (_, i) =>
      postSigned(url, body, { signature: `v0=${i.toString(16).padStart(64, 'f')}` }),
    );
    const wrongSecret = Array.from({ length: 20 }, () => postSigned(url, body, { secret: 'guessed' }));
    // A genuine signature on an old timestamp: a captured request replayed after 5 minutes (contract §1.2).
    const replayed = [6 * 60, 60 * 60, 24 * 3600].map((ageS) =>
      postSigned(url, body, { timestampSeconds: nowS - ageS }),
    );
    // Not asserted: a timestamp in the future passes Bolt (contract §1.2); only Slack can sign one.
    const statuses = (await Promise.all([...forged, ...wrongSecret, ...replayed])).map((r) => r.status);
    expect(new Set(statuses)).toEqual(new Set([401]));
    // None of them queued anything or spoke in the channel.
    expect(fake.calls('chat.postMessage')).toHaveLength(0);
    expect(fake.calls('chat.postEphemeral')).toHaveLength(0);
    await expectStillAnswering();
  });

  it('refuses oversized bodies, signed or not, with 413 before parsing them', async () => {
    // The receiver reads at most 1 MiB (SLACK_BODY_LIMIT_BYTES); Slack's own payloads are far smaller.
    const huge = slashCommandForm({ text: `health ${'x'.repeat(12 * 1024 * 1024)}` });
    const forged = await postSigned(url, huge, { signature: `v0=${'0'.repeat(64)}` });
    const signed = await postSigned(url, huge);
    expect([forged.status, signed.status]).toEqual([413, 413]);
    expect(fake.calls('chat.postMessage')).toHaveLength(0);
    await expectStillAnswering();
  });

  it('refuses a 2 MiB body, signed or not, with 413: the limit is 1 MiB, not Bolt default 4 MiB', async () => {
    const twoMiB = slashCommandForm({ text: `health ${'x'.repeat(2 * 1024 * 1024)}` });
    const forged = await postSigned(url, twoMiB, { signature: `v0=${'0'.repeat(64)}` });
    const signed = await postSigned(url, twoMiB);
    expect([forged.status, signed.status]).toEqual([413, 413]);
    expect(fake.calls('chat.postMessage')).toHaveLength(0);
    await expectStillAnswering();
  });

  it('answers a long signed command under the limit with a short refusal', async () => {
    const long = await sendSlashCommand(url, {
      text: `health local ${'x '.repeat(200_000)}`,
      channel_id: 'C111',
      user_id: 'U111',
    });
    expect(long.status).toBe(200);
    expect(ackText(long)).toMatch(/too many arguments/);
    expect(long.text.length).toBeLessThan(4000);
    await expectStillAnswering();
  });

  it('a request that stops sending its body half-way does not stall the others', async () => {
    const { request } = await import('node:http');
    const target = new URL(url);
    const stalled = request({
      host: target.hostname,
      port: target.port,
      path: target.pathname,
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': '1000000' },
    });
    stalled.on('error', () => undefined);
    stalled.write('command=%2Fetcd&text=');
    try {
      await expectStillAnswering();
    } finally {
      stalled.destroy();
    }
  });
});
