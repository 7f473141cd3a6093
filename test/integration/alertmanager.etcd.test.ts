import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { alertmanagerRoute } from '../../src/alerts/alertmanager-route.js';
import { configFileSchema } from '../../src/config/schema.js';
import { writeLoadStarted } from '../support/lab/write-load.js';
import { type EtcdLab, startEtcdLab } from '../support/lab/etcd-lab.js';
import { silentLogger } from '../../src/logger.js';
import { createSlackAdapter } from '../../src/chat/slack/slack-adapter.js';
import { textView } from '../../src/report/chat-view.js';
import { createIncidents } from '../../src/state/incidents.js';
import { createRemediationState } from '../../src/state/remediation-state.js';
import { type RunningRoles, startRoles } from '../../src/roles/start-roles.js';
import { Secret } from '../../src/secret.js';
import { type FakeMessage, type FakeSlack, startFakeSlack } from '../support/slack/fake-slack.js';
import { inspectQueue, waitForJobState } from '../support/redis/job-states.js';
import { captureLogs } from '../support/process/log-capture.js';
import { purgePrefix, REDIS_URL, testPrefix } from '../support/redis/redis-prefix.js';
import { messageText } from '../support/slack/slack-driver.js';
import { channelThreads, httpSlackAdapter } from '../support/slack/slack-http.js';

/**
 * Alert-driven triage end to end: Alertmanager's webhook (version 4, shaped as in its docs) over
 * HTTP, the job through real Redis and BullMQ, a diagnosis of a real 3-member etcd, and the thread
 * in the fake Slack workspace.
 */

const CHANNEL = 'C0ALERTS';
const TOKEN = 's3cret-alertmanager-token';
let lab: EtcdLab;
let fake: FakeSlack;
let roles: RunningRoles | undefined;
let redis: Redis;
let url: string;
let inspect: Queue;
const prefix = testPrefix('alertmanager');
const routeLogs = captureLogs('warn');
/** Jobs in the queue, in any state. */
const jobCount = async () => Object.values(await inspect.getJobCounts()).reduce((sum, n) => sum + n, 0);

const text = messageText;
const { roots, replies } = channelThreads(() => fake, CHANNEL);

/** A notification as Alertmanager sends it (prometheus.io/docs/alerting/latest/configuration/#webhook_config). */
function notification(
  status: 'firing' | 'resolved',
  cluster = 'prod',
  groupKey = '{}:{alertname="etcdHighFsyncDurations"}',
) {
  const startsAt = '2024-05-10T08:55:00.000Z';
  return {
    version: '4',
    groupKey,
    truncatedAlerts: 0,
    status,
    receiver: 'etcd-doctor',
    groupLabels: { alertname: 'etcdHighFsyncDurations' },
    commonLabels: { alertname: 'etcdHighFsyncDurations', cluster, job: 'etcd', severity: 'warning' },
    commonAnnotations: {
      summary: 'etcd cluster 99th percentile fsync durations are too high.',
      description: 'etcd cluster "etcd": 99th percentile fsync durations are 0.7s on etcd-2.',
    },
    externalURL: 'http://alertmanager.example:9093',
    alerts: [
      {
        status,
        labels: {
          alertname: 'etcdHighFsyncDurations',
          cluster,
          instance: '127.20.0.12:2379',
          job: 'etcd',
          severity: 'warning',
        },
        annotations: { summary: 'etcd cluster 99th percentile fsync durations are too high.' },
        startsAt,
        endsAt: status === 'resolved' ? '2024-05-10T09:20:00.000Z' : '0001-01-01T00:00:00Z',
        generatorURL: 'http://prometheus.example:9090/graph?g0.expr=histogram_quantile',
        fingerprint: 'b2f1c0e6a7d5e3f4',
      },
    ],
  };
}

async function post(body: unknown, auth: string | null = `Bearer ${TOKEN}`) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(auth ? { authorization: auth } : {}) },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

beforeAll(async () => {
  [lab, fake] = await Promise.all([startEtcdLab(), startFakeSlack()]);
  redis = new Redis(REDIS_URL);
  const config = configFileSchema.parse({
    clusters: [
      {
        name: 'prod',
        etcd: { endpoints: lab.endpoints, metricsUrls: lab.metricsUrls },
        slack: { channel: CHANNEL },
      },
      { name: 'nochannel', etcd: { endpoints: lab.endpoints } },
      { name: 'quiet', etcd: { endpoints: lab.endpoints }, slack: { channel: CHANNEL } },
      {
        name: 'shared',
        etcd: { endpoints: lab.endpoints, metricsUrls: lab.metricsUrls },
        slack: { channel: CHANNEL },
      },
      {
        name: 'burst',
        etcd: { endpoints: lab.endpoints, metricsUrls: lab.metricsUrls },
        slack: { channel: CHANNEL },
      },
      {
        name: 'retried',
        etcd: { endpoints: lab.endpoints, metricsUrls: lab.metricsUrls },
        slack: { channel: CHANNEL },
      },
    ],
    // A window long enough for a slowed disk's fsyncs to show (the first test below injects one).
    probes: { timeoutMs: 1000, metricsWindowMs: 2000 },
    alertmanager: { clusterLabel: 'cluster', threadWindowMinutes: 60 },
  });
  const chat = httpSlackAdapter(fake, {
    routes: [
      alertmanagerRoute({
        token: new Secret(TOKEN),
        clusterLabel: 'cluster',
        cluster: (name) => config.clusters.find((c) => c.name === name),
        enqueue: () => roles?.enqueue,
        logger: routeLogs.logger,
        now: Date.now,
      }),
    ],
  });
  roles = await startRoles({
    role: 'serve',
    chat,
    config,
    redisUrl: REDIS_URL,
    queuePrefix: prefix,
    logger: silentLogger,
    tuning: { jobTimeoutMs: 30_000 },
  });
  url = `http://127.0.0.1:${chat.address()?.port}/alertmanager`;
  inspect = inspectQueue(prefix);
});

afterAll(async () => {
  await inspect?.close();
  await roles?.stop();
  redis?.disconnect();
  await Promise.all([fake?.close(), lab?.destroy()]);
  await purgePrefix(prefix);
});

beforeEach(() => fake.reset());

describe('POST /alertmanager refuses what it must', () => {
  it('401 without the token or with a wrong one', async () => {
    expect((await post(notification('firing'), null)).status).toBe(401);
    expect((await post(notification('firing'), 'Bearer nope')).status).toBe(401);
    expect(
      (await post(notification('firing'), `Basic ${Buffer.from('am:nope').toString('base64')}`)).status,
    ).toBe(401);
    expect(fake.calls('chat.postMessage')).toHaveLength(0);
  });

  it('400 with the reason for a body that is not a version-4 payload', async () => {
    const badJson = await post('{"version": "4",');
    expect(badJson.status).toBe(400);
    expect(String(badJson.body.error)).toMatch(/invalid JSON/);
    const v3 = await post({ ...notification('firing'), version: '3' });
    expect(v3.status).toBe(400);
    expect(String(v3.body.error)).toMatch(/version.*"4"/);
    const { alerts: _alerts, ...noAlerts } = notification('firing');
    expect(String((await post(noAlerts)).body.error)).toMatch(/alerts/);
    const badStatus = await post({ ...notification('firing'), status: 'burning' });
    expect(badStatus.status).toBe(400);
    expect(String(badStatus.body.error)).toMatch(/status/);
  });

  it('202 and a logged warning for a cluster it does not know, or one without a channel', async () => {
    const before = await jobCount();
    const logged = routeLogs.lines().length;
    const unknown = await post(notification('firing', 'atlantis'));
    expect(unknown.status).toBe(202);
    expect(unknown.body).toMatchObject({
      queued: [],
      ignored: [{ cluster: 'atlantis', reason: 'cluster "atlantis" is not in the config' }],
    });
    const noChannel = await post(notification('firing', 'nochannel'));
    expect(noChannel.body).toMatchObject({ queued: [], ignored: [{ cluster: 'nochannel' }] });
    expect(
      routeLogs
        .lines()
        .slice(logged)
        .map((l) => l.msg),
    ).toEqual([
      'alertmanager: cluster is not in the config; alert ignored',
      'alertmanager: cluster has no slack.channel in the config; alert ignored',
    ]);
    // The reply comes after the enqueue, so a job queued anyway would be in the queue now.
    expect(await jobCount()).toBe(before);
    expect(fake.calls('chat.postMessage')).toHaveLength(0);
  });
});

describe('an alert group becomes one thread', () => {
  it('firing posts the alert as the root and the diagnosis in its thread; firing again updates the same thread; resolved marks it resolved', async () => {
    // The alert is true: a follower's fdatasync is slowed for real (strace, 100 ms) under writes, and
    // the triage in the thread names the cause and that member, not only the cluster.
    const leader = await lab.leaderName();
    const victim = lab.members.map((m) => m.name).find((n) => n !== leader) ?? 'etcd-2';
    const slow = await lab.slowDisk(victim, 100_000);
    let diagnosis = '';
    try {
      const load = await writeLoadStarted(lab, { ratePerSecond: 60, durationMs: 12_000, valueBytes: 256 });
      const first = await post(notification('firing'));
      expect(first.status).toBe(202);
      expect(first.body).toMatchObject({ queued: [{ cluster: 'prod' }], ignored: [] });
      await fake.waitFor(
        () => roots().length === 1 && replies(roots()[0] as FakeMessage).length >= 1,
        20_000,
      );
      diagnosis = text(replies(roots()[0] as FakeMessage)[0] as FakeMessage);
      await load.done;
    } finally {
      await slow.stop();
    }
    const root = roots()[0] as FakeMessage;
    expect(text(root)).toMatch(/FIRING: etcdHighFsyncDurations on prod/);
    expect(text(root)).toMatch(/instance=127\.20\.0\.12:2379/);
    expect(diagnosis).toMatch(/Diagnosis of prod/);
    expect(diagnosis).toMatch(
      new RegExp(`Root cause:\\W+slow-disk\\W+\\[?critical\\]?\\W+on\\W+${victim}\\b`),
    );
    await fake.waitFor(() => /Diagnosis: /.test(text(roots()[0] as FakeMessage)), 10_000);

    // Basic auth (Alertmanager's basic_auth) works too.
    const again = await post(
      notification('firing'),
      `Basic ${Buffer.from(`alertmanager:${TOKEN}`).toString('base64')}`,
    );
    expect(again.status).toBe(202);
    await fake.waitFor(() => replies(roots()[0] as FakeMessage).length >= 2, 20_000);
    expect(roots()).toHaveLength(1);
    expect(text(roots()[0] as FakeMessage)).toMatch(/Fired again \(2 notifications\)/);

    expect((await post(notification('resolved'))).status).toBe(202);
    // The root is updated first, then the note goes into the thread: wait for both.
    const resolvedNote = () => replies(roots()[0] as FakeMessage).some((m) => /resolved/.test(text(m)));
    await fake.waitFor(
      () =>
        /RESOLVED: etcdHighFsyncDurations on prod/.test(text(roots()[0] as FakeMessage)) && resolvedNote(),
      20_000,
    );
    expect(roots()).toHaveLength(1);
    expect(resolvedNote()).toBe(true);
  });

  it('a snoozed cluster gets no triage', async () => {
    await createRemediationState(redis, prefix).snooze('quiet', Date.now() + 60_000, 'U111');
    const accepted = await post(notification('firing', 'quiet', 'group-quiet'));
    expect(accepted.status).toBe(202);
    const [{ jobId }] = accepted.body.queued as [{ jobId: string }];
    // The triage job has ended, and says why it did nothing.
    const job = await waitForJobState(inspect, jobId, 'completed', 20_000);
    expect(job.returnvalue).toEqual({ outcome: 'skipped', reason: 'snoozed' });
    expect(roots()).toHaveLength(0);
  });

  it('coalesces a burst of alert groups about one cluster into one diagnosis', async () => {
    const groups = ['fsync', 'members-down', 'leader-changes', 'commit'].map((g) => `{}:{alertname="${g}"}`);
    const answers = await Promise.all(groups.map((g) => post(notification('firing', 'burst', g))));
    expect(answers.map((a) => a.status)).toEqual([202, 202, 202, 202]);
    const notes = () =>
      roots()
        .flatMap(replies)
        .filter((m) => /Not diagnosing burst again/.test(text(m)));
    const reports = () =>
      roots()
        .flatMap(replies)
        .filter((m) => /Diagnosis of burst/.test(text(m)));
    await fake.waitFor(() => roots().length === 4 && notes().length === 3 && reports().length === 1, 30_000);
    expect(text(notes()[0] as FakeMessage)).toMatch(/one diagnosis per cluster per 5 min\)\. It is in http/);
  });

  it('a diagnosis that could not be posted gives its claim back: the retry diagnoses, not coalesces into itself', async () => {
    const firing = await post(notification('firing', 'retried', 'group-retried'));
    const [{ jobId }] = firing.body.queued as [{ jobId: string }];
    // The root is posted; the diagnosis (at least one metrics window later) is the next post: it fails.
    await fake.waitFor(() => roots().some((m) => /FIRING: .* on retried/.test(text(m))), 20_000);
    fake.failNext('chat.postMessage', { ok: false, error: 'fatal_error' });
    await waitForJobState(inspect, jobId, 'completed', 40_000);
    expect(fake.calls('chat.postMessage').some((c) => c.error === 'fatal_error')).toBe(true);
    const root = roots().find((m) => /FIRING: .* on retried/.test(text(m))) as FakeMessage;
    const thread = replies(root).map(text).join('\n');
    expect(thread).not.toMatch(/Not diagnosing retried again/);
    expect(thread).toMatch(/Diagnosis of retried/);
  }, 60_000);

  it('one problem, one thread: an alert about a cluster with an open watch incident posts in its thread', async () => {
    const slack = createSlackAdapter({
      botToken: new Secret('xoxb-1-test'),
      apiUrl: fake.url,
      logger: silentLogger,
    });
    const incidentRoot = await slack.post(
      { channel: CHANNEL },
      textView('INCIDENT: slow-disk on etcd-2 (shared)'),
    );
    const at = Date.now();
    const incident = {
      id: `shared-${at}`,
      cause: 'slow-disk',
      severity: 'warning' as const,
      members: ['etcd-2'],
    };
    await createIncidents(redis, prefix).open('shared', {
      ...incident,
      root: incidentRoot,
      openedAt: at,
      updatedAt: at,
    });

    const firing = await post(notification('firing', 'shared', 'group-shared'));
    const [{ jobId }] = firing.body.queued as [{ jobId: string }];
    await waitForJobState(inspect, jobId, 'completed', 30_000);
    expect(roots()).toHaveLength(1);
    const root = roots()[0] as FakeMessage;
    expect(root.ts).toBe(incidentRoot.ts);
    // The incident's root is the watch's: the alert posts in its thread and never edits it.
    expect(root.updates).toBe(0);
    expect(replies(root).map(text).join('\n')).toMatch(/FIRING: etcdHighFsyncDurations on shared/);
    expect(replies(root).map(text).join('\n')).toMatch(/Diagnosis of shared/);

    const resolved = await post(notification('resolved', 'shared', 'group-shared'));
    const [{ jobId: resolvedId }] = resolved.body.queued as [{ jobId: string }];
    await waitForJobState(inspect, resolvedId, 'completed', 30_000);
    expect(roots()).toHaveLength(1);
    expect(roots()[0]?.updates).toBe(0);
    expect(replies(root).map(text).join('\n')).toMatch(/Alertmanager says this alert group resolved/);
  });
});
