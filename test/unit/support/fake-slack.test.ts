import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { verifySlackRequest } from '@slack/bolt';
import type { Logger } from '@slack/logger';
import { SocketModeClient } from '@slack/socket-mode';
import { ErrorCode, LogLevel, WebClient } from '@slack/web-api';
import WebSocket from 'ws';
import { type FakeSlack, startFakeSlack } from '../../support/slack/fake-slack.js';
import { blockActionsForm, signSlackRequest, slashCommandForm } from '../../support/slack/slack-signing.js';

// Copies of ../shared/reference/slack-samples (Slack's documented payloads), kept in the repo.
const SAMPLES = new URL('../../fixtures/slack-samples/', import.meta.url);
const sample = (name: string): string => readFileSync(new URL(name, SAMPLES), 'utf8');

const BOT_TOKEN = 'xoxb-1-test';
const noop = (): undefined => undefined;
/** The SDKs log every `[ERROR]` Slack returns; these tests provoke them on purpose. */
const logger: Logger = {
  debug: noop,
  info: noop,
  warn: noop,
  error: noop,
  setLevel: noop,
  setName: noop,
  getLevel: () => LogLevel.ERROR,
};
const section = (text: string) => ({ type: 'section', text: { type: 'mrkdwn', text } });
const button = (over: Record<string, unknown> = {}) => ({
  type: 'button',
  action_id: 'restart',
  text: { type: 'plain_text', text: 'Restart' },
  value: 'etcd-2',
  ...over,
});

/** The WebAPIPlatformError body (or the error itself when it is something else). */
async function rejection(
  promise: Promise<unknown>,
): Promise<{ code?: unknown; data?: Record<string, unknown> }> {
  try {
    await promise;
  } catch (error) {
    return error as { code?: unknown; data?: Record<string, unknown> };
  }
  throw new Error('expected the call to fail');
}

let fake: FakeSlack;
let client: WebClient;

beforeAll(async () => {
  fake = await startFakeSlack({ userGroups: { S0ONCALL: ['U111', 'U222'] } });
  client = new WebClient(BOT_TOKEN, { slackApiUrl: fake.url, logger });
});
afterEach(() => fake.reset());
afterAll(async () => fake.close());

describe('fake Slack Web API with the real WebClient', () => {
  it('answers auth.test with the bot identity Bolt reads', async () => {
    const result = await client.auth.test();
    expect(result).toMatchObject({
      ok: true,
      user_id: fake.botUserId,
      bot_id: fake.botId,
      team_id: fake.teamId,
    });
    expect(fake.calls('auth.test')[0]?.token).toBe(BOT_TOKEN);
  });

  it('posts a message, replies in its thread and updates the reply', async () => {
    const parent = await client.chat.postMessage({ channel: 'C0ETCD', text: 'etcd health: prod' });
    const reply = await client.chat.postMessage({
      channel: 'C0ETCD',
      thread_ts: String(parent.ts),
      text: 'probing members…',
      blocks: [section('probing members…')],
    });
    expect(reply.channel).toBe('C0ETCD');
    expect(reply.message).toMatchObject({
      text: 'probing members…',
      thread_ts: parent.ts,
      bot_id: fake.botId,
    });
    const updated = await client.chat.update({
      channel: 'C0ETCD',
      ts: String(reply.ts),
      text: 'etcd-2 is down',
      blocks: [section('*etcd-2* (https://127.20.0.13:2379) did not answer')],
    });
    expect(updated).toMatchObject({ ok: true, ts: reply.ts, text: 'etcd-2 is down' });
    const [first, second] = fake.messages('C0ETCD');
    expect(first).toMatchObject({ text: 'etcd health: prod', thread_ts: undefined, updates: 0 });
    expect(second).toMatchObject({ ts: reply.ts, thread_ts: parent.ts, text: 'etcd-2 is down', updates: 1 });
    expect(second?.blocks).toEqual([section('*etcd-2* (https://127.20.0.13:2379) did not answer')]);
    // WebClient sends form bodies with blocks JSON-stringified; the fake records them decoded.
    expect(fake.calls('chat.postMessage')[1]?.body.blocks).toEqual([section('probing members…')]);
  });

  it('keeps text and blocks that chat.update does not send, and maps #names to one channel id', async () => {
    const posted = await client.chat.postMessage({
      channel: '#etcd-alerts',
      text: 'a',
      blocks: [section('a')],
    });
    await client.chat.update({ channel: String(posted.channel), ts: String(posted.ts), text: 'b' });
    expect(fake.messages('#etcd-alerts')).toEqual([
      expect.objectContaining({ channel: posted.channel, text: 'b', blocks: [section('a')], updates: 1 }),
    ]);
    const missing = await rejection(
      client.chat.update({ channel: String(posted.channel), ts: '1.000001', text: 'x' }),
    );
    expect(missing.data?.error).toBe('message_not_found');
  });

  it('deletes a message', async () => {
    const posted = await client.chat.postMessage({ channel: 'C0ETCD', text: 'gone soon' });
    await client.chat.delete({ channel: 'C0ETCD', ts: String(posted.ts) });
    expect(fake.messages()).toEqual([]);
  });

  it('accepts 50 blocks and rejects 51 with invalid_blocks', async () => {
    const blocks = Array.from({ length: 51 }, (_, i) => section(`member ${i}`));
    await expect(
      client.chat.postMessage({ channel: 'C0ETCD', text: 'ok', blocks: blocks.slice(0, 50) }),
    ).resolves.toBeDefined();
    const error = await rejection(client.chat.postMessage({ channel: 'C0ETCD', text: 'too many', blocks }));
    expect(error.code).toBe(ErrorCode.PlatformError);
    expect(error.data).toMatchObject({
      ok: false,
      error: 'invalid_blocks',
      errors: ['no more than 50 items allowed [json-pointer:/blocks]'],
      response_metadata: { messages: ['[ERROR] no more than 50 items allowed [json-pointer:/blocks]'] },
    });
    expect(fake.messages()).toHaveLength(1);
  });

  it('rejects a 3001-character section like the observed Slack answer', async () => {
    await expect(
      client.chat.postMessage({ channel: 'C0ETCD', text: 't', blocks: [section('x'.repeat(3000))] }),
    ).resolves.toBeDefined();
    const error = await rejection(
      client.chat.postMessage({ channel: 'C0ETCD', text: 't', blocks: [section('x'.repeat(3001))] }),
    );
    expect(error.data?.error).toBe('invalid_blocks');
    expect(error.data?.errors).toEqual([
      'failed to match all allowed schemas [json-pointer:/blocks/0/text]',
      'must be less than 3001 characters [json-pointer:/blocks/0/text/text]',
    ]);
  });

  const field = (text: string) => ({ type: 'mrkdwn', text });
  it.each([
    [
      'header text 151',
      { type: 'header', text: { type: 'plain_text', text: 'h'.repeat(151) } },
      '/blocks/0/text/text',
    ],
    [
      '11 section fields',
      { type: 'section', fields: Array.from({ length: 11 }, () => field('f')) },
      '/blocks/0/fields',
    ],
    ['section field 2001', { type: 'section', fields: [field('f'.repeat(2001))] }, '/blocks/0/fields/0/text'],
    [
      'button value 2001',
      { type: 'actions', elements: [button({ value: 'v'.repeat(2001) })] },
      '/blocks/0/elements/0/value',
    ],
    [
      'button text 76',
      { type: 'actions', elements: [button({ text: { type: 'plain_text', text: 'b'.repeat(76) } })] },
      '/blocks/0/elements/0/text/text',
    ],
    [
      'action_id 256',
      { type: 'actions', elements: [button({ action_id: 'a'.repeat(256) })] },
      '/blocks/0/elements/0/action_id',
    ],
    [
      '26 actions elements',
      { type: 'actions', elements: Array.from({ length: 26 }, () => button()) },
      '/blocks/0/elements',
    ],
    [
      '11 context elements',
      { type: 'context', elements: Array.from({ length: 11 }, () => field('c')) },
      '/blocks/0/elements',
    ],
    [
      'accessory button value 2001',
      { ...section('s'), accessory: button({ value: 'v'.repeat(2001) }) },
      '/blocks/0/accessory/value',
    ],
  ])('rejects %s', async (_name, block, pointer) => {
    const error = await rejection(client.chat.postMessage({ channel: 'C0ETCD', text: 't', blocks: [block] }));
    expect(error.data?.error).toBe('invalid_blocks');
    expect(String(error.data?.errors)).toContain(`[json-pointer:${pointer}]`);
  });

  it('accepts blocks exactly at the limits', async () => {
    const blocks = [
      { type: 'header', text: { type: 'plain_text', text: 'h'.repeat(150) } },
      { type: 'section', fields: Array.from({ length: 10 }, () => field('f'.repeat(2000))) },
      {
        type: 'actions',
        elements: Array.from({ length: 25 }, (_, i) =>
          button({
            action_id: `${i}`.padEnd(255, 'a'),
            value: 'v'.repeat(2000),
            text: { type: 'plain_text', text: 'b'.repeat(75) },
          }),
        ),
      },
      { type: 'context', elements: Array.from({ length: 10 }, () => field('c')) },
    ];
    await expect(client.chat.postMessage({ channel: 'C0ETCD', text: 't', blocks })).resolves.toMatchObject({
      ok: true,
    });
  });

  it('truncates text over 40,000 characters and warns like Slack', async () => {
    const result = await client.chat.postMessage({ channel: 'C0ETCD', text: 'y'.repeat(40_001) });
    expect(result.response_metadata).toMatchObject({ warnings: ['message_truncated'] });
    expect(fake.messages()[0]?.text).toHaveLength(40_000);
  });

  it('answers 429 with Retry-After; the default WebClient waits and delivers exactly one message', async () => {
    fake.failNext('chat.postMessage', { status: 429, retryAfterSeconds: 1 });
    const startedAt = Date.now();
    await client.chat.postMessage({ channel: 'C0ETCD', text: 'after the rate limit' });
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(950);
    expect(fake.calls('chat.postMessage').map((c) => [c.status, c.error])).toEqual([
      [429, 'ratelimited'],
      [200, undefined],
    ]);
    expect(fake.messages().map((m) => m.text)).toEqual(['after the rate limit']);
  });

  it('answers scripted 5xx and ok:false failures', async () => {
    const once = new WebClient(BOT_TOKEN, {
      slackApiUrl: fake.url,
      retryConfig: { retries: 0 },
      logger,
    });
    fake.failNext('chat.postMessage', { status: 503 });
    const http = await rejection(once.chat.postMessage({ channel: 'C0ETCD', text: 'x' }));
    expect(http).toMatchObject({ code: ErrorCode.HTTPError, statusCode: 503 });
    fake.failNext('chat.postMessage', { ok: false, error: 'channel_not_found' }, 2);
    for (let i = 0; i < 2; i += 1) {
      expect((await rejection(once.chat.postMessage({ channel: 'C0ETCD', text: 'x' }))).data?.error).toBe(
        'channel_not_found',
      );
    }
    await once.chat.postMessage({ channel: 'C0ETCD', text: 'third time' });
    expect(fake.messages().map((m) => m.text)).toEqual(['third time']);
  });

  it('refuses missing, malformed and wrong-type tokens like Slack', async () => {
    const anonymous = new WebClient(undefined, { slackApiUrl: fake.url, logger });
    expect((await rejection(anonymous.chat.postMessage({ channel: 'C1', text: 'x' }))).data?.error).toBe(
      'not_authed',
    );
    const bogus = new WebClient('nonsense', { slackApiUrl: fake.url, logger });
    expect((await rejection(bogus.auth.test())).data?.error).toBe('invalid_auth');
    const appToken = new WebClient('xapp-1-test', { slackApiUrl: fake.url, logger });
    expect((await rejection(appToken.chat.postMessage({ channel: 'C1', text: 'x' }))).data?.error).toBe(
      'not_allowed_token_type',
    );
    expect((await rejection(client.apps.connections.open())).data?.error).toBe('not_allowed_token_type');
    // A per-call token in the form body is accepted (Bolt's auth.test({ token }) sends it there too).
    await expect(anonymous.auth.test({ token: BOT_TOKEN })).resolves.toMatchObject({ ok: true });
  });

  it('takes JSON bodies only with the token in the Authorization header', async () => {
    const post = (headers: Record<string, string>, body: unknown) =>
      fetch(`${fake.url}chat.postMessage`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      }).then((r) => r.json());
    await expect(post({}, { token: BOT_TOKEN, channel: 'C1', text: 'x' })).resolves.toEqual({
      ok: false,
      error: 'not_authed',
    });
    await expect(
      post({ authorization: `Bearer ${BOT_TOKEN}` }, { channel: 'C1', text: 'json', blocks: [section('j')] }),
    ).resolves.toMatchObject({ ok: true });
    expect(fake.messages('C1')[0]?.blocks).toEqual([section('j')]);
  });

  it('records an ephemeral message without adding it to the channel', async () => {
    const result = await client.chat.postEphemeral({
      channel: 'C0ETCD',
      user: 'U111',
      text: 'only you can see this',
    });
    expect(result).toMatchObject({ ok: true, message_ts: expect.any(String) });
    expect(fake.ephemerals('C0ETCD')).toEqual([
      { channel: 'C0ETCD', user: 'U111', text: 'only you can see this' },
    ]);
    expect(fake.messages()).toEqual([]);
  });

  it('records a file uploaded with filesUploadV2 in a thread', async () => {
    const parent = await client.chat.postMessage({ channel: 'C0ETCD', text: 'diagnosis' });
    await client.filesUploadV2({
      channel_id: 'C0ETCD',
      thread_ts: String(parent.ts),
      filename: 'endpoint-status.json',
      title: 'endpoint status',
      content: '{"members":3}',
    });
    expect(fake.calls().map((c) => c.method)).toEqual([
      'chat.postMessage',
      'files.getUploadURLExternal',
      'files.completeUploadExternal',
    ]);
    expect(fake.files()).toEqual([
      expect.objectContaining({
        channel: 'C0ETCD',
        thread_ts: parent.ts,
        filename: 'endpoint-status.json',
        content: '{"members":3}',
        title: 'endpoint status',
      }),
    ]);
  });

  it('records a binary file byte for byte, with its declared length, title and alt text', async () => {
    const parent = await client.chat.postMessage({ channel: 'C0ETCD', text: 'diagnosis' });
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff, 0xfe, 0x80]);
    await client.filesUploadV2({
      channel_id: 'C0ETCD',
      thread_ts: String(parent.ts),
      filename: 'chart.png',
      title: 'wal fsync p99 per member',
      alt_text: 'Bar chart: etcd-2 186 ms',
      file: png,
    });
    const [file] = fake.files();
    expect(file?.bytes.equals(png)).toBe(true);
    expect(file).toMatchObject({
      thread_ts: parent.ts,
      length: png.length,
      title: 'wal fsync p99 per member',
      alt_txt: 'Bar chart: etcd-2 186 ms',
      // Slack documents alt_txt; the SDK helper sends alt_text.
      altTextParam: 'alt_text',
    });
  });

  it('answers getUploadURLExternal as Slack documents: length 0 and alt text over 1000 characters fail', async () => {
    await expect(client.files.getUploadURLExternal({ filename: 'a.png', length: 0 })).rejects.toMatchObject({
      data: { ok: false, error: 'missing_argument' },
    });
    await expect(
      client.apiCall('files.getUploadURLExternal', {
        filename: 'a.png',
        length: 10,
        alt_txt: 'x'.repeat(1001),
      }),
    ).rejects.toMatchObject({ data: { ok: false, error: 'alt_txt_too_large' } });
    await expect(
      client.files.completeUploadExternal({ files: [{ id: 'FNEVERISSUED' }], channel_id: 'C0ETCD' }),
    ).rejects.toMatchObject({ data: { ok: false, error: 'file_not_found' } });
  });

  it('opens a modal and checks modal limits', async () => {
    const title = (text: string) => ({ type: 'plain_text' as const, text });
    const view = {
      type: 'modal' as const,
      callback_id: 'confirm',
      title: title('Defragment etcd-2?'),
      blocks: [section('sure?')],
    };
    const opened = await client.views.open({ trigger_id: '123.456.abc', view });
    expect(opened.view).toMatchObject({
      id: expect.any(String),
      callback_id: 'confirm',
      state: { values: {} },
    });
    expect(fake.views()[0]?.view).toEqual(view);
    const long = { ...view, title: title('t'.repeat(25)) };
    const error = await rejection(client.views.open({ trigger_id: '123.456.abd', view: long }));
    expect(error.data).toMatchObject({
      error: 'invalid_arguments',
      errors: ['must be less than 25 characters [json-pointer:/view/title/text]'],
    });
  });

  it('answers users.info and usergroups.users.list', async () => {
    await expect(client.users.info({ user: 'U222' })).resolves.toMatchObject({
      user: { id: 'U222', team_id: fake.teamId },
    });
    await expect(client.usergroups.users.list({ usergroup: 'S0ONCALL' })).resolves.toMatchObject({
      users: ['U111', 'U222'],
    });
    fake.setUserGroup('S0EMPTY', []);
    await expect(client.usergroups.users.list({ usergroup: 'S0EMPTY' })).resolves.toMatchObject({
      users: [],
    });
    expect((await rejection(client.usergroups.users.list({ usergroup: 'S0NOPE' }))).data?.error).toBe(
      'no_such_subteam',
    );
  });

  it('waitFor gives up with the calls it saw', async () => {
    await client.auth.test();
    await expect(fake.waitFor((f) => f.messages().length > 0, 100)).rejects.toThrow(/auth\.test/);
  });
});

describe('fake Socket Mode with the real SocketModeClient', () => {
  it('connects, delivers a slash command, takes the ack and survives disconnect and a dropped socket', async () => {
    const socket = new SocketModeClient({
      appToken: 'xapp-1-test',
      clientOptions: { slackApiUrl: fake.url },
      logger,
    });
    const seen: unknown[] = [];
    socket.on(
      'slash_commands',
      async ({ ack, body }: { ack: (r?: object) => Promise<void>; body: { text: string } }) => {
        seen.push(body);
        await ack({ text: `checking ${body.text}` });
      },
    );
    try {
      await socket.start();
      expect(fake.socketMode.connections).toBe(1);
      await expect(fake.socketMode.sendSlashCommand({ text: 'health prod' })).resolves.toEqual({
        text: 'checking health prod',
      });
      expect(seen[0]).toMatchObject({
        command: '/etcd',
        text: 'health prod',
        team_id: fake.teamId,
        api_app_id: fake.appId,
      });

      fake.socketMode.disconnect('refresh_requested');
      await fake.socketMode.waitForConnections(2);
      await expect(fake.socketMode.sendSlashCommand({ text: 'after refresh' })).resolves.toEqual({
        text: 'checking after refresh',
      });

      fake.socketMode.dropConnection();
      await fake.socketMode.waitForConnections(3);
      await expect(fake.socketMode.sendSlashCommand({ text: 'after drop' })).resolves.toEqual({
        text: 'checking after drop',
      });
      expect(fake.calls('apps.connections.open')).toHaveLength(3);
      expect(fake.socketMode.openConnections).toBe(1);
    } finally {
      await socket.disconnect();
    }
  }, 30_000);

  it('speaks the envelope protocol to a raw WebSocket client', async () => {
    let nowMs = Date.now();
    const quick = await startFakeSlack({ ackTimeoutMs: 200, triggerTtlMs: 300, now: () => nowMs });
    const quickClient = new WebClient(BOT_TOKEN, { slackApiUrl: quick.url, logger });
    try {
      const { url } = await quickClient.apps.connections.open({ token: 'xapp-1-test' });
      const ws = new WebSocket(String(url));
      const frames: unknown[] = [];
      ws.on('message', (data) => frames.push(JSON.parse(String(data))));
      const nextFrame = async (n: number) => {
        while (frames.length < n) await new Promise((r) => setTimeout(r, 10));
        return frames[n - 1] as { envelope_id: string; payload: Record<string, string> };
      };
      expect(await nextFrame(1)).toMatchObject({ type: 'hello', connection_info: { app_id: quick.appId } });

      const acked = quick.socketMode.sendSlashCommand({ text: 'defrag prod' });
      const envelope = await nextFrame(2);
      expect(envelope).toMatchObject({
        type: 'slash_commands',
        accepts_response_payload: true,
        payload: { text: 'defrag prod' },
      });
      ws.send(JSON.stringify({ envelope_id: envelope.envelope_id })); // Python-style ack: no payload
      await expect(acked).resolves.toBeUndefined();

      // A trigger the fake minted works once (contract §3.4).
      const view = {
        type: 'modal' as const,
        title: { type: 'plain_text' as const, text: 'Defrag' },
        blocks: [],
      };
      const trigger_id = envelope.payload.trigger_id ?? '';
      await expect(quickClient.views.open({ trigger_id, view })).resolves.toMatchObject({ ok: true });
      expect((await rejection(quickClient.views.open({ trigger_id, view }))).data?.error).toBe(
        'exchanged_trigger_id',
      );

      // response_url points back at the fake; invalid blocks there get 400 like hooks.slack.com.
      const respond = (body: unknown) =>
        fetch(envelope.payload.response_url ?? '', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      expect((await respond({ text: 'defragmented' })).status).toBe(200);
      expect((await respond({ blocks: [section('x'.repeat(3001))] })).status).toBe(400);
      expect(quick.responses().map((r) => [r.body, r.status])).toEqual([
        [{ text: 'defragmented' }, 200],
        [{ blocks: [section('x'.repeat(3001))] }, 400],
      ]);

      const late = quick.socketMode.sendInteractive({ type: 'block_actions', actions: [] });
      await expect(late).rejects.toThrow(/did not ack/);
      const stale = (await nextFrame(3)).payload.trigger_id ?? '';
      nowMs += 301;
      expect((await rejection(quickClient.views.open({ trigger_id: stale, view }))).data?.error).toBe(
        'expired_trigger_id',
      );

      const reused = new WebSocket(String(url));
      const status = await new Promise<number | undefined>((resolve) =>
        reused.once('unexpected-response', (_req, res) => resolve(res.statusCode)),
      );
      expect(status).toBe(401);
      ws.close();
    } finally {
      await quick.close();
    }
  });
});

describe('request signing', () => {
  const secret = '8f742231b10e8888abcd99yyyzzz85a5';
  const body = sample('slash-command.signed-example.form.txt').replace(/\n$/, '');

  it('reproduces the documented signature', () => {
    expect(signSlackRequest(body, secret, 1531420618)).toEqual({
      'x-slack-signature': 'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503',
      'x-slack-request-timestamp': '1531420618',
    });
  });

  it('builds the documented slash command body byte for byte', () => {
    const form = slashCommandForm({
      token: 'xyzz0WbapA4vBCDEFasx0q6G',
      team_id: 'T1DC2JH3J',
      team_domain: 'testteamnow',
      channel_id: 'G8PSS9T3V',
      channel_name: 'foobar',
      user_id: 'U2CERLKJA',
      user_name: 'roadrunner',
      command: '/webhook-collect',
      text: '',
      api_app_id: null,
      is_enterprise_install: null,
      response_url: 'https://hooks.slack.com/commands/T1DC2JH3J/397700885554/96rGlfmibIGlgcZRskXaIFfN',
      trigger_id: '398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c',
    });
    expect(form).toBe(body);
  });

  it('signs bodies that Bolt verifies, and Bolt rejects a tampered one', () => {
    const nowSeconds = Math.floor(Date.now() / 1000);
    const form = slashCommandForm({ text: 'health prod' });
    const headers = signSlackRequest(form, 'test-secret', nowSeconds);
    const boltHeaders = { ...headers, 'x-slack-request-timestamp': nowSeconds };
    expect(() =>
      verifySlackRequest({ signingSecret: 'test-secret', body: form, headers: boltHeaders }),
    ).not.toThrow();
    expect(() =>
      verifySlackRequest({ signingSecret: 'test-secret', body: `${form}x`, headers: boltHeaders }),
    ).toThrow();
    expect(new URLSearchParams(form).get('text')).toBe('health prod');
  });

  it('wraps interactivity payloads as payload=<urlencoded JSON>', () => {
    const payload = JSON.parse(sample('block-actions.bot-message-button.json')) as object;
    const form = blockActionsForm(payload);
    expect(form.startsWith('payload=')).toBe(true);
    expect(JSON.parse(new URLSearchParams(form).get('payload') ?? '')).toEqual(payload);
  });
});
