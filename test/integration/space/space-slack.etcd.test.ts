import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { Etcd3 } from 'etcd3';
import type { SlackAdapter } from '../../../src/chat/slack/slack-adapter.js';
import { configFileSchema } from '../../../src/config/schema.js';
import { silentLogger } from '../../../src/logger.js';
import { type RunningRoles, startRoles } from '../../../src/roles/start-roles.js';
import { type FakeMessage, type FakeSlack, startFakeSlack } from '../../support/slack/fake-slack.js';
import { type EtcdLab, startEtcdLab } from '../../support/lab/etcd-lab.js';
import { decodePng, pixelsOf } from '../../support/chat/png-pixels.js';
import { purgePrefix, REDIS_URL, testPrefix } from '../../support/redis/redis-prefix.js';
import {
  ackText,
  blocksText,
  buttonsIn,
  messageText,
  sendFileShare,
  sendBlockAction,
  sendSlashCommand,
  shown,
} from '../../support/slack/slack-driver.js';
import { channelThreads, eventsUrl, httpSlackAdapter } from '../../support/slack/slack-http.js';

/**
 * NOSPACE for real (a 16 MiB quota filled with a Helm release history of 100 kB configmaps), asked
 * about the way a user does: `/etcd space` through Bolt, BullMQ on real Redis, a worker scanning a
 * follower; the "What fills it?" button on the diagnosis; a snapshot dropped into a DM.
 */

const CHANNEL = 'C0SPACE01';
const DM = 'D0SPACE01';
const QUOTA = 16 * 1024 * 1024;
const RELEASE = '/registry/configmaps/apps/sh.helm.release.v1.shop.v';
let lab: EtcdLab;
let fake: FakeSlack;
let chat: SlackAdapter;
let roles: RunningRoles;
let url: string;
let dir: string;
const prefix = testPrefix('space-slack');
const { roots, replies } = channelThreads(() => fake, CHANNEL);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'etcd-doctor-space-slack-'));
  [lab, fake] = await Promise.all([startEtcdLab({ quotaBackendBytes: QUOTA }), startFakeSlack()]);
  const client = new Etcd3({ hosts: lab.endpoints });
  try {
    for (let i = 0; i < 40; i++) await client.put(`/registry/events/default/ev-${i}`).value('e'.repeat(500));
    for (let i = 0; i < 60; i++) await client.put(`/registry/pods/shop/pod-${i}`).value('p'.repeat(3000));
    for (let i = 0; i < 10; i++)
      await client.put(`/registry/example.com/widgets/shop/w-${i}`).value('w'.repeat(50_000));
    for (let i = 0; i < 20; i++)
      await client.put(`/registry/leases/kube-node-lease/node-${i}`).value('l'.repeat(300));
  } finally {
    client.close();
  }
  const filled = await lab.fill({ valueBytes: 100 * 1024, maxPuts: 400, keyPrefix: RELEASE });
  expect(filled.nospace).toBe(true);
  chat = httpSlackAdapter(fake);
  roles = await startRoles({
    role: 'serve',
    chat,
    config: configFileSchema.parse({
      clusters: [
        { name: 'local', etcd: { endpoints: lab.endpoints, metricsUrls: lab.metricsUrls } },
        // Nothing listens on port 9: no member answers.
        { name: 'gone', etcd: { endpoints: ['http://127.0.0.1:9'] } },
      ],
      probes: { timeoutMs: 3000, metricsWindowMs: 1000 },
    }),
    redisUrl: REDIS_URL,
    queuePrefix: prefix,
    logger: silentLogger,
    tuning: {
      progressIntervalMs: 200,
      jobTimeoutMs: 60_000,
      space: { churnSeconds: 1, bytesPerSecond: 4_000_000 },
    },
  });
  url = eventsUrl(chat);
}, 180_000);

afterAll(async () => {
  await roles?.stop();
  await Promise.all([fake?.close(), lab?.destroy()]);
  await purgePrefix(prefix);
  await rm(dir, { recursive: true, force: true });
});

beforeEach(() => fake.reset());

/** Keys plus values under a prefix, as etcd holds them (one range of ~15 MB: past grpc-js's 4 MiB default). */
async function bytesUnder(prefix: string): Promise<number> {
  const client = new Etcd3({
    hosts: lab.endpoints,
    grpcOptions: { 'grpc.max_receive_message_length': 64 * 1024 * 1024 },
  });
  try {
    const all = await client.getAll().prefix(prefix).buffers();
    return Object.entries(all).reduce((n, [key, value]) => n + Buffer.byteLength(key) + value.length, 0);
  } finally {
    client.close();
  }
}

const isAnswer = (m: FakeMessage) =>
  /What fills local/.test(messageText(m)) && /By resource/.test(messageText(m));

describe('what fills etcd, in Slack, on a cluster in NOSPACE', () => {
  it('/etcd space: acks at once, shows progress, answers in the thread with the breakdown and the bar chart with the quota line', async () => {
    const res = await sendSlashCommand(url, {
      text: 'space local',
      channel_id: CHANNEL,
      user_id: 'U0SPACE1',
    });
    expect(res.status).toBe(200);
    expect(res.ms).toBeLessThan(3000);
    expect(ackText(res)).toMatch(/^Measuring what fills \*local\*: it reads from a follower, rate-limited/);
    await fake.waitFor(
      () => roots().length === 1 && replies(roots()[0] as FakeMessage).some(isAnswer),
      60_000,
    );
    const root = roots()[0] as FakeMessage;
    const answer = replies(root).find(isAnswer) as FakeMessage;
    const text = messageText(answer);
    expect(text).toMatch(/of the 16\.8 MB quota \(\d+ %\)/);
    expect(text).toMatch(/configmaps +1\d\d +1[0-9.]+ MB +\d+ %/);
    expect(text).toMatch(/events +40 +2\d\.\d KB/);
    expect(text).toContain(`${RELEASE}`);
    expect(text).toMatch(/read from etcd-\d, a follower, .*; complete\./);
    // Progress in the root while it read, then the headline.
    const edits = fake.calls('chat.update').map((c) => String(c.body.text ?? ''));
    expect(edits.some((t) => /Reading the values of \*local\*: [\d.]+ [kM]?B of about/.test(shown(t)))).toBe(
      true,
    );
    await fake.waitFor(() => /configmaps hold the most/.test(messageText(roots()[0] as FakeMessage)), 10_000);

    await fake.waitFor((f) => f.files().length === 1, 20_000);
    const [file] = fake.files();
    expect(file).toMatchObject({ channel: CHANNEL, thread_ts: root.ts, filename: 'local-space.png' });
    expect(file?.title).toMatch(/^local: what fills etcd \(configmaps hold the most, 1\d(?:\.\d)? MB\)$/);
    expect(file?.alt_txt).toMatch(
      /^Horizontal bar chart of key and value bytes per resource in local's etcd, revision \d+, complete scan: configmaps 1\d(?:\.\d)? MB \(9\d %\); widgets\.example\.com 50\d KB \(\d %\); pods 18\d KB/,
    );
    expect(file?.alt_txt).toMatch(/of the 16\.8 MB quota \(red dashed line\)\.$/);
    // The README's chart comes from this run: README_SPACE_CHART=docs/images/space-chart.png.
    if (process.env.README_SPACE_CHART)
      await writeFile(process.env.README_SPACE_CHART, file?.bytes ?? Buffer.alloc(0));
    // The red dashed quota line is drawn where the quota is on the bars' scale: the configmaps bar
    // (its bytes as etcd holds them) and the quota line share one x axis from the bars' left edge.
    const img = decodePng(file?.bytes ?? Buffer.alloc(0));
    const red = pixelsOf(img, '#c0392b');
    const blue = pixelsOf(img, '#4c78a8');
    expect(red.length).toBeGreaterThan(50);
    expect(blue.length).toBeGreaterThan(500);
    const barStart = Math.min(...blue.map(([x]) => x));
    const barEnd = Math.max(...blue.map(([x]) => x)) + 1;
    const configmaps = await bytesUnder('/registry/configmaps/');
    const quotaX = barStart + ((barEnd - barStart) * QUOTA) / configmaps;
    const redX = red.reduce((sum, [x]) => sum + x, 0) / red.length;
    expect(Math.abs(redX - quotaX)).toBeLessThan(4);
  }, 90_000);

  it('the diagnosis offers "What fills it?"; pressing it answers in the same thread', async () => {
    await sendSlashCommand(url, { text: 'diagnose local', channel_id: CHANNEL, user_id: 'U0SPACE1' });
    const hasButton = (m: FakeMessage) => buttonsIn(m.blocks).some((b) => b.label === 'What fills it?');
    await fake.waitFor(
      () => roots().length === 1 && replies(roots()[0] as FakeMessage).some(hasButton),
      60_000,
    );
    const root = roots()[0] as FakeMessage;
    const diagnosis = replies(root).find(hasButton) as FakeMessage;
    expect(messageText(diagnosis)).toMatch(/db-quota/);
    const button = buttonsIn(diagnosis.blocks).find((b) => b.label === 'What fills it?');
    const press = await sendBlockAction(url, {
      user: 'U0SPACE2',
      channel: CHANNEL,
      messageTs: diagnosis.ts,
      actionId: button?.actionId ?? '',
      value: button?.value ?? '',
      label: 'What fills it?',
    });
    expect(press.status).toBe(200);
    await fake.waitFor(() => replies(root).some(isAnswer), 60_000);
    expect(roots()).toHaveLength(1);
    expect(messageText(replies(root).find(isAnswer) as FakeMessage)).toMatch(/configmaps +1\d\d /);
    await fake.waitFor(
      (f) => f.files().some((x) => x.thread_ts === root.ts && x.filename === 'local-space.png'),
      20_000,
    );
  }, 120_000);

  it('a cluster whose members do not answer: the thread says so, naming each endpoint, and the root says not measured', async () => {
    await sendSlashCommand(url, { text: 'space gone', channel_id: CHANNEL, user_id: 'U0SPACE1' });
    const said = (m: FakeMessage) => /Could not measure what fills gone/.test(messageText(m));
    await fake.waitFor(() => roots().length === 1 && replies(roots()[0] as FakeMessage).some(said), 30_000);
    const root = roots()[0] as FakeMessage;
    expect(messageText(replies(root).find(said) as FakeMessage)).toContain(
      'no member of gone answered Status within 3 s (http://127.0.0.1:9: connect ECONNREFUSED 127.0.0.1:9): nothing was measured',
    );
    await fake.waitFor(() => /gone: not measured/.test(messageText(roots()[0] as FakeMessage)), 10_000);
    expect(fake.files()).toHaveLength(0);
  }, 60_000);

  it('a snapshot dropped into a DM: what fills it; a flipped byte is called damaged; a cut one is refused in one line', async () => {
    const snap = join(dir, 'snapshot.db');
    expect(
      (
        await lab.etcdctl(['snapshot', 'save', snap, `--endpoints=${lab.endpoints[1]}`], {
          timeoutMs: 30_000,
        })
      ).code,
    ).toBe(0);
    const good = await readFile(snap);
    const answered = async (name: string, content: Buffer, pattern: RegExp): Promise<string> => {
      const ts = `${Math.floor(Date.now() / 1000)}.${String(Math.floor(Math.random() * 1e6)).padStart(6, '0')}`;
      const file = fake.shareFile({ name, content });
      const eventId = `Ev${ts.replace('.', '')}`;
      const res = await sendFileShare(url, { channel: DM, user: 'U0SPACE3', ts, file, eventId });
      expect(res.status).toBe(200);
      const match = (m: FakeMessage) => m.thread_ts === ts && pattern.test(shown(blocksText(m.blocks)));
      await fake.waitFor(() => fake.messages(DM).some(match), 60_000);
      return shown(blocksText(fake.messages(DM).find(match)?.blocks));
    };

    const ok = await answered('snapshot.db', good, /what fills it/);
    expect(ok).toMatch(/^\*Snapshot snapshot\.db: what fills it\*\nIts SHA-256 trailer matches\./);
    expect(ok).toMatch(/configmaps +1\d\d +1[\d.]+ MB/);

    const flipped = Buffer.from(good);
    const at = flipped.indexOf('/registry/events/default/ev-7');
    flipped[at + 10] = 'X'.charCodeAt(0);
    const damaged = await answered('flipped.db', flipped, /what fills it/);
    expect(damaged).toMatch(
      /^\*Damaged snapshot flipped\.db: what fills it\*\n\*Damaged\*: its SHA-256 trailer does not match its bytes/,
    );

    const cut = await answered('cut.db', good.subarray(0, 8192 * 3), /Could not analyse/);
    expect(cut).toMatch(
      /^\*Could not analyse cut\.db\*\ncut\.db is truncated: its meta page says \d+ pages of 4096 bytes/,
    );
  }, 120_000);
});
