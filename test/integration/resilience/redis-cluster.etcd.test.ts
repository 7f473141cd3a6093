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
 * etcd-doctor on a real 3-node Redis Cluster (redis-cli --cluster create over three
 * `redis-server --cluster-enabled yes`), named by REDIS_CLUSTER_NODES as in production: the bot
 * queues, a worker runs the diagnosis against a real etcd lab and answers in its thread. Every key
 * lands under the hash-tagged prefix (`{resilience-cluster}`), so BullMQ's Lua scripts and our
 * MULTIs and scripts (answer claims, rate limits, locks) each find their keys in one slot.
 */

const CHANNEL = 'C111';
const PREFIX = 'resilience-cluster';
let lab: EtcdLab;
let fake: FakeSlack;
let cluster: RedisClusterGroup;
let roles: RunningRoles | undefined;
let url: string;

const text = messageText;
const { roots, replies } = channelThreads(() => fake, CHANNEL);
const send = (cmd: string) => sendSlashCommand(url, { text: cmd, channel_id: CHANNEL, user_id: 'U111' });

beforeAll(async () => {
  [lab, fake, cluster] = await Promise.all([startEtcdLab(), startFakeSlack(), startRedisCluster()]);
  // REDIS_URL points nowhere: the cluster nodes take precedence, or nothing would be answered.
  const env = parseEnv({
    REDIS_URL: 'redis://127.0.0.1:1',
    REDIS_CLUSTER_NODES: cluster.target.nodes.map((n) => `${n.host}:${n.port}`).join(','),
  });
  if (!env.ok) throw new Error(env.error);
  const chat: SlackAdapter = httpSlackAdapter(fake);
  roles = await startRoles({
    role: 'serve',
    chat,
    config: labConfig(lab),
    redisUrl: redisTargetFromEnv(env.value),
    queuePrefix: PREFIX,
    logger: silentLogger,
    tuning: { progressIntervalMs: 200, jobTimeoutMs: 20_000, backoffMs: 500, stalledIntervalMs: 1000 },
  });
  url = eventsUrl(chat);
}, 60_000);

afterAll(async () => {
  await roles?.stop();
  await Promise.all([cluster?.destroy(), fake?.close(), lab?.destroy()]);
});

describe('etcd-doctor on a Redis Cluster', () => {
  it('answers /etcd diagnose in its thread, every key under the one hash tag', async () => {
    const ack = await send('diagnose local');
    expect(ack.status).toBe(200);
    expect(ackText(ack)).not.toMatch(/unavailable/);
    await fake.waitFor(() => {
      const [root] = roots();
      // Answered in the thread, and the root turned from progress into the verdict.
      return (
        root !== undefined &&
        replies(root).some((r) => /Diagnosis of local/.test(text(r))) &&
        !/probes done|starting/.test(text(root))
      );
    }, 40_000);
    const [root] = roots();
    expect(text(root as FakeMessage)).not.toMatch(/Could not finish/);
    expect(replies(root as FakeMessage)).toHaveLength(1);

    // Every key is under the tag, so all sit on the one node that owns its slot: the job's answer
    // marker and BullMQ's job hash among them.
    const byNode = await cluster.keysByMaster();
    const keys = byNode.flat();
    expect(byNode.filter((k) => k.length > 0)).toHaveLength(1);
    expect(keys.filter((k) => !k.startsWith(`{${PREFIX}}:`))).toEqual([]);
    expect(keys.some((k) => k.startsWith(`{${PREFIX}}:state:answered:`))).toBe(true);
    expect(keys.some((k) => k.startsWith(`{${PREFIX}}:jobs:`))).toBe(true);
  }, 90_000);
});
