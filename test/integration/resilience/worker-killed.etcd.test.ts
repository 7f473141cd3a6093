import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import type { SlackAdapter } from '../../../src/chat/slack/slack-adapter.js';
import { type EtcdLab, startEtcdLab } from '../../support/lab/etcd-lab.js';
import { silentLogger } from '../../../src/logger.js';
import { type RunningRoles, startRoles } from '../../../src/roles/start-roles.js';
import { type FakeMessage, type FakeSlack, startFakeSlack } from '../../support/slack/fake-slack.js';
import { inspectQueue, waitForQueueSettled } from '../../support/redis/job-states.js';
import { labConfig, labConfigYaml } from '../../support/lab/lab-config.js';
import { purgePrefix, REDIS_URL, testPrefix } from '../../support/redis/redis-prefix.js';
import { messageText, sendSlashCommand } from '../../support/slack/slack-driver.js';
import { channelThreads, eventsUrl, httpSlackAdapter } from '../../support/slack/slack-http.js';
import {
  killWorkers,
  startWorkerProcess,
  type WorkerProcess,
  waitUntil,
} from '../../support/process/worker-process.js';

/**
 * A worker process SIGKILLed in the middle of a diagnosis: the other worker process recovers the job
 * (BullMQ stalled-job check) and the user sees one root and exactly one final answer.
 *
 * The workers are real `etcd-doctor worker` processes with the production timings: a job lock of
 * 15 s and a stalled check every 5 s (src/queue/job-worker.ts; the CLI exposes no knob for them),
 * so recovery takes 15-20 s after the kill, plus the per-cluster lock's own 15 s expiry. The bot
 * side runs in this process (real Bolt, HTTP).
 *
 * "Mid-job" means after the worker has recorded its root message in Redis: a worker killed in the
 * millisecond between Slack storing the root and that write leaves a root nobody knows, and the
 * recovered job posts a second one (see rootFor in src/checks/check-jobs.ts). Killing on the
 * first sight of the root in the fake hit that window under load, once in two CI runs.
 */

const CHANNEL = 'C111';
/** The diagnosis waits this long on /metrics, so there is time to kill its worker mid-job. */
const METRICS_WINDOW_MS = 6000;
/** Job lock (15 s) + stalled check (5 s) + cluster lock expiry (15 s) + a diagnosis (~7 s) + slack. */
const RECOVERY_MS = 65_000;

let lab: EtcdLab;
let fake: FakeSlack;
let chat: SlackAdapter;
let roles: RunningRoles;
let dir: string;
const prefix = testPrefix('worker-killed');
const workers: WorkerProcess[] = [];

const text = messageText;
const { roots, replies } = channelThreads(() => fake, CHANNEL);

function startWorker(configPath: string): WorkerProcess {
  const worker = startWorkerProcess({ configPath, prefix, slackApiUrl: fake.url });
  workers.push(worker);
  return worker;
}

/** Polls Redis until a key matching `pattern` exists. */
async function waitForKey(pattern: string, timeoutMs: number): Promise<void> {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  try {
    const deadline = Date.now() + timeoutMs;
    while ((await redis.keys(pattern)).length === 0) {
      if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: a key ${pattern}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  } finally {
    redis.disconnect();
  }
}

beforeAll(async () => {
  [lab, fake] = await Promise.all([startEtcdLab(), startFakeSlack()]);
  dir = await mkdtemp(join(tmpdir(), 'etcd-doctor-killed-'));
  const configPath = join(dir, 'clusters.yaml');
  await writeFile(configPath, labConfigYaml(lab, { timeoutMs: 1000, metricsWindowMs: METRICS_WINDOW_MS }));
  chat = httpSlackAdapter(fake);
  roles = await startRoles({
    role: 'bot',
    chat,
    config: labConfig(lab),
    redisUrl: REDIS_URL,
    queuePrefix: prefix,
    logger: silentLogger,
  });
  const a = startWorker(configPath);
  const b = startWorker(configPath);
  await waitUntil(() => a.started() && b.started(), 30_000, 'both workers started');
});

afterAll(async () => {
  killWorkers(workers);
  await roles?.stop();
  await Promise.all([fake?.close(), lab?.destroy()]);
  await purgePrefix(prefix);
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('worker SIGKILLed mid-job', () => {
  it('the other worker finishes the diagnosis and the user gets exactly one answer', async () => {
    const url = eventsUrl(chat);
    const ack = await sendSlashCommand(url, { text: 'diagnose local', channel_id: CHANNEL, user_id: 'U111' });
    expect(ack.status).toBe(200);

    const tookIt = (w: WorkerProcess) => w.logged('"job started"');
    await waitUntil(() => workers.some(tookIt), 15_000, 'a worker started the job');
    const victim = workers.find(tookIt);
    const survivor = workers.find((w) => w !== victim);
    if (!victim || !survivor) throw new Error('expected two workers');
    // Mid-job: the root is up and recorded, the /metrics window has not closed yet.
    await fake.waitFor(() => roots().length === 1, 5000);
    await waitForKey(`${prefix}:state:root:*`, 5000);
    expect(replies(roots()[0] as FakeMessage)).toHaveLength(0);
    victim.child.kill('SIGKILL');
    await waitUntil(() => victim.child.signalCode === 'SIGKILL', 5000, 'the victim died');

    await fake.waitFor(() => {
      const [root] = roots();
      return root !== undefined && replies(root).length > 0;
    }, RECOVERY_MS);
    expect(tookIt(survivor)).toBe(true);
    // The job has completed and nothing is left to run: no second recovery, no failure answer to come.
    const inspect = inspectQueue(prefix);
    try {
      const { completed, failed } = await waitForQueueSettled(inspect, 1, 30_000);
      expect([completed.length, failed.length]).toEqual([1, 0]);
    } finally {
      await inspect.close();
    }
    expect(roots()).toHaveLength(1);
    const [root] = roots();
    const answers = replies(root as FakeMessage);
    expect(answers).toHaveLength(1);
    expect(text(answers[0] as FakeMessage)).toMatch(/Diagnosis of local/);
    expect(text(root as FakeMessage)).not.toMatch(/probes done|starting|Could not finish/);
  }, 120_000);
});
