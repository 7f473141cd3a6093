import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createSlackAdapter, type SlackAdapter } from '../../../src/chat/slack/slack-adapter.js';
import { type EtcdLab, startEtcdLab } from '../../support/lab/etcd-lab.js';
import { type Logger, silentLogger } from '../../../src/logger.js';
import { type RoleTuning, type RunningRoles, startRoles } from '../../../src/roles/start-roles.js';
import { Secret } from '../../../src/secret.js';
import { type FakeMessage, type FakeSlack, startFakeSlack } from '../../support/slack/fake-slack.js';
import { inspectQueue, waitForQueueSettled } from '../../support/redis/job-states.js';
import { labConfig } from '../../support/lab/lab-config.js';
import { captureLogs } from '../../support/process/log-capture.js';
import { purgePrefix, REDIS_URL, testPrefix } from '../../support/redis/redis-prefix.js';
import { messageText, sendSlashCommand } from '../../support/slack/slack-driver.js';
import { channelThreads, eventsUrl, httpSlackAdapter } from '../../support/slack/slack-http.js';

/**
 * Shutdown with a job that outlives the drain deadline: the worker lets it go instead of holding
 * the process past its grace period, another worker recovers it as stalled, and the user still
 * gets exactly one answer (src/roles/shutdown.ts; src/answer/answer-once.ts).
 */

const CHANNEL = 'C0DRAIN';
/** Short on purpose: a hung member keeps the diagnosis going ~3 s, well past it. */
const DRAIN_MS = 300;
const tuning: RoleTuning = {
  shutdownTimeoutMs: DRAIN_MS,
  lockDurationMs: 2000,
  stalledIntervalMs: 500,
  progressIntervalMs: 200,
  jobTimeoutMs: 30_000,
};
let lab: EtcdLab;
let fake: FakeSlack;
let chat: SlackAdapter;
const running: RunningRoles[] = [];
const prefix = testPrefix('shutdown-drain');

const text = messageText;
const { roots, replies } = channelThreads(() => fake, CHANNEL);

async function start(
  role: 'bot' | 'worker',
  adapter: SlackAdapter,
  logger: Logger = silentLogger,
): Promise<RunningRoles> {
  const roles = await startRoles({
    role,
    chat: adapter,
    config: labConfig(lab),
    redisUrl: REDIS_URL,
    queuePrefix: prefix,
    logger,
    tuning,
  });
  running.push(roles);
  return roles;
}

const workerChat = () =>
  createSlackAdapter({ botToken: new Secret('xoxb-1-worker'), apiUrl: fake.url, logger: silentLogger });

beforeAll(async () => {
  [lab, fake] = await Promise.all([startEtcdLab(), startFakeSlack()]);
  chat = httpSlackAdapter(fake);
  await start('bot', chat);
});

afterAll(async () => {
  lab?.cont('etcd-3');
  for (const roles of running.splice(0)) await roles.stop().catch(() => undefined);
  await Promise.all([fake?.close(), lab?.destroy()]);
  await purgePrefix(prefix);
});

describe('stopping a worker whose job outlives the drain deadline', () => {
  it('stop() returns soon after the deadline, another worker finishes the job, and the user gets one answer', async () => {
    const firstLogs = captureLogs();
    const first = await start('worker', workerChat(), firstLogs.logger);
    lab.stop('etcd-3');
    const url = eventsUrl(chat);
    const ack = await sendSlashCommand(url, { text: 'diagnose local', channel_id: CHANNEL, user_id: 'U1' });
    expect(ack.status).toBe(200);
    // The first worker has the job: its root message is up.
    await fake.waitFor(() => roots().length === 1, 10_000);
    await start('worker', workerChat());

    const stopping = Date.now();
    await first.stop();
    running.splice(running.indexOf(first), 1);
    // Drain deadline, then at most 1 s per part: not the job's ~3 s, nor the 25 s default.
    expect(Date.now() - stopping).toBeLessThan(DRAIN_MS + 2500);

    await fake.waitFor(() => {
      const [root] = roots();
      return root !== undefined && replies(root).length > 0 && !/probes done|starting/.test(text(root));
    }, 30_000);
    // The job has ended (no second recovery can come), and so has the run the first worker let go.
    const inspect = inspectQueue(prefix);
    try {
      const { completed } = await waitForQueueSettled(inspect, 1, 30_000);
      expect(completed).toHaveLength(1);
    } finally {
      await inspect.close();
    }
    await firstLogs.waitFor('an abandoned run has ended', { timeoutMs: 15_000 });
    expect(roots()).toHaveLength(1);
    const answers = replies(roots()[0] as FakeMessage);
    expect(answers).toHaveLength(1);
    expect(text(answers[0] as FakeMessage)).toMatch(/Diagnosis of local/);
    expect(text(answers[0] as FakeMessage)).toMatch(/etcd-3/);
  }, 60_000);
});
