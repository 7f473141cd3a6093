import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { alertmanagerRoute } from '../../../src/alerts/alertmanager-route.js';
import { memberColors } from '../../../src/charts/member-colors.js';
import type { SlackAdapter } from '../../../src/chat/slack/slack-adapter.js';
import { type ConfigFile, configFileSchema } from '../../../src/config/schema.js';
import { type EtcdLab, startEtcdLab } from '../../support/lab/etcd-lab.js';
import { silentLogger } from '../../../src/logger.js';
import { type RunningRoles, startRoles } from '../../../src/roles/start-roles.js';
import { Secret } from '../../../src/secret.js';
import { type FakeMessage, type FakeSlack, startFakeSlack } from '../../support/slack/fake-slack.js';
import { decodePng, drawnTop } from '../../support/chat/png-pixels.js';
import { purgePrefix, REDIS_URL, testPrefix } from '../../support/redis/redis-prefix.js';
import { messageText, sendSlashCommand } from '../../support/slack/slack-driver.js';
import { channelThreads, eventsUrl, httpSlackAdapter } from '../../support/slack/slack-http.js';

/**
 * A slow disk for real (strace delays every fdatasync of one follower by 100 ms), diagnosed the way
 * a user asks for it: a signed /etcd diagnose through Bolt, BullMQ on real Redis, the worker probing
 * the real 3-member etcd. The answer lands in the thread first, then the chart, whose pixels show
 * the slow member's bar far above the others'.
 */

const CHANNEL = 'C0CHARTS';
const ALERT_CHANNEL = 'C0ALERTCHARTS';
const TOKEN = 'alertmanager-token-for-charts';
const DELAY_MS = 100;
let lab: EtcdLab;
let fake: FakeSlack;
let chat: SlackAdapter;
let roles: RunningRoles;
let url: string;
let alertUrl: string;
let victim: string;
let slow: { stop(): Promise<void> } | undefined;
const prefix = testPrefix('charts');
const { roots, replies } = channelThreads(() => fake, CHANNEL);
const alerts = channelThreads(() => fake, ALERT_CHANNEL);

/** `local` for slash commands; `alerted` (the same lab) is where Alertmanager's notifications go. */
function config(): ConfigFile {
  const etcd = { endpoints: lab.endpoints, metricsUrls: lab.metricsUrls };
  return configFileSchema.parse({
    clusters: [
      { name: 'local', etcd },
      { name: 'alerted', etcd, slack: { channel: ALERT_CHANNEL } },
    ],
    // A 2 s window holds enough 100 ms fsyncs for the rule, and keeps the test short.
    probes: { timeoutMs: 3000, metricsWindowMs: 2000 },
    alertmanager: { clusterLabel: 'cluster' },
  });
}

beforeAll(async () => {
  [lab, fake] = await Promise.all([startEtcdLab(), startFakeSlack()]);
  const clusters = config();
  const route = alertmanagerRoute({
    token: new Secret(TOKEN),
    clusterLabel: 'cluster',
    cluster: (name) => clusters.clusters.find((c) => c.name === name),
    enqueue: () => roles?.enqueue,
    logger: silentLogger,
    now: Date.now,
  });
  chat = httpSlackAdapter(fake, { routes: [route] });
  roles = await startRoles({
    role: 'serve',
    chat,
    config: clusters,
    redisUrl: REDIS_URL,
    queuePrefix: prefix,
    logger: silentLogger,
    tuning: { progressIntervalMs: 200, jobTimeoutMs: 60_000 },
  });
  url = eventsUrl(chat);
  alertUrl = `http://127.0.0.1:${chat.address()?.port}/alertmanager`;
  const leader = await lab.leaderName();
  victim = lab.members.map((m) => m.name).find((n) => n !== leader) ?? 'etcd-2';
  slow = await lab.slowDisk(victim, DELAY_MS * 1000);
});

afterAll(async () => {
  await slow?.stop();
  await roles?.stop();
  await Promise.all([fake?.close(), lab?.destroy()]);
  await purgePrefix(prefix);
});

beforeEach(() => fake.reset());

/** Asks for a diagnosis under write load (fsyncs only happen on writes) and waits for its answer. */
async function diagnoseUnderLoad(): Promise<{ root: FakeMessage; answer: FakeMessage }> {
  const load = lab.writeLoad({ ratePerSecond: 60, durationMs: 5000, valueBytes: 256 });
  const res = await sendSlashCommand(url, { text: 'diagnose local', channel_id: CHANNEL, user_id: 'U111' });
  expect(res.status).toBe(200);
  await fake.waitFor(() => roots().length === 1 && replies(roots()[0] as FakeMessage).length > 0, 30_000);
  await load;
  const root = roots()[0] as FakeMessage;
  return { root, answer: replies(root)[0] as FakeMessage };
}

describe('a slow-disk diagnosis in Slack gets its chart in the same thread, after the answer', () => {
  it('uploads a PNG whose slow bar belongs to the member the answer names', async () => {
    const { root, answer } = await diagnoseUnderLoad();
    expect(messageText(answer)).toContain(victim);
    expect(messageText(answer)).toMatch(/slow disk/i);
    await fake.waitFor((f) => f.files().length === 1, 15_000);
    const [file] = fake.files();
    expect(file).toMatchObject({ channel: CHANNEL, thread_ts: root.ts, filename: 'local-wal-fsync-p99.png' });
    expect(file?.title).toBe(`local: wal fsync p99 per member (${victim} above 10 ms)`);
    // One window, or a range when the run widened some members' windows (a loaded host).
    expect(file?.alt_txt).toMatch(
      new RegExp(
        `^Bar chart of wal fsync p99 per member of local over the (?:[\\d.]+ s probe window|probe windows of [\\d.]+-[\\d.]+ s) at .* UTC: ${victim} \\d+ ms \\(mean \\d+ ms, \\d+ fsyncs.*\\), above the 10 ms bound; `,
      ),
    );
    expect(file?.length).toBe(file?.bytes.length);

    // Text first: the answer was posted before the upload began.
    const methods = fake.calls().map((c) => `${c.method}${c.body.thread_ts ? ' (thread)' : ''}`);
    expect(methods.indexOf('chat.postMessage (thread)')).toBeLessThan(
      methods.indexOf('files.getUploadURLExternal'),
    );

    const img = decodePng(file?.bytes ?? Buffer.alloc(0));
    expect(img.width).toBeGreaterThan(800);
    expect(img.height).toBeGreaterThan(400);
    const names = lab.members.map((m) => m.name);
    const colors = memberColors(names, [victim]);
    const top = (member: string) => drawnTop(img, colors[member], undefined, `line of ${member}`);
    for (const other of names.filter((n) => n !== victim)) {
      // At 100 ms a fsync against ~2-10 ms for a healthy loopback disk: the bar is far taller.
      expect(top(victim)).toBeLessThan(top(other) - 100);
    }
  });

  it('keeps the answer and the verdict when Slack refuses the upload', async () => {
    fake.failNext('files.getUploadURLExternal', { ok: false, error: 'file_uploads_disabled' });
    const { root, answer } = await diagnoseUnderLoad();
    await fake.waitFor((f) => f.calls('files.getUploadURLExternal').length === 1, 15_000);
    await fake.waitFor(() => !/probes done|starting/.test(messageText(roots()[0] as FakeMessage)), 10_000);
    expect(messageText(answer)).toContain(victim);
    expect(fake.files()).toHaveLength(0);
    expect(replies(root)).toHaveLength(1);
    expect(messageText(roots()[0] as FakeMessage)).toMatch(/critical|degraded/i);
  });

  it("puts the chart in an Alertmanager alert's thread too, after the diagnosis", async () => {
    const load = lab.writeLoad({ ratePerSecond: 60, durationMs: 5000, valueBytes: 256 });
    const alert = {
      status: 'firing',
      labels: { alertname: 'etcdHighFsyncDurations', cluster: 'alerted', severity: 'warning' },
      annotations: { summary: 'etcd cluster 99th percentile fsync durations are too high.' },
      startsAt: new Date().toISOString(),
      endsAt: '0001-01-01T00:00:00Z',
      generatorURL: 'http://prometheus.example:9090/graph',
      fingerprint: 'c3a1b2d4e5f60718',
    };
    const res = await fetch(alertUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({
        version: '4',
        groupKey: '{}:{alertname="etcdHighFsyncDurations"}',
        truncatedAlerts: 0,
        status: 'firing',
        receiver: 'etcd-doctor',
        groupLabels: { alertname: 'etcdHighFsyncDurations' },
        commonLabels: alert.labels,
        commonAnnotations: alert.annotations,
        externalURL: 'http://alertmanager.example:9093',
        alerts: [alert],
      }),
    });
    expect(res.status).toBe(202);
    await fake.waitFor((f) => f.files().length === 1, 30_000);
    await load;
    const root = alerts.roots()[0] as FakeMessage;
    expect(messageText(root)).toMatch(/FIRING: etcdHighFsyncDurations on alerted/);
    expect(messageText(alerts.replies(root)[0] as FakeMessage)).toContain(victim);
    expect(fake.files()[0]).toMatchObject({
      channel: ALERT_CHANNEL,
      thread_ts: root.ts,
      title: `alerted: wal fsync p99 per member (${victim} above 10 ms)`,
    });
    const methods = fake.calls().map((c) => `${c.method}${c.body.thread_ts ? ' (thread)' : ''}`);
    expect(methods.indexOf('chat.postMessage (thread)')).toBeLessThan(
      methods.indexOf('files.getUploadURLExternal'),
    );
  });
});
