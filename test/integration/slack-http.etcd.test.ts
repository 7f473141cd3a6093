import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { SlackAdapter } from '../../src/chat/slack/slack-adapter.js';
import { type EtcdLab, startEtcdLab } from '../support/lab/etcd-lab.js';
import { silentLogger } from '../../src/logger.js';
import { type RunningRoles, startRoles } from '../../src/roles/start-roles.js';
import { type FakeMessage, type FakeSlack, startFakeSlack } from '../support/slack/fake-slack.js';
import { labConfig } from '../support/lab/lab-config.js';
import { purgePrefix, REDIS_URL, testPrefix } from '../support/redis/redis-prefix.js';
import {
  ackText,
  buttonsIn,
  messageText,
  postSigned,
  sendBlockAction,
  sendSlashCommand,
} from '../support/slack/slack-driver.js';
import { channelThreads, eventsUrl, httpSlackAdapter } from '../support/slack/slack-http.js';

/**
 * The whole path, HTTP mode: a signed request through the real Bolt receiver, real Redis and
 * BullMQ, a worker probing a real 3-member etcd, and the answers in the fake Slack workspace.
 */

const CHANNEL = 'C111';
let lab: EtcdLab;
let fake: FakeSlack;
let chat: SlackAdapter;
let roles: RunningRoles;
let url: string;
const prefix = testPrefix('slack-http');

const text = messageText;
const { roots, replies } = channelThreads(() => fake, CHANNEL);

/** Waits until `count` roots each have a reply and a verdict (root updated out of "probes done"). */
async function answered(count: number, timeoutMs = 20_000): Promise<void> {
  await fake.waitFor(
    () =>
      roots().length >= count &&
      roots().every((r) => replies(r).length > 0 && !/probes done|starting/.test(text(r))),
    timeoutMs,
  );
}

beforeAll(async () => {
  [lab, fake] = await Promise.all([startEtcdLab(), startFakeSlack()]);
  chat = httpSlackAdapter(fake);
  const restricted = {
    name: 'restricted',
    etcd: { endpoints: lab.endpoints },
    slack: { allowedChannels: ['C0OPS'] },
  };
  roles = await startRoles({
    role: 'serve',
    chat,
    config: labConfig(lab, { extra: [restricted] }),
    redisUrl: REDIS_URL,
    queuePrefix: prefix,
    logger: silentLogger,
    tuning: { progressIntervalMs: 100, jobTimeoutMs: 30_000 },
  });
  url = eventsUrl(chat);
});

afterAll(async () => {
  await roles?.stop();
  await Promise.all([fake?.close(), lab?.destroy()]);
  await purgePrefix(prefix);
});

beforeEach(() => {
  fake.reset();
});

describe('Slack HTTP receiver: requests Slack never sends are refused, and the bot stays up', () => {
  it('answers url_verification with the challenge', async () => {
    const body = JSON.stringify({
      token: 'Jhj5dZrVaK7ZwHHjRyZWjbDl',
      challenge: '3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P',
      type: 'url_verification',
    });
    const res = await postSigned(url, body, { contentType: 'application/json' });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text)).toEqual({
      challenge: '3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P',
    });
  });

  it('answers ssl_check with an empty 200', async () => {
    const res = await postSigned(url, 'token=random&ssl_check=1');
    expect(res).toMatchObject({ status: 200, text: '' });
  });

  it('refuses a bad signature and a timestamp older than 5 minutes with 401, and a malformed body with 400', async () => {
    const body = 'command=%2Fetcd&text=help&channel_id=C111&user_id=U111';
    const badSignature = await postSigned(url, body, { signature: `v0=${'0'.repeat(64)}` });
    const stale = await postSigned(url, body, { timestampSeconds: Date.now() / 1000 - 6 * 60 });
    const wrongSecret = await postSigned(url, body, { secret: 'not-the-secret' });
    const malformed = await postSigned(url, '{"command": "/etcd", oops', { contentType: 'application/json' });
    expect([badSignature.status, stale.status, wrongSecret.status, malformed.status]).toEqual([
      401, 401, 401, 400,
    ]);

    const after = await sendSlashCommand(url, { text: 'help', channel_id: CHANNEL, user_id: 'U111' });
    expect(after.status).toBe(200);
    expect(ackText(after)).toContain('/etcd diagnose <cluster>');
  });
});

describe('Slack HTTP receiver: replies to bad input', () => {
  it('shows usage for an unknown command', async () => {
    const res = await sendSlashCommand(url, { text: 'reboot local', channel_id: CHANNEL, user_id: 'U111' });
    expect(res.status).toBe(200);
    expect(ackText(res)).toMatch(/unknown command "reboot"[\s\S]*\/etcd health <cluster>/);
  });

  it('lists the known clusters for an unknown one', async () => {
    const res = await sendSlashCommand(url, { text: 'diagnose prod', channel_id: CHANNEL, user_id: 'U111' });
    expect(ackText(res)).toContain('unknown cluster "prod"; known clusters: local, restricted');
    expect(roots()).toHaveLength(0);
  });

  it('refuses a cluster outside its allowed channels, naming them', async () => {
    const res = await sendSlashCommand(url, {
      text: 'health restricted',
      channel_id: CHANNEL,
      channel_name: 'random',
      user_id: 'U111',
    });
    expect(ackText(res)).toContain('cluster "restricted" can only be used in C0OPS');
    const allowed = await sendSlashCommand(url, {
      text: 'health restricted',
      channel_id: 'C0OPS',
      channel_name: 'ops',
      user_id: 'U111',
    });
    expect(ackText(allowed)).toContain('Checking the health of *restricted*');
    await fake.waitFor(() => fake.messages('C0OPS').some((m) => m.thread_ts !== undefined), 20_000);
  });
});

describe('Slack HTTP receiver: a diagnosis end to end', () => {
  it('acks at once, updates the root as probes finish, and names the killed member in a thread reply', async () => {
    await lab.kill('etcd-2');
    try {
      const res = await sendSlashCommand(url, {
        text: 'diagnose local',
        channel_id: CHANNEL,
        user_id: 'U111',
      });
      expect(res.status).toBe(200);
      expect(res.ms).toBeLessThan(3000);
      expect(ackText(res)).toContain('Diagnosing *local*');
      await answered(1);
      const [root] = roots();
      if (!root) throw new Error('no root message');
      expect(replies(root)).toHaveLength(1);
      const reply = text(replies(root)[0] as FakeMessage);
      expect(reply).toMatch(/Root cause: `member-down`\* \(critical\) on etcd-2/);
      expect(reply).toMatch(/`etcd-2` \*down\*/);
      // One voter of three down leaves no failure tolerance: member-down says critical.
      expect(text(root)).toMatch(/Diagnosis of \*local\*: \*CRITICAL\*/);
      expect(root.updates).toBeGreaterThanOrEqual(1);
      // Progress went through chat.update on the root before the verdict.
      const updates = fake.calls('chat.update').map((c) => String(c.body.text));
      expect(updates.some((t) => /Diagnosing \*local\*: \d+ of \d+ probes done/.test(t))).toBe(true);
      // One count from start to end: the root starts at "starting", and no later update changes the total.
      const posted = fake.calls('chat.postMessage').map((c) => String(c.body.text));
      const totals = [...updates, ...posted].flatMap((t) =>
        [...t.matchAll(/Diagnosing \*local\*: \d+ of (\d+) probes/g)].map((m) => m[1]),
      );
      expect([...new Set(totals)]).toHaveLength(1);
    } finally {
      await lab.restart('etcd-2');
    }
  });

  it('joins a second diagnose of the same cluster to the running one, with a link to its thread', async () => {
    lab.stop('etcd-3'); // a hung member keeps the first diagnosis running for a probe timeout
    try {
      const first = await sendSlashCommand(url, {
        text: 'diagnose local',
        channel_id: CHANNEL,
        user_id: 'U111',
      });
      expect(ackText(first)).toContain('Diagnosing *local*');
      await fake.waitFor(() => roots().length === 1, 10_000);
      const second = await sendSlashCommand(url, {
        text: 'diagnose local',
        channel_id: CHANNEL,
        user_id: 'U222',
      });
      const root = roots()[0] as FakeMessage;
      expect(ackText(second)).toContain('already running; this request joins it');
      expect(ackText(second)).toContain(
        `https://fake-workspace.slack.com/archives/${CHANNEL}/p${root.ts.replace('.', '')}`,
      );
      await answered(1);
      expect(roots()).toHaveLength(1);
      expect(replies(root)).toHaveLength(1);
    } finally {
      lab.cont('etcd-3');
    }
  });

  it('delivers exactly once through Slack 429 (Retry-After) and 503 answers', async () => {
    fake.failNext('chat.postMessage', { status: 429, retryAfterSeconds: 1 });
    fake.failNext('chat.update', { status: 503 });
    await sendSlashCommand(url, { text: 'health local', channel_id: CHANNEL, user_id: 'U111' });
    await answered(1, 30_000);
    expect(fake.calls('chat.postMessage').filter((c) => c.status === 429)).toHaveLength(1);
    expect(fake.calls('chat.update').filter((c) => c.status === 503)).toHaveLength(1);
    const [root] = roots();
    expect(roots()).toHaveLength(1);
    expect(replies(root as FakeMessage)).toHaveLength(1);
    // The report itself, once; its verdict is not what is tested here (the test before this one
    // SIGSTOPped etcd-3, and a loaded host can still see slow reads while it catches up).
    const answer = text(replies(root as FakeMessage)[0] as FakeMessage);
    expect(answer).toMatch(/^Health of local: [A-Z]+/);
    expect(answer).toMatch(/\*Members\*\n(.*etcd-\d.*\n){3}/);
  });

  it('re-runs from the button, and refuses a mutating action to a non-responder', async () => {
    await lab.kill('etcd-2');
    try {
      await sendSlashCommand(url, { text: 'diagnose local', channel_id: CHANNEL, user_id: 'U111' });
      await answered(1);
      const reply = replies(roots()[0] as FakeMessage)[0] as FakeMessage;
      const buttons = buttonsIn(reply.blocks);
      // The cluster has no kubernetes: section, so a restart could not work: no button, one line why.
      expect(buttons.map((b) => b.label)).not.toContain('Restart etcd-2');
      expect(text(reply)).toContain(
        'Not offered: Restart etcd-2 (cluster local has no kubernetes: section in the config)',
      );
      const snooze = buttons.find((b) => b.label === 'Snooze');
      const rerun = buttons.find((b) => b.label === 'Re-run diagnosis');
      if (!snooze || !rerun) throw new Error(`buttons: ${buttons.map((b) => b.label).join(', ')}`);
      expect(snooze.value.length).toBeLessThan(100);

      const press = (b: typeof snooze) =>
        sendBlockAction(url, { user: 'U111', channel: CHANNEL, messageTs: reply.ts, ...b });
      expect((await press(snooze)).status).toBe(200);
      await fake.waitFor(() => fake.ephemerals().length >= 1);
      // No remediation.responders in this config: actions that change something are refused, saying
      // how to allow them.
      expect(fake.ephemerals()[0]?.text).toMatch(
        /Only responders may press \*?Snooze.*lists none, so nothing was done\. To allow it, .*`remediation\.responders` of cluster local in the config/,
      );

      await press(rerun);
      await fake.waitFor(() => fake.ephemerals().length >= 2);
      expect(fake.ephemerals()[1]?.text).toContain('Diagnosing *local*');
      await answered(2);
    } finally {
      await lab.restart('etcd-2');
    }
  });

  it('refuses a forged or expired button value', async () => {
    await sendBlockAction(url, {
      user: 'U111',
      channel: CHANNEL,
      messageTs: '1.000001',
      actionId: 'etcd_doctor.rerun.0',
      value: 'diagnose prod; rm -rf /',
      label: 'x',
    });
    await fake.waitFor(() => fake.ephemerals().length >= 1);
    expect(fake.ephemerals()[0]?.text).toContain('not made by this version of etcd-doctor');
    // Well-formed, but no such plan (expired, or made up).
    const value = JSON.stringify({ v: 1, plan: 'AAAAAAAAAAAAAAAAAAAAAAAA' });
    await sendBlockAction(url, {
      user: 'U111',
      channel: CHANNEL,
      messageTs: '1.000001',
      actionId: 'etcd_doctor.rerun.0',
      value,
      label: 'x',
    });
    await fake.waitFor(() => fake.ephemerals().length >= 2);
    expect(fake.ephemerals()[1]?.text).toContain('This button has expired');
    expect(roots()).toHaveLength(0);
  });
});
