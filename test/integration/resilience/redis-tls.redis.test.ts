import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connectOneShot } from '../../../src/clients/redis.js';
import { createMemoryAdapter } from '../../../src/chat/memory/memory-adapter.js';
import { parseEnv } from '../../../src/config/load-config.js';
import { type RedisTarget, redisTargetFromEnv } from '../../../src/config/redis-target.js';
import { configFileSchema } from '../../../src/config/schema.js';
import { silentLogger } from '../../../src/logger.js';
import { startRoles } from '../../../src/roles/start-roles.js';
import { testPrefix } from '../../support/redis/redis-prefix.js';
import { type RedisClusterGroup, startRedisCluster } from '../../support/redis/redis-cluster.js';
import { type SentinelGroup, startSentinelGroup } from '../../support/redis/redis-sentinel.js';
import { createRedisPki, type RedisPki } from '../../support/redis/redis-tls.js';
import { waitForRedis } from '../../support/redis/redis-server.js';
import { within } from '../../support/process/within.js';

/**
 * Issue 38 item 3: TLS for Sentinel and Redis Cluster. Real redis-servers that listen with TLS only
 * (`--port 0`), replicate and gossip over TLS, and ask clients for a certificate (openssl-made, per
 * run). etcd-doctor reaches them from env alone, as in production (REDIS_TLS, REDIS_TLS_CA_FILE, the
 * client certificate and key): a whole check goes through the queue and a worker (BullMQ's own
 * blocking connections included) and is answered. A client that trusts another CA is refused.
 */
const config = configFileSchema.parse({
  clusters: [{ name: 'dead', etcd: { endpoints: ['http://127.0.0.1:1'] } }],
  probes: { timeoutMs: 1000, metricsWindowMs: 300 },
});

let pki: RedisPki;
let sentinel: SentinelGroup | undefined;
let cluster: RedisClusterGroup | undefined;

beforeAll(async () => {
  pki = await createRedisPki();
}, 30_000);

afterAll(async () => {
  await sentinel?.destroy();
  await cluster?.destroy();
  await pki?.destroy();
});

function tlsEnv(where: Record<string, string>, caFile = pki.caFile): RedisTarget {
  const env = parseEnv({
    // Nothing listens there: the sentinels or the cluster nodes take precedence.
    REDIS_URL: 'redis://127.0.0.1:1',
    REDIS_TLS: 'true',
    REDIS_TLS_CA_FILE: caFile,
    REDIS_TLS_CERT_FILE: pki.clientCertFile,
    REDIS_TLS_KEY_FILE: pki.clientKeyFile,
    ...where,
  });
  if (!env.ok) throw new Error(env.error);
  return redisTargetFromEnv(env.value);
}

/** `health dead` through the roles on `target`: the answer in its thread, once a worker took the job. */
async function checkThrough(target: RedisTarget): Promise<string> {
  const chat = createMemoryAdapter();
  const roles = await startRoles({
    role: 'serve',
    chat,
    config,
    redisUrl: target,
    queuePrefix: testPrefix('redis-tls'),
    logger: silentLogger,
    tuning: { progressIntervalMs: 100, jobTimeoutMs: 20_000, shutdownTimeoutMs: 2000 },
  });
  try {
    // As /readyz does: a command sent before Redis answers is told the queue is unavailable.
    await waitForRedis(() => roles.redisReady(), 30_000, 'the roles did not reach Redis over TLS');
    const [ack] = await chat.command('health dead');
    expect(ack?.kind === 'text' ? ack.lines[0] : ack?.kind).toMatch(/^Checking the health of \*dead\*/);
    await chat.waitFor((c) => c.messages.some((m) => m.threadTs !== undefined), 30_000);
    return chat.messages.find((m) => m.threadTs !== undefined)?.text ?? '';
  } finally {
    await within(roles.stop(), 15_000, 'the roles stop');
  }
}

/** PING with a one-shot connection: PONG, or the error that refused it. */
async function ping(target: RedisTarget): Promise<string> {
  const redis = connectOneShot(target, 3000);
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    return await redis.ping();
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  } finally {
    redis.disconnect();
  }
}

describe('Redis behind Sentinel, TLS only', () => {
  let sentinels: string;

  beforeAll(async () => {
    sentinel = await startSentinelGroup({ tls: pki });
    sentinels = sentinel.target.sentinels.map((s) => `${s.host}:${s.port}`).join(',');
  }, 60_000);

  it('a check is queued, run by a worker and answered, over TLS to the sentinels and the primary', async () => {
    const target = tlsEnv({ REDIS_SENTINELS: sentinels, REDIS_SENTINEL_NAME: sentinel?.target.name ?? '' });
    expect(await checkThrough(target)).toContain('unreachable-from-here');
  }, 60_000);

  it('a client that trusts another CA is refused: the servers are verified', async () => {
    const trusted = tlsEnv({ REDIS_SENTINELS: sentinels, REDIS_SENTINEL_NAME: sentinel?.target.name ?? '' });
    expect(await ping(trusted)).toBe('PONG');
    const target = tlsEnv(
      { REDIS_SENTINELS: sentinels, REDIS_SENTINEL_NAME: sentinel?.target.name ?? '' },
      pki.strangerCaFile,
    );
    expect(await ping(target)).not.toBe('PONG');
  }, 30_000);
});

describe('Redis Cluster, TLS only (clients, replication and the cluster bus)', () => {
  let nodes: string;

  beforeAll(async () => {
    cluster = await startRedisCluster({ tls: pki });
    nodes = cluster.target.nodes.map((n) => `${n.host}:${n.port}`).join(',');
  }, 90_000);

  it('a check is queued, run by a worker and answered, over TLS to every node', async () => {
    expect(await checkThrough(tlsEnv({ REDIS_CLUSTER_NODES: nodes }))).toContain('unreachable-from-here');
  }, 60_000);

  it('a client that trusts another CA is refused', async () => {
    expect(await ping(tlsEnv({ REDIS_CLUSTER_NODES: nodes }))).toBe('PONG');
    expect(await ping(tlsEnv({ REDIS_CLUSTER_NODES: nodes }, pki.strangerCaFile))).not.toBe('PONG');
  }, 30_000);
});

describe('the env that asks for TLS', () => {
  it('REDIS_TLS with a plain REDIS_URL says to write rediss://', () => {
    const env = parseEnv({ REDIS_URL: 'redis://127.0.0.1:6379', REDIS_TLS: 'true' });
    expect(env).toEqual({
      ok: false,
      error:
        'environment: REDIS_TLS: REDIS_TLS is for REDIS_SENTINELS and REDIS_CLUSTER_NODES; with REDIS_URL, write rediss:// instead',
    });
  });

  it('a client certificate without its key is refused', () => {
    const env = parseEnv({ REDIS_URL: 'rediss://127.0.0.1:6379', REDIS_TLS_CERT_FILE: '/x.crt' });
    expect(env.ok).toBe(false);
  });
});
