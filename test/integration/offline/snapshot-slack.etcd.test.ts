import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Etcd3 } from 'etcd3';
import { createSlackAdapter, type SlackAdapter } from '../../../src/chat/slack/slack-adapter.js';
import { configFileSchema } from '../../../src/config/schema.js';
import { silentLogger } from '../../../src/logger.js';
import { type RunningRoles, startRoles } from '../../../src/roles/start-roles.js';
import { Secret } from '../../../src/secret.js';
import { type EtcdLab, startEtcdLab } from '../../support/lab/etcd-lab.js';
import { purgePrefix, REDIS_URL, testPrefix } from '../../support/redis/redis-prefix.js';
import {
  type FakeMessage,
  type FakeSlack,
  type SlackFileObject,
  startFakeSlack,
} from '../../support/slack/fake-slack.js';
import { blocksText, shown } from '../../support/slack/slack-driver.js';

/**
 * Issue 38 item 4 (M4): the docs invited dropping snapshot.db into Slack, channel threads included,
 * and a snapshot holds every Secret of its cluster. A real snapshot (etcdctl snapshot save of a lab
 * that stores a Secret), shared through the fake Slack: in a channel thread it gets one line saying
 * why and to DM it instead, by its name before any download, and by its bytes under another name; in
 * a DM it is analysed, and the answer carries the Secret's key name but never its value.
 */
const BOT_TOKEN = 'xoxb-1-snapshots';
const DM = 'D0SNAPS01';
const CHANNEL = 'C0SNAPS01';
const SECRET_KEY = '/registry/secrets/default/db-password';
const SECRET_VALUE = 'hunter2-the-database-password';
const REFUSAL =
  /^snapshot\.db is an etcd snapshot: it holds every Secret of its cluster, and everyone in this channel can download it, so I do not read it here\. Delete it from this channel and share it with me in a direct message\.$/;

let lab: EtcdLab;
let fake: FakeSlack;
let chat: SlackAdapter;
let roles: RunningRoles;
let dir: string;
let snapshot: Buffer;
const prefix = testPrefix('snapshot-slack');
let seq = 0;
const newTs = () => {
  seq += 1;
  return `${Math.floor(Date.now() / 1000)}.${String(seq).padStart(6, '0')}`;
};

const shownText = (m: FakeMessage): string => (m.blocks ? shown(blocksText(m.blocks)) : shown(m.text));
const inThread = (channel: string, ts: string) => fake.messages(channel).filter((m) => m.thread_ts === ts);

async function replies(channel: string, ts: string, pattern: RegExp): Promise<string[]> {
  await fake.waitFor(() => inThread(channel, ts).some((m) => pattern.test(shownText(m))), 30_000);
  return inThread(channel, ts).map(shownText);
}

function mentionInThread(file: SlackFileObject): Promise<string> {
  const parent = newTs();
  const event = {
    type: 'app_mention',
    channel: CHANNEL,
    user: 'U0SNAP01',
    text: `<@${fake.botUserId}> what fills this?`,
    ts: newTs(),
    thread_ts: parent,
    files: [file],
    upload: false,
  };
  return fake.socketMode.sendEvent(event).then(() => parent);
}

function shareInDm(file: SlackFileObject): Promise<string> {
  const ts = newTs();
  const event = {
    type: 'message',
    subtype: 'file_share',
    channel: DM,
    channel_type: 'im',
    user: 'U0SNAP02',
    text: '',
    ts,
    upload: true,
    display_as_bot: false,
    files: [file],
  };
  return fake.socketMode.sendEvent(event).then(() => ts);
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'etcd-doctor-snapshot-slack-'));
  lab = await startEtcdLab({ size: 1 });
  const client = new Etcd3({ hosts: lab.endpoints });
  try {
    await client.put(SECRET_KEY).value(SECRET_VALUE);
    for (let i = 0; i < 20; i++)
      await client.put(`/registry/configmaps/default/cm-${i}`).value('x'.repeat(500));
  } finally {
    client.close();
  }
  const path = join(dir, 'snapshot.db');
  const saved = await lab.etcdctl(['snapshot', 'save', path, `--endpoints=${lab.endpoints[0]}`], {
    timeoutMs: 30_000,
  });
  expect(saved.code).toBe(0);
  snapshot = await readFile(path);
  expect(snapshot.includes(SECRET_VALUE)).toBe(true);

  fake = await startFakeSlack({ botUserId: 'W0SNAPBOT' });
  chat = createSlackAdapter({
    botToken: new Secret(BOT_TOKEN),
    appToken: new Secret('xapp-1-snapshots'),
    apiUrl: fake.url,
    retries: 0,
    logger: silentLogger,
  });
  const config = configFileSchema.parse({
    clusters: [{ name: 'local', etcd: { endpoints: ['http://127.0.0.1:9'] } }],
  });
  roles = await startRoles({
    role: 'serve',
    chat,
    config,
    redisUrl: REDIS_URL,
    queuePrefix: prefix,
    logger: silentLogger,
  });
  await fake.socketMode.waitForConnections(1);
}, 90_000);

afterAll(async () => {
  await roles?.stop();
  await fake?.close();
  await lab?.destroy();
  await purgePrefix(prefix);
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('an etcd snapshot shared in Slack', () => {
  it('in a channel thread: one line says why and to DM it instead; it is never downloaded', async () => {
    const file = fake.shareFile({ name: 'snapshot.db', content: snapshot });
    const thread = await mentionInThread(file);
    const texts = await replies(CHANNEL, thread, /etcd snapshot/);
    expect(texts).toEqual([expect.stringMatching(REFUSAL)]);
    expect(fake.downloads().filter((d) => d.fileId === file.id)).toEqual([]);
  }, 40_000);

  it('in a channel thread under another name: refused by its bytes, and nothing of it is read', async () => {
    const file = fake.shareFile({ name: 'etcd-1.log', content: snapshot });
    const thread = await mentionInThread(file);
    const texts = await replies(CHANNEL, thread, /etcd snapshot/);
    const answer = texts.find((t) => /etcd snapshot/.test(t)) ?? '';
    expect(answer).toContain(
      'etcd-1.log is an etcd snapshot: it holds every Secret of its cluster, and everyone in this channel can download it, so I do not read it here. Delete it from this channel and share it with me in a direct message.',
    );
    expect(texts.join('\n')).not.toMatch(/Revision \d+|keys and values/);
  }, 40_000);

  it('in a DM: analysed; the answer names the Secret key, never its value', async () => {
    const file = fake.shareFile({ name: 'snapshot.db', content: snapshot });
    const ts = await shareInDm(file);
    const texts = await replies(DM, ts, /Revision \d+/);
    const all = texts.join('\n');
    expect(all).toMatch(/secrets/);
    expect(all).not.toContain(SECRET_VALUE);
    expect(JSON.stringify(fake.calls('chat.postMessage'))).not.toContain(SECRET_VALUE);
  }, 40_000);
});
