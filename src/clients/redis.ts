import { Redis } from 'ioredis';

/** The connection type that stores (src/state) and queues (src/queue) are built on. */
export type { Redis } from 'ioredis';

/** Reconnect delay: 100 ms, 200 ms, ... capped at 2 s, for as long as the process runs. */
const RETRY_CAP_MS = 2000;

/** ioredis options BullMQ accepts for the connections it opens itself (workers' blocking clients). */
export interface BullConnectionOptions {
  url: string;
  maxRetriesPerRequest: null;
  retryStrategy: (times: number) => number | null;
}

/**
 * Every Redis connection of one process, sharing one switch: after `shutdown()` none reconnects.
 * BullMQ duplicates connections and reconnects them on its own; since duplicates copy the
 * retryStrategy, the switch reaches those too, so a process whose Redis is gone can still exit.
 */
export interface RedisConnections {
  readonly url: string;
  /**
   * `maxRetriesPerRequest: null` is what BullMQ needs; commands then wait while Redis reconnects,
   * so callers with a human waiting bound the wait themselves (see job-queue.ts). A fail-fast
   * connection (enableOfflineQueue: false) does not work with BullMQ: its Queue runs INFO once at
   * construction and keeps that failure for good.
   */
  connect(name: string): Redis;
  bullOptions(): BullConnectionOptions;
  /** Stops reconnecting and drops every connection made by connect(). */
  shutdown(): void;
}

export function createRedisConnections(url: string): RedisConnections {
  let closed = false;
  const made: Redis[] = [];
  const retryStrategy = (times: number): number | null =>
    closed ? null : Math.min(times * 100, RETRY_CAP_MS);
  return {
    url,
    connect(name) {
      const redis = new Redis(url, {
        maxRetriesPerRequest: null,
        connectTimeout: 2000,
        retryStrategy,
        connectionName: name,
      });
      made.push(redis);
      return redis;
    },
    bullOptions: () => ({ url, maxRetriesPerRequest: null, retryStrategy }),
    shutdown() {
      closed = true;
      for (const redis of made) redis.disconnect();
    },
  };
}

/**
 * A short-lived connection for one read (the audit trail from the CLI or an MCP tool) that fails
 * fast: it connects when the caller calls `connect()`, never reconnects and queues nothing while
 * down. The caller listens for 'error' and disconnects.
 */
export function connectOneShot(url: string, connectTimeoutMs = 2000): Redis {
  return new Redis(url, {
    lazyConnect: true,
    connectTimeout: connectTimeoutMs,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
}
