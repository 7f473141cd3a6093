import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createSlackAdapter, type SlackAdapter } from '../../src/chat/slack/slack-adapter.js';
import { configFileSchema } from '../../src/config/schema.js';
import { silentLogger } from '../../src/logger.js';
import { type RunningRoles, startRoles } from '../../src/roles/start-roles.js';
import { Secret } from '../../src/secret.js';
import {
  type FakeMessage,
  type FakeSlack,
  type SlackFileObject,
  startFakeSlack,
} from '../support/slack/fake-slack.js';
import { mustGatherFiles, writeTarball } from '../support/offline/offline-fixtures.js';
import { purgePrefix, REDIS_URL, testPrefix } from '../support/redis/redis-prefix.js';
import { blocksText, shown } from '../support/slack/slack-driver.js';

/**
 * Offline triage in Slack, end to end against the fake (Socket Mode): a file shared in a DM
 * (`message.im`, subtype `file_share`) or with a mention in a channel thread (`app_mention` with
 * `files`) is fetched by a worker (files.info, then url_private_download with the bot token),
 * analysed, and answered in that thread; bad input gets one short reply in the thread.
 */

const BOT_TOKEN = 'xoxb-1-files';
const DM = 'D0FILES01';
const ALLOWED = 'C111';
const ELSEWHERE = 'C0OTHER01';
const MAX_BYTES = 64 * 1024;
/** Real etcd logs the lab's members wrote under a 1.2 s fdatasync fault on etcd-1 (test/support/build-lab-log-fixtures.ts). */
const LAB_SLOW_DISK = new URL('../fixtures/offline/lab/slow-disk/', import.meta.url);
const SLOW_DISK_LOG = new URL('etcd-1.log', LAB_SLOW_DISK);

let fake: FakeSlack;
let chat: SlackAdapter;
let roles: RunningRoles;
let slowDiskLog: string;
let scratch: string;
const prefix = testPrefix('slack-files');
let seq = 0;

/** A fresh user per test, so the per-user limit (3 a minute here) counts only its own requests. */
const next = (): number => {
  seq += 1;
  return seq;
};
const newUser = () => `U0FILE${String(next()).padStart(3, '0')}`;
const newTs = () => `${Math.floor(Date.now() / 1000)}.${String(next()).padStart(6, '0')}`;

const inThread = (channel: string, ts: string): FakeMessage[] =>
  fake.messages(channel).filter((m) => m.thread_ts === ts);

/** A reply as the user reads it: its blocks (or its text, for a message without blocks). */
const shownText = (m: FakeMessage): string => (m.blocks ? shown(blocksText(m.blocks)) : shown(m.text));

/** Waits for the thread to hold a reply matching `pattern`, and returns every reply's text. */
async function replies(channel: string, ts: string, pattern: RegExp, timeoutMs = 20_000): Promise<string[]> {
  await fake.waitFor(() => inThread(channel, ts).some((m) => pattern.test(shownText(m))), timeoutMs);
  return inThread(channel, ts).map(shownText);
}

function shareInDm(files: SlackFileObject[], user: string, ts = newTs()): Promise<string> {
  const event = {
    type: 'message',
    subtype: 'file_share',
    channel: DM,
    channel_type: 'im',
    user,
    text: '',
    ts,
    upload: true,
    display_as_bot: false,
    files,
  };
  return fake.socketMode.sendEvent(event).then(() => ts);
}

function mention(
  channel: string,
  opts: { user: string; parent?: string; files?: SlackFileObject[] },
): Promise<string> {
  const ts = newTs();
  const event = {
    type: 'app_mention',
    channel,
    user: opts.user,
    text: `<@${fake.botUserId}> what happened here?`,
    ts,
    ...(opts.parent ? { thread_ts: opts.parent } : {}),
    ...(opts.files ? { files: opts.files, upload: false } : {}),
  };
  return fake.socketMode.sendEvent(event).then(() => ts);
}

beforeAll(async () => {
  fake = await startFakeSlack({ botUserId: 'W0FILEBOT' });
  slowDiskLog = await readFile(SLOW_DISK_LOG, 'utf8');
  scratch = await mkdtemp(join(tmpdir(), 'etcd-doctor-slack-files-'));
  chat = createSlackAdapter({
    botToken: new Secret(BOT_TOKEN),
    appToken: new Secret('xapp-1-files'),
    apiUrl: fake.url,
    retries: 0,
    logger: silentLogger,
  });
  const config = configFileSchema.parse({
    // Never probed: offline analysis needs no cluster. It allows only ALLOWED, so ELSEWHERE is refused.
    clusters: [
      { name: 'local', etcd: { endpoints: ['http://127.0.0.1:9'] }, slack: { allowedChannels: [ALLOWED] } },
    ],
    offline: { maxFileBytes: MAX_BYTES },
  });
  roles = await startRoles({
    role: 'serve',
    chat,
    config,
    redisUrl: REDIS_URL,
    queuePrefix: prefix,
    logger: silentLogger,
    tuning: { attempts: 2, backoffMs: 100, diagnoseLimits: { perUser: 3 } },
  });
  await fake.socketMode.waitForConnections(1);
});

afterAll(async () => {
  await roles?.stop();
  await fake?.close();
  await rm(scratch, { recursive: true, force: true });
  await purgePrefix(prefix);
});

describe('a file shared in a DM', () => {
  it('is downloaded with the bot token and answered in its thread with the root cause', async () => {
    const file = fake.shareFile({ name: 'etcd-1.log', content: slowDiskLog });
    const ts = await shareInDm([file], newUser());
    const texts = await replies(DM, ts, /Analysis of etcd-1\.log/);
    expect(texts[0]).toContain('Analysing etcd-1.log');
    const answer = texts.find((t) => t.includes('Analysis of etcd-1.log')) ?? '';
    expect(answer).toMatch(/Root cause: `slow-disk`/);
    expect(answer).toMatch(/`slow-disk`\* \(critical\) on etcd-1/);
    expect(answer).toContain('slow fdatasync');
    const downloads = fake.downloads().filter((d) => d.fileId === file.id);
    expect(downloads).toEqual([{ fileId: file.id, token: BOT_TOKEN, status: 200 }]);
    expect(fake.calls('files.info').some((c) => c.body.file === file.id && c.token === BOT_TOKEN)).toBe(true);
    // The private copy is gone once the answer is in.
    const left = await readdir(tmpdir()).then((names) =>
      names.filter((n) => n.startsWith('etcd-doctor-analyze-')),
    );
    for (const dir of left) await expect(readdir(join(tmpdir(), dir, file.id))).rejects.toThrow();
  });

  it('takes one log per member in one message, and names the member with the slow disk', async () => {
    const files = await Promise.all(
      ['etcd-1.log', 'etcd-2.log', 'etcd-3.log'].map(async (name) =>
        fake.shareFile({ name, content: await readFile(new URL(name, LAB_SLOW_DISK)) }),
      ),
    );
    const ts = await shareInDm(files, newUser());
    const texts = await replies(DM, ts, /Root cause/);
    expect(texts[0]).toContain('Analysing etcd-1.log, etcd-2.log, etcd-3.log');
    expect(texts.find((t) => t.includes('Root cause'))).toMatch(/`slow-disk`\* \(critical\) on etcd-1\b/);
    expect(fake.downloads().filter((d) => files.some((f) => f.id === d.fileId))).toHaveLength(3);
  });

  it('reads a must-gather .tar.gz and names the member behind the root cause', async () => {
    const tarball = await writeTarball(
      join(scratch, 'must-gather.tar.gz'),
      mustGatherFiles('leaderelection-restarts'),
    );
    const file = fake.shareFile({
      name: 'must-gather.tar.gz',
      content: await readFile(tarball),
      mimetype: 'application/gzip',
    });
    const ts = await shareInDm([file], newUser());
    const texts = await replies(DM, ts, /Root cause/);
    expect(texts.find((t) => t.includes('Root cause'))).toMatch(/`slow-disk`\* \(critical\) on master-2\b/);
  });

  it('shows a file name that holds Slack markup as text', async () => {
    const file = fake.shareFile({ name: '<!channel> <@U0BOSS>.log', content: slowDiskLog });
    const ts = await shareInDm([file], newUser());
    await replies(DM, ts, /Analysis of/);
    const sent = inThread(DM, ts)
      .map((m) => `${m.text}\n${blocksText(m.blocks)}`)
      .join('\n');
    expect(sent).toContain('&lt;!channel&gt;');
    expect(sent).not.toMatch(/<!channel>|<@U0BOSS>/);
  });

  it('without a file, says what to drop', async () => {
    const ts = newTs();
    await fake.socketMode.sendEvent({
      type: 'message',
      channel: DM,
      channel_type: 'im',
      user: newUser(),
      text: 'hi',
      ts,
    });
    const texts = await replies(DM, ts, /Drop a file here/);
    expect(texts).toHaveLength(1);
    // A reply in that thread without a file is conversation: no second answer.
    const reply = newTs();
    const user = newUser();
    await fake.socketMode.sendEvent({
      type: 'message',
      channel: DM,
      channel_type: 'im',
      user,
      text: 'thanks',
      ts: reply,
      thread_ts: ts,
    });
    await fake.socketMode.sendEvent({
      type: 'message',
      channel: DM,
      channel_type: 'im',
      user,
      text: 'and now?',
      ts: newTs(),
    });
    await fake.waitFor(() => fake.messages(DM).filter((m) => /Drop a file here/.test(m.text)).length >= 2);
    expect(inThread(DM, ts)).toHaveLength(1);
  });

  it('refuses an empty file without downloading it', async () => {
    const file = fake.shareFile({ name: 'empty.log', content: '' });
    const ts = await shareInDm([file], newUser());
    const texts = await replies(DM, ts, /empty\.log is empty/);
    expect(texts).toHaveLength(1);
    expect(fake.downloads().filter((d) => d.fileId === file.id)).toHaveLength(0);
  });

  it('refuses a file over the limit before downloading it, when Slack gives its size', async () => {
    const file = fake.shareFile({ name: 'must-gather.tar.gz', content: 'x', size: 5 * 1000 * 1000 });
    const ts = await shareInDm([file], newUser());
    const texts = await replies(DM, ts, /must-gather\.tar\.gz is 5 MB, over the 65\.5 KB/);
    expect(texts).toHaveLength(1);
    expect(fake.downloads().filter((d) => d.fileId === file.id)).toHaveLength(0);
  });

  it('stops a download that goes over the limit though the size said otherwise', async () => {
    const file = fake.shareFile({
      name: 'liar.log',
      content: 'a'.repeat(MAX_BYTES * 4),
      size: 100,
      chunked: true,
    });
    const ts = await shareInDm([file], newUser());
    const texts = await replies(DM, ts, /liar\.log is larger than the 65\.5 KB/);
    expect(texts.filter((t) => !t.startsWith('Analysing'))).toHaveLength(1);
  });

  it('refuses a download whose Content-Length is over the limit though the size said otherwise', async () => {
    const file = fake.shareFile({ name: 'long.log', content: 'a'.repeat(MAX_BYTES * 2), size: 100 });
    const ts = await shareInDm([file], newUser());
    await replies(DM, ts, /long\.log is 131 KB, over the 65\.5 KB/);
  });

  it('never follows a download redirect to a host that is not Slack', async () => {
    const file = fake.shareFile({ name: 'etcd.log', content: slowDiskLog });
    fake.redirectDownload(file.id, 'http://127.0.0.2:9/steal');
    const ts = await shareInDm([file], newUser());
    const texts = await replies(DM, ts, /to 127\.0\.0\.2:9, which is not Slack/);
    expect(texts.some((t) => t.includes('Root cause'))).toBe(false);
  });

  it('counts against the per-user limit', async () => {
    const user = newUser();
    for (let i = 0; i < 3; i += 1) {
      const ts = await shareInDm([fake.shareFile({ name: `m${i}.log`, content: slowDiskLog })], user);
      await replies(DM, ts, /Analysing/);
    }
    const ts = await shareInDm([fake.shareFile({ name: 'm3.log', content: slowDiskLog })], user);
    await replies(DM, ts, /You asked for 3 analyses in the last 60 s; try again in/);
  });
});

describe('a file shared with a mention in a channel thread', () => {
  it('is answered in that thread', async () => {
    const parent = newTs();
    const file = fake.shareFile({ name: 'etcd-1.log', content: slowDiskLog });
    await mention(ALLOWED, { user: newUser(), parent, files: [file] });
    const texts = await replies(ALLOWED, parent, /Analysis of etcd-1\.log/);
    expect(texts.find((t) => t.includes('Analysis of etcd-1.log'))).toMatch(/Root cause: `slow-disk`/);
  });

  it('without a file, says to attach one to the mention', async () => {
    const parent = newTs();
    await mention(ALLOWED, { user: newUser(), parent });
    await replies(ALLOWED, parent, /mention @etcd-doctor in the same message/);
  });

  it('in a channel no cluster allows, is refused', async () => {
    const parent = newTs();
    const file = fake.shareFile({ name: 'etcd.log', content: slowDiskLog });
    await mention(ELSEWHERE, { user: newUser(), parent, files: [file] });
    await replies(ELSEWHERE, parent, /does not answer in this channel; share the file in a direct message/);
    expect(fake.downloads().filter((d) => d.fileId === file.id)).toHaveLength(0);
  });
});

describe('input the analysis cannot use', () => {
  it('a file with no etcd lines gets the analysis’ answer, and a good file shared with it is still answered', async () => {
    const bad = fake.shareFile({ name: 'notes.txt', content: 'remember to buy milk\nand eggs\n' });
    const good = fake.shareFile({ name: 'etcd-1.log', content: slowDiskLog });
    const [badTs, goodTs] = await Promise.all([shareInDm([bad], newUser()), shareInDm([good], newUser())]);
    const texts = await replies(DM, badTs, /Could not analyse notes\.txt/);
    expect(texts.join('\n')).toMatch(/no etcd log lines/i);
    await replies(DM, goodTs, /Root cause: `slow-disk`/);
  });

  it('an unsupported archive gets the analysis’ answer', async () => {
    const zip = Buffer.from('504b0304140000000800', 'hex');
    const file = fake.shareFile({ name: 'must-gather.zip', content: zip, mimetype: 'application/zip' });
    const ts = await shareInDm([file], newUser());
    const texts = await replies(DM, ts, /Could not analyse must-gather\.zip/);
    expect(texts.join('\n')).toMatch(/zip/i);
    expect(texts.join('\n')).not.toMatch(/etcd-doctor-analyze-|FFAKE/);
  });
});

describe('the fake download endpoint', () => {
  it('answers 403 without the bearer token, as Slack requires files:read auth', async () => {
    const file = fake.shareFile({ name: 'etcd.log', content: 'x' });
    const res = await fetch(file.url_private_download);
    expect(res.status).toBe(403);
    const ok = await fetch(file.url_private_download, { headers: { authorization: `Bearer ${BOT_TOKEN}` } });
    expect(await ok.text()).toBe('x');
  });
});
