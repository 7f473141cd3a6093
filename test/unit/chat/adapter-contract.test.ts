import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { ChatHandlers, MessageRef } from '../../../src/chat/adapter.js';
import { createMemoryAdapter } from '../../../src/chat/memory/memory-adapter.js';
import { createShellAdapter } from '../../../src/chat/shell/shell-adapter.js';
import { createSlackAdapter, type SlackAdapter } from '../../../src/chat/slack/slack-adapter.js';
import { silentLogger } from '../../../src/logger.js';
import { renderViewText } from '../../../src/report/render-view-text.js';
import { Secret } from '../../../src/secret.js';
import {
  type ContractDriver,
  describeChatAdapterContract,
} from '../../support/chat/chat-adapter-contract.js';
import { type FakeSlack, startFakeSlack } from '../../support/slack/fake-slack.js';
import {
  blockActionPayload,
  blocksText,
  buttonsIn,
  sendBlockAction,
  sendSlashCommand,
} from '../../support/slack/slack-driver.js';
import { eventsUrl, httpSlackAdapter } from '../../support/slack/slack-http.js';

/** Counts finished handler calls, so a driver knows when the adapter is done with an input. */
function tracked(handlers: ChatHandlers) {
  let settled = 0;
  const settle = <T>(p: Promise<T>) =>
    p.finally(() => {
      settled += 1;
    });
  return {
    handlers: {
      onCommand: (c) => settle(handlers.onCommand(c)),
      onAction: (a) => settle(handlers.onAction(a)),
    } satisfies ChatHandlers,
    settled: () => settled,
  };
}

async function until(pred: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!pred()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describeChatAdapterContract('memory', async (handlers) => {
  const chat = createMemoryAdapter();
  await chat.start(handlers);
  const find = (ref: MessageRef) => {
    const m = chat.messages.find((x) => x.ref.ts === ref.ts && x.ref.channel === ref.channel);
    if (!m) throw new Error(`no message ${ref.ts}`);
    return m;
  };
  return {
    adapter: chat,
    channel: 'C0MEMORY',
    user: 'U0MEMORY',
    type: async (text) => (await chat.command(text)).map((v) => renderViewText(v)).join('\n'),
    read: async (ref) => find(ref).text,
    count: async () => chat.messages.length,
    threadOf: async (ref) => find(ref).threadTs,
    filesIn: async (root) =>
      chat.uploads
        .filter((u) => u.threadTs === root.ts)
        .map((u) => ({ title: u.title, bytes: Buffer.from(u.content), altText: u.altText })),
    privateTo: async (user) =>
      chat.ephemerals
        .filter((e) => e.user === user)
        .map((e) => e.text)
        .join('\n'),
    press: async (ref, label) => {
      const view = find(ref).view;
      const button = view.kind === 'report' ? view.buttons.find((b) => b.label === label) : undefined;
      if (!button) throw new Error(`no button ${label}`);
      return (await chat.click(ref, button)).map((v) => renderViewText(v)).join('\n');
    },
    close: () => chat.stop(),
  } satisfies ContractDriver;
});

describeChatAdapterContract('shell', async (handlers) => {
  const input = new PassThrough();
  const output = new PassThrough();
  let out = '';
  output.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
  });
  const fileDir = await mkdtemp(join(tmpdir(), 'etcd-doctor-contract-'));
  const chat = createShellAdapter({ input, output, interactive: false, fileDir });
  const track = tracked(handlers);
  await chat.start(track.handlers);
  /** The shell prints `#<n> ...`, `#<n> (reply to #<m>) ...` and `#<n> (updated) ...` entries. */
  const entries = () => {
    const found: Array<{ ts: string; kind: string; text: string }> = [];
    const re = /^#(\d+)( \(reply to #\d+\)| \(updated\))? /gm;
    const starts = [...out.matchAll(re)];
    starts.forEach((m, i) => {
      const end = starts[i + 1]?.index ?? out.length;
      found.push({ ts: m[1] ?? '', kind: m[2] ?? '', text: out.slice(m.index, end) });
    });
    return found;
  };
  const latest = (ref: MessageRef) =>
    entries()
      .filter((e) => e.ts === ref.ts)
      .at(-1)?.text ?? '';
  const send = async (line: string): Promise<string> => {
    const mark = out.length;
    const expected = track.settled() + 1;
    input.write(`${line}\n`);
    await until(() => track.settled() >= expected, `shell to handle "${line}"`);
    return out.slice(mark);
  };
  return {
    adapter: chat,
    channel: 'shell',
    user: 'you',
    type: (text) => send(`/etcd ${text}`),
    read: async (ref) => latest(ref),
    count: async () => entries().filter((e) => e.kind !== ' (updated)').length,
    threadOf: async (ref) =>
      /\(reply to #(\d+)\)/.exec(entries().find((e) => e.ts === ref.ts)?.text ?? '')?.[1],
    privateTo: async () => out,
    filesIn: async (root) =>
      Promise.all(
        [...out.matchAll(new RegExp(`^\\(file, reply to #${root.ts}\\) (.*): (\\S+\\.png)$`, 'gm'))].map(
          async (m) => ({ title: m[1] ?? '', bytes: await readFile(m[2] ?? ''), altText: undefined }),
        ),
      ),
    press: async (ref, label) => {
      const number = new RegExp(`\\[(\\d+)\\] ${label}`).exec(latest(ref))?.[1];
      if (!number) throw new Error(`no button ${label} in ${latest(ref)}`);
      return send(number);
    },
    close: async () => {
      await chat.stop();
      input.end();
      await rm(fileDir, { recursive: true, force: true });
    },
  } satisfies ContractDriver;
});

/** Slack's side as the fake records it: a message's fallback text and every text in its blocks. */
function slackDriver(
  fake: FakeSlack,
  chat: SlackAdapter,
  track: ReturnType<typeof tracked>,
  io: SlackIo,
): ContractDriver {
  const message = (ref: MessageRef) => {
    const m = fake.messages(ref.channel).find((x) => x.ts === ref.ts);
    if (!m) throw new Error(`fake Slack has no message ${ref.ts}`);
    return m;
  };
  const privateSince = (mark: number, user: string) =>
    fake
      .ephemerals()
      .slice(mark)
      .filter((e) => e.user === user)
      .map((e) => `${e.text}\n${blocksText(e.blocks)}`)
      .join('\n');
  const settledAfter = async <T>(work: () => Promise<T>): Promise<T> => {
    const expected = track.settled() + 1;
    const result = await work();
    await until(() => track.settled() >= expected, 'Slack handler');
    return result;
  };
  return {
    adapter: chat,
    channel: 'C111',
    user: 'U111',
    async type(text) {
      const mark = fake.ephemerals().length;
      const ack = await settledAfter(() => io.command(text));
      return `${ack}\n${privateSince(mark, 'U111')}`;
    },
    read: async (ref) => `${message(ref).text}\n${blocksText(message(ref).blocks)}`,
    count: async () => fake.messages('C111').length,
    threadOf: async (ref) => message(ref).thread_ts,
    filesIn: async (root) =>
      fake
        .files()
        .filter((f) => f.thread_ts === root.ts && f.channel === root.channel)
        .map((f) => ({ title: f.title ?? '', bytes: f.bytes, altText: f.alt_txt })),
    privateTo: async (user) => privateSince(0, user),
    async press(ref, label) {
      const button = buttonsIn(message(ref).blocks).find((b) => b.label === label);
      if (!button) throw new Error(`no button ${label}`);
      const mark = fake.ephemerals().length;
      await settledAfter(() =>
        io.press({ user: 'U111', channel: ref.channel, messageTs: ref.ts, ...button }),
      );
      await fake.waitFor((f) => f.ephemerals().length > mark);
      return privateSince(mark, 'U111');
    },
    async close() {
      await chat.stop();
      await fake.close();
    },
  };
}

interface SlackIo {
  /** Sends `/etcd <text>` and resolves with the visible ack text. */
  command(text: string): Promise<string>;
  press(a: {
    user: string;
    channel: string;
    messageTs: string;
    actionId: string;
    value: string;
    label: string;
  }): Promise<void>;
}

function ackText(body: unknown): string {
  if (typeof body !== 'object' || body === null) return '';
  const { text, blocks } = body as { text?: unknown; blocks?: unknown };
  return `${typeof text === 'string' ? text : ''}\n${blocksText(blocks)}`;
}

describeChatAdapterContract('slack (HTTP receiver)', async (handlers) => {
  const fake = await startFakeSlack();
  const chat = httpSlackAdapter(fake);
  const track = tracked(handlers);
  await chat.start(track.handlers);
  const url = eventsUrl(chat);
  return slackDriver(fake, chat, track, {
    async command(text) {
      const res = await sendSlashCommand(url, { text, channel_id: 'C111', user_id: 'U111' });
      if (res.status !== 200) throw new Error(`slash command got HTTP ${res.status}`);
      return ackText(res.text ? JSON.parse(res.text) : {});
    },
    async press(a) {
      const res = await sendBlockAction(url, a);
      if (res.status !== 200) throw new Error(`block_actions got HTTP ${res.status}`);
    },
  });
});

describeChatAdapterContract('slack (Socket Mode)', async (handlers) => {
  const fake = await startFakeSlack();
  const chat = createSlackAdapter({
    botToken: new Secret('xoxb-contract'),
    appToken: new Secret('xapp-1-contract'),
    apiUrl: fake.url,
    socketPingTimeoutMs: 1000,
    logger: silentLogger,
  });
  const track = tracked(handlers);
  await chat.start(track.handlers);
  return slackDriver(fake, chat, track, {
    command: async (text) =>
      ackText(await fake.socketMode.sendSlashCommand({ text, channel_id: 'C111', user_id: 'U111' })),
    async press(a) {
      await fake.socketMode.sendInteractive(blockActionPayload(a));
    },
  });
});
