import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { SlackAdapter } from '../../../src/chat/slack/slack-adapter.js';
import { type EtcdLab, startEtcdLab } from '../../support/lab/etcd-lab.js';
import { silentLogger } from '../../../src/logger.js';
import { type RunningRoles, startRoles } from '../../../src/roles/start-roles.js';
import { type FakeMessage, type FakeSlack, startFakeSlack } from '../../support/slack/fake-slack.js';
import { inspectQueue, waitForQueueSettled } from '../../support/redis/job-states.js';
import { labConfig } from '../../support/lab/lab-config.js';
import { purgePrefix, REDIS_URL, testPrefix } from '../../support/redis/redis-prefix.js';
import { messageText, sendSlashCommand } from '../../support/slack/slack-driver.js';
import { channelThreads, eventsUrl, httpSlackAdapter } from '../../support/slack/slack-http.js';

/**
 * Slack answering 429 (Retry-After) and then 5xx for 30 s, while three diagnoses run at once (three
 * names for the same lab cluster, so they do not wait for each other's cluster lock). Every message
 * arrives once, and within each thread the root comes before its answer.
 *
 * The fake answers every chat.postMessage and chat.update with 429 (Retry-After 2 s) for the first
 * 10 s, then with 503 / 502 for 20 s. The WebClient retries (src/chat/slack/slack-adapter.ts: 5
 * retries, 0.5-10 s apart) run out inside that; the job then fails transiently and BullMQ tries it
 * again (attempts 3), keeping its root message and answering once (src/answer/answer-once.ts).
 */

const CHANNEL = 'C111';
const CLUSTERS = ['local', 'local-b', 'local-c'];
const RATE_LIMITED_MS = 10_000;
const OUTAGE_MS = 30_000;
let lab: EtcdLab;
let fake: FakeSlack;
let chat: SlackAdapter;
let roles: RunningRoles;
const prefix = testPrefix('slack-outage');

const text = messageText;
const { roots, replies } = channelThreads(() => fake, CHANNEL);

beforeAll(async () => {
  [lab, fake] = await Promise.all([startEtcdLab(), startFakeSlack()]);
  chat = httpSlackAdapter(fake);
  const extra = CLUSTERS.slice(1).map((name) => ({
    name,
    etcd: { endpoints: lab.endpoints, metricsUrls: lab.metricsUrls },
  }));
  roles = await startRoles({
    role: 'serve',
    chat,
    config: labConfig(lab, extra),
    redisUrl: REDIS_URL,
    queuePrefix: prefix,
    logger: silentLogger,
    tuning: { progressIntervalMs: 200, jobTimeoutMs: 60_000, backoffMs: 500 },
  });
});

afterAll(async () => {
  await roles?.stop();
  await Promise.all([fake?.close(), lab?.destroy()]);
  await purgePrefix(prefix);
});

describe('Slack answering 429 and then 5xx for 30 s', () => {
  it('every message arrives once, in order within each thread', async () => {
    const start = Date.now();
    const serverError = OUTAGE_MS - RATE_LIMITED_MS;
    for (const method of ['chat.postMessage', 'chat.update']) {
      fake.failDuring(method, { status: 429, retryAfterSeconds: 2 }, { forMs: RATE_LIMITED_MS });
      fake.failDuring(
        method,
        { status: method === 'chat.update' ? 502 : 503 },
        {
          afterMs: RATE_LIMITED_MS,
          forMs: serverError,
        },
      );
    }
    const url = eventsUrl(chat);
    const acks = await Promise.all(
      CLUSTERS.map((c) =>
        sendSlashCommand(url, { text: `diagnose ${c}`, channel_id: CHANNEL, user_id: 'U111' }),
      ),
    );
    expect(acks.map((a) => a.status)).toEqual([200, 200, 200]);

    await fake.waitFor(
      () =>
        roots().length >= CLUSTERS.length &&
        roots().every((r) => replies(r).length > 0 && !/probes done|starting/.test(text(r))),
      150_000,
    );
    // Every job has completed: no retry is left to post a late duplicate (a retried post that had landed).
    const inspect = inspectQueue(prefix);
    try {
      const { completed, failed } = await waitForQueueSettled(inspect, CLUSTERS.length, 60_000);
      expect([completed.length, failed.length]).toEqual([CLUSTERS.length, 0]);
    } finally {
      await inspect.close();
    }

    // The outage was real: refused calls all through it, and nothing got through before it ended.
    const failed = fake.calls().filter((c) => c.status !== 200);
    expect(failed.filter((c) => c.status === 429).length).toBeGreaterThan(0);
    const serverErrors = failed.filter((c) => c.status >= 500);
    expect(serverErrors.length).toBeGreaterThan(0);
    expect(Math.max(...serverErrors.map((c) => c.at)) - start).toBeGreaterThan(OUTAGE_MS - 10_000);
    const delivered = fake.calls('chat.postMessage').filter((c) => c.status === 200);
    expect(Math.min(...delivered.map((c) => c.at)) - start).toBeGreaterThanOrEqual(OUTAGE_MS);
    expect(roots()).toHaveLength(CLUSTERS.length);
    const arrival = fake.messages(CHANNEL).map((m) => m.ts);
    for (const cluster of CLUSTERS) {
      const mine = roots().filter((r) => new RegExp(`\\b${cluster}\\b(?!-)`).test(text(r)));
      expect(mine).toHaveLength(1);
      const root = mine[0] as FakeMessage;
      const answers = replies(root);
      expect(answers).toHaveLength(1);
      expect(text(answers[0] as FakeMessage)).toContain(`Diagnosis of ${cluster}`);
      // In order: the answer was posted after its root, in both arrival order and Slack ts.
      expect(arrival.indexOf((answers[0] as FakeMessage).ts)).toBeGreaterThan(arrival.indexOf(root.ts));
      expect(Number((answers[0] as FakeMessage).ts)).toBeGreaterThan(Number(root.ts));
    }
    expect(delivered).toHaveLength(2 * CLUSTERS.length);
  }, 180_000);
});
