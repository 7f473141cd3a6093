import { readFileSync } from 'node:fs';
import type { ConnectionOptions as TlsOptions } from 'node:tls';
import { Cluster, Redis as SingleRedis } from 'ioredis';
import {
  isClusterTarget,
  isUrlTarget,
  type ClusterTarget,
  type RedisTarget,
  type RedisTls,
} from '../config/redis-target.js';

/**
 * The connection type that stores (src/state) and queues (src/queue) are built on: one Redis (by URL
 * or through Sentinel) or a Redis Cluster. Both speak the same commands; on a cluster every
 * multi-key command's keys share one hash slot (keyPrefixFor in config/redis-target.ts).
 */
export type Redis = SingleRedis | Cluster;

/** How long a record of something done outside Redis waits for a replica; a slow replica only delays it. */
export const REPLICA_WAIT_MS = 250;

/**
 * Waits, at most REPLICA_WAIT_MS, until a replica holds this connection's writes so far, on a
 * Redis Cluster or a Sentinel group. Both fail over to a replica, and replication is
 * asynchronous: a write the old primary took but had not passed on is gone after the failover.
 * For the records of what cannot be taken back (a Slack message posted, a remediation started) that
 * loss means doing it twice: a second root message, a second answer, a second run. `key` routes the
 * WAIT to the node of its slot. One Redis by URL has no failover to wait for. Errors are left to
 * the write itself: a primary that died before the WAIT took the write with it or not, and the
 * caller can do nothing more about it.
 */
export async function replicated(redis: Redis, key: string): Promise<void> {
  const failsOver = redis instanceof Cluster || (redis.options.sentinels?.length ?? 0) > 0;
  if (!failsOver) return;
  await redis
    .pipeline()
    .exists(key)
    .wait(1, REPLICA_WAIT_MS)
    .exec()
    .catch(() => undefined);
}

/** Reconnect delay: 100 ms, 200 ms, ... capped at 2 s, for as long as the process runs. */
const RETRY_CAP_MS = 2000;

type Retry = (times: number) => number | null;

/** Where to connect: a URL, or the sentinels that know the primary of `name`. */
interface TargetOptions {
  url?: string;
  sentinels?: { host: string; port: number }[];
  name?: string;
  password?: string;
  sentinelPassword?: string;
  sentinelRetryStrategy?: Retry;
  tls?: TlsOptions;
  enableTLSForSentinelMode?: boolean;
  sentinelTLS?: TlsOptions;
}

/**
 * Node's TLS options from the files REDIS_TLS_* name, read now (a connection is made at start, so a
 * missing file stops the process there, naming the file). Without a CA file Node's own CAs verify the
 * server; the certificate is always verified, against the address connected to (an IP SAN for an IP).
 */
function tlsOptions(files: RedisTls): TlsOptions {
  const read = (path: string | undefined) => (path ? readFileSync(path) : undefined);
  const [ca, cert, key] = [read(files.caFile), read(files.certFile), read(files.keyFile)];
  return { ...(ca ? { ca } : {}), ...(cert ? { cert } : {}), ...(key ? { key } : {}) };
}

/** ioredis options BullMQ accepts for the connections it opens itself (workers' blocking clients). */
export interface BullConnectionOptions extends TargetOptions {
  maxRetriesPerRequest: null;
  retryStrategy: Retry;
}

/**
 * The ioredis options that reach a URL or a Sentinel group. With Sentinel, ioredis asks the
 * sentinels for the primary on every (re)connect, so after a failover the next reconnect lands on
 * the promoted replica; `sentinelRetryStrategy` shares the shutdown switch.
 */
function targetOptions(target: Exclude<RedisTarget, ClusterTarget>, retryStrategy: Retry): TargetOptions {
  if (typeof target === 'string') return { url: target };
  if (isUrlTarget(target)) return { url: target.url, tls: tlsOptions(target.tls) };
  return {
    sentinels: target.sentinels,
    name: target.name,
    sentinelRetryStrategy: retryStrategy,
    ...(target.password ? { password: target.password.reveal() } : {}),
    ...(target.sentinelPassword ? { sentinelPassword: target.sentinelPassword.reveal() } : {}),
    // The primary and replicas the sentinels name, and the sentinels, each over TLS when asked.
    ...(target.tls ? { tls: tlsOptions(target.tls), enableTLSForSentinelMode: true } : {}),
    ...(target.sentinelTls ? { sentinelTLS: tlsOptions(target.sentinelTls) } : {}),
  };
}

interface ConnectionOptions {
  maxRetriesPerRequest: number | null;
  connectTimeout: number;
  retryStrategy: Retry;
  connectionName?: string;
  lazyConnect?: boolean;
  enableOfflineQueue?: boolean;
}

/**
 * A cluster client: the slot map comes from the seed nodes, and the cluster as a whole reconnects
 * (`clusterRetryStrategy`, the shutdown switch); each node's connection takes the per-connection
 * options. While the cluster is down, commands wait in the offline queue as on one Redis.
 */
function newCluster(target: ClusterTarget, options: ConnectionOptions): Cluster {
  const { retryStrategy, lazyConnect, enableOfflineQueue, ...perNode } = options;
  return new Cluster(target.nodes, {
    clusterRetryStrategy: retryStrategy,
    ...(lazyConnect !== undefined ? { lazyConnect } : {}),
    ...(enableOfflineQueue !== undefined ? { enableOfflineQueue } : {}),
    redisOptions: {
      ...perNode,
      ...(target.password ? { password: target.password.reveal() } : {}),
      ...(target.tls ? { tls: tlsOptions(target.tls) } : {}),
    },
  });
}

function newRedis(target: RedisTarget, options: ConnectionOptions): Redis {
  if (isClusterTarget(target)) return newCluster(target, options);
  if (typeof target === 'string') return new SingleRedis(target, options);
  if (isUrlTarget(target)) return new SingleRedis(target.url, { ...options, tls: tlsOptions(target.tls) });
  return new SingleRedis({ ...targetOptions(target, options.retryStrategy), ...options });
}

/**
 * Every Redis connection of one process, sharing one switch: after `shutdown()` none reconnects.
 * BullMQ duplicates connections and reconnects them on its own; since duplicates copy the
 * retryStrategy, the switch reaches those too, so a process whose Redis is gone can still exit.
 */
export interface RedisConnections {
  readonly url: RedisTarget;
  /**
   * `maxRetriesPerRequest: null` is what BullMQ needs; commands then wait while Redis reconnects,
   * so callers with a human waiting bound the wait themselves (see job-queue.ts). A fail-fast
   * connection (enableOfflineQueue: false) does not work with BullMQ: its Queue runs INFO once at
   * construction and keeps that failure for good.
   */
  connect(name: string): Redis;
  /**
   * What a BullMQ Worker connects with. BullMQ builds a plain ioredis client from options, never a
   * cluster client: for a cluster it gets a cluster client that it duplicates (this one stays
   * unconnected: `lazyConnect`).
   */
  bullOptions(): BullConnectionOptions | Cluster;
  /** Stops reconnecting and drops every connection made by connect(). */
  shutdown(): void;
}

/**
 * Disconnects a client that has not ended already: ioredis's disconnect() on a client that quit
 * waits for a 'close' already past and holds the process for its 2 s destroy timer (Jest's "a
 * worker process has failed to exit gracefully", issue 42 item 9).
 */
export function disconnectUnlessEnded(redis: Redis): void {
  if (redis.status !== 'end') redis.disconnect();
}

export function createRedisConnections(url: RedisTarget): RedisConnections {
  let closed = false;
  const made: Redis[] = [];
  const retryStrategy = (times: number): number | null =>
    closed ? null : Math.min(times * 100, RETRY_CAP_MS);
  const connect = (name: string, lazyConnect?: boolean) => {
    const redis = newRedis(url, {
      maxRetriesPerRequest: null,
      connectTimeout: 2000,
      retryStrategy,
      connectionName: name,
      ...(lazyConnect ? { lazyConnect } : {}),
    });
    made.push(redis);
    return redis;
  };
  return {
    url,
    connect: (name) => connect(name),
    bullOptions: () =>
      isClusterTarget(url)
        ? (connect('etcd-doctor-worker', true) as Cluster)
        : { ...targetOptions(url, retryStrategy), maxRetriesPerRequest: null, retryStrategy },
    shutdown() {
      closed = true;
      for (const redis of made) disconnectUnlessEnded(redis);
    },
  };
}

/**
 * A short-lived connection for one read (the audit trail from the CLI or an MCP tool) that fails
 * fast: it connects when the caller calls `connect()`, never reconnects and queues nothing while
 * down. The caller listens for 'error' and disconnects.
 */
export function connectOneShot(url: RedisTarget, connectTimeoutMs = 2000): Redis {
  return newRedis(url, {
    lazyConnect: true,
    connectTimeout: connectTimeoutMs,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
}
