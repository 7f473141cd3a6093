import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { SlackAdapter } from '../../../src/chat/slack/slack-adapter.js';
import { parseEnv } from '../../../src/config/load-config.js';
import { redisTargetFromEnv } from '../../../src/config/redis-target.js';
import { silentLogger } from '../../../src/logger.js';
import { type RunningRoles, startRoles } from '../../../src/roles/start-roles.js';
import { type FakeMessage, type FakeSlack, startFakeSlack } from '../../support/slack/fake-slack.js';
import { type EtcdLab, startEtcdLab } from '../../support/lab/etcd-lab.js';
import { labConfig } from '../../support/lab/lab-config.js';
import { type RedisClusterGroup, startRedisCluster } from '../../support/redis/redis-cluster.js';
import { ackText, messageText, sendSlashCommand } from '../../support/slack/slack-driver.js';
import { channelThreads, eventsUrl, httpSlackAdapter } from '../../support/slack/slack-http.js';

/**
 * A Redis Cluster loses the master that holds etcd-doctor's keys: three masters with a replica each
 * (redis-cli --cluster create --cluster-replicas 1), all real processes. The master serving the
 * hash tag's slot is SIGKILLed while a diagnosis runs; once its replica has taken the slot over,
 * the bot and the workers follow by themselves (nothing restarts them): the diagnosis in flight is
 * answered in its thread, and the next `/etcd diagnose` is a new job answered in its own.
 */

const CHANNEL = 'C111';
const PREFIX = 'resilience-cluster-failover';
/** Each diagnosis waits this long between its two /metrics scrapes: long enough to kill a master mid-run. */
const METRICS_WINDOW_MS = 4000;
let lab: EtcdLab;
let fake: FakeSlack;
let cluster: RedisClusterGroup;
let roles: RunningRoles | undefined;
let url: string;

const text = messageText;
const { roots, replies } = channelThreads(() => fake, CHANNEL);
const send = (cmd: string) => sendSlashCommand(url, { text: cmd, channel_id: CHANNEL, user_id: 'U111' });

/** Each message of the channel as `ts [in thread_ts]: first line`, for a failure's message. */
const channelSummary = () =>
  fake
    .messages(CHANNEL)
    .map((m) => `${m.ts}${m.thread_ts ? ` in ${m.thread_ts}` : ''}: ${text(m).split('\n')[0]}`)
    .join(' | ');

/**
 * The `n`th root message (from 1) has a diagnosis in its thread and shows the verdict: the job is
 * over (a request sent before that joins it, as it should).
 */
function answered(n: number): boolean {
  const root = roots()[n - 1];
  return (
    root !== undefined &&
    replies(root).some((r) => /Diagnosis of local/.test(text(r))) &&
    !/probes done|starting/.test(text(root))
  );
}

beforeAll(async () => {
  [lab, fake, cluster] = await Promise.all([
    startEtcdLab(),
    startFakeSlack(),
    startRedisCluster({ replicas: 1 }),
  ]);
  const env = parseEnv({
    REDIS_URL: 'redis://127.0.0.1:1',
    REDIS_CLUSTER_NODES: cluster.target.nodes.map((n) => `${n.host}:${n.port}`).join(','),
  });
  if (!env.ok) throw new Error(env.error);
  const chat: SlackAdapter = httpSlackAdapter(fake);
  roles = await startRoles({
    role: 'serve',
    chat,
    config: labConfig(lab, { probes: { timeoutMs: 1000, metricsWindowMs: METRICS_WINDOW_MS } }),
    redisUrl: redisTargetFromEnv(env.value),
    queuePrefix: PREFIX,
    logger: silentLogger,
    tuning: {
      progressIntervalMs: 200,
      jobTimeoutMs: 30_000,
      backoffMs: 500,
      stalledIntervalMs: 1000,
      // The retries below while the bot follows the failover are diagnoses from one user: not what is tested here.
      diagnoseLimits: { perUser: 100, perCluster: 100, windowMs: 60_000 },
    },
  });
  url = eventsUrl(chat);
}, 90_000);

afterAll(async () => {
  await roles?.stop();
  await Promise.all([cluster?.destroy(), fake?.close(), lab?.destroy()]);
});

describe('a Redis Cluster loses the master of our slot', () => {
  it('answers the diagnosis in flight and the next one after the failover, each in its thread', async () => {
    expect((await send('diagnose local')).status).toBe(200);
    await fake.waitFor(() => answered(1), 30_000);

    // A diagnosis in flight when the master of the tag's slot dies: its root is up, its answer not yet.
    const tag = `{${PREFIX}}`;
    const master = await cluster.masterOf(tag);
    await send('diagnose local');
    await fake.waitFor(() => roots().length >= 2, 10_000);
    await cluster.kill(master);
    expect(replies(roots()[1] as FakeMessage)).toHaveLength(0);
    expect(await cluster.waitForFailover(tag, master, 30_000)).not.toBe(master);

    // Its worker follows the slot to the promoted replica by itself and answers, once. (Its root
    // message's record waits for the replica, src/clients/redis.ts replicated(): a root saved
    // just before the kill is not lost, and the retried job answers under it, not under a new root.)
    await fake
      .waitFor(() => answered(2), 40_000)
      .catch((err: unknown) => {
        throw new Error(`${String(err)}\nthe channel: ${channelSummary()}`);
      });

    // Until the bot has followed, the ack says the queue is unavailable; then the request is a new
    // job (not joined to the one above), with a root and an answer of its own.
    const deadline = Date.now() + 30_000;
    let ack = '';
    do {
      if (ack) await new Promise((r) => setTimeout(r, 500));
      const res = await send('diagnose local');
      expect(res.status).toBe(200);
      ack = ackText(res);
    } while (/queue is unavailable/.test(ack) && Date.now() < deadline);
    expect(ack).toMatch(/Diagnosing \*local\*: progress follows/);
    await fake.waitFor(() => answered(3), 40_000);
    expect(roots()).toHaveLength(3);
    for (const root of roots())
      expect(replies(root).filter((r) => /Diagnosis of local/.test(text(r)))).toHaveLength(1);
  }, 180_000);
});
