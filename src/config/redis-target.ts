import type { Secret } from '../secret.js';

/** One server's address, as `REDIS_SENTINELS` and `REDIS_CLUSTER_NODES` list them (`host:port,host:port,…`). */
export interface RedisAddress {
  host: string;
  port: number;
}

/**
 * TLS to Redis (REDIS_TLS_CA_FILE, REDIS_TLS_CERT_FILE, REDIS_TLS_KEY_FILE): the CA that signed the
 * servers' certificates (default: Node's own CAs), and a client certificate for servers that ask for
 * one (Redis' `tls-auth-clients yes`, its default). The files are read when a connection is made.
 */
export interface RedisTls {
  caFile?: string;
  certFile?: string;
  keyFile?: string;
}

/** One Sentinel's address. */
export type SentinelAddress = RedisAddress;

/** A primary that Sentinel watches: connections ask the sentinels where it is, and again after a failover. */
export interface SentinelTarget {
  sentinels: SentinelAddress[];
  /** The master group name that the sentinels monitor (`sentinel monitor <name> …`). */
  name: string;
  password?: Secret;
  sentinelPassword?: Secret;
  /** TLS to the primary and replicas the sentinels name (REDIS_TLS). */
  tls?: RedisTls;
  /** TLS to the sentinels themselves (REDIS_SENTINEL_TLS, default REDIS_TLS). */
  sentinelTls?: RedisTls;
}

/**
 * A Redis Cluster: connections learn the slot map from any of these seed nodes (CLUSTER SLOTS) and
 * follow MOVED/ASK redirections and failovers from there.
 */
export interface ClusterTarget {
  nodes: RedisAddress[];
  /** The nodes' password (`requirepass`), where set. */
  password?: Secret;
  /** TLS to every node (REDIS_TLS; the nodes then run `tls-cluster yes`). */
  tls?: RedisTls;
}

/** A `rediss://` URL with TLS files of its own (a private CA, a client certificate). */
export interface UrlTarget {
  url: string;
  tls: RedisTls;
}

/**
 * Where Redis is: a `redis://` URL (`REDIS_URL`), a Sentinel group (`REDIS_SENTINELS` with
 * `REDIS_SENTINEL_NAME`), or a Redis Cluster (`REDIS_CLUSTER_NODES`); the last two take precedence
 * over the URL. Parsed once from env and passed wherever the `redisUrl` fields go; every connection
 * is made from it in src/clients/redis.ts.
 */
export type RedisTarget = string | UrlTarget | SentinelTarget | ClusterTarget;

export function isClusterTarget(target: RedisTarget): target is ClusterTarget {
  return typeof target !== 'string' && 'nodes' in target;
}

export function isUrlTarget(target: RedisTarget): target is string | UrlTarget {
  return typeof target === 'string' || 'url' in target;
}

/**
 * The key prefix every Redis key of a deployment starts with. On a Redis Cluster each multi-key
 * command (MULTI, BullMQ's and our Lua scripts) must find all its keys in one hash slot, and a key
 * with `{tag}` hashes on the tag alone (Redis Cluster spec, "Hash tags"): so there the prefix is
 * wrapped in braces (`etcd-doctor` -> `{etcd-doctor}`), unless it already has a tag. BullMQ asks
 * for exactly this on Cluster. Elsewhere the prefix stays as given.
 */
export function keyPrefixFor(target: RedisTarget, prefix: string): string {
  if (!isClusterTarget(target)) return prefix;
  // Redis hashes on what lies between the first `{` and the next `}`, when that is not empty.
  const open = prefix.indexOf('{');
  const close = open < 0 ? -1 : prefix.indexOf('}', open + 1);
  return close > open + 1 ? prefix : `{${prefix}}`;
}

/** `host:port,host:port` -> addresses, or the first entry that is not `host:port`. */
export function parseAddressList(
  text: string,
): { ok: true; addresses: RedisAddress[] } | { ok: false; bad: string } {
  const addresses: RedisAddress[] = [];
  for (const entry of text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0)) {
    const match = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(entry);
    const port = Number(match?.[2]);
    if (!match?.[1] || !Number.isInteger(port) || port < 1 || port > 65535) return { ok: false, bad: entry };
    addresses.push({ host: match[1].replace(/^\[|\]$/g, ''), port });
  }
  return addresses.length > 0 ? { ok: true, addresses } : { ok: false, bad: text };
}

/**
 * The Redis that env names: the cluster when `REDIS_CLUSTER_NODES` is set, the Sentinel group when
 * `REDIS_SENTINELS` is (env.ts refuses both at once), else `REDIS_URL`.
 */
export function redisTargetFromEnv(env: RedisEnv): RedisTarget {
  const files = tlsFiles(env);
  const tls = env.REDIS_TLS ? { tls: files } : {};
  if (env.REDIS_CLUSTER_NODES)
    return {
      nodes: env.REDIS_CLUSTER_NODES,
      ...(env.REDIS_PASSWORD ? { password: env.REDIS_PASSWORD } : {}),
      ...tls,
    };
  if (!env.REDIS_SENTINELS || !env.REDIS_SENTINEL_NAME)
    return Object.keys(files).length ? { url: env.REDIS_URL, tls: files } : env.REDIS_URL;
  return {
    sentinels: env.REDIS_SENTINELS,
    name: env.REDIS_SENTINEL_NAME,
    ...(env.REDIS_PASSWORD ? { password: env.REDIS_PASSWORD } : {}),
    ...(env.REDIS_SENTINEL_PASSWORD ? { sentinelPassword: env.REDIS_SENTINEL_PASSWORD } : {}),
    ...tls,
    ...((env.REDIS_SENTINEL_TLS ?? env.REDIS_TLS) ? { sentinelTls: files } : {}),
  };
}

/** The env that says where Redis is and how to reach it (config/env.ts parses it). */
export interface RedisEnv {
  REDIS_URL: string;
  REDIS_SENTINELS?: RedisAddress[] | undefined;
  REDIS_SENTINEL_NAME?: string | undefined;
  REDIS_CLUSTER_NODES?: RedisAddress[] | undefined;
  REDIS_PASSWORD?: Secret | undefined;
  REDIS_SENTINEL_PASSWORD?: Secret | undefined;
  REDIS_TLS?: boolean | undefined;
  REDIS_SENTINEL_TLS?: boolean | undefined;
  REDIS_TLS_CA_FILE?: string | undefined;
  REDIS_TLS_CERT_FILE?: string | undefined;
  REDIS_TLS_KEY_FILE?: string | undefined;
}

function tlsFiles(env: RedisEnv): RedisTls {
  return {
    ...(env.REDIS_TLS_CA_FILE ? { caFile: env.REDIS_TLS_CA_FILE } : {}),
    ...(env.REDIS_TLS_CERT_FILE ? { certFile: env.REDIS_TLS_CERT_FILE } : {}),
    ...(env.REDIS_TLS_KEY_FILE ? { keyFile: env.REDIS_TLS_KEY_FILE } : {}),
  };
}

/** Where a deployment's keys are: the Redis that env names, and the key prefix there (keyPrefixFor). */
export function redisPlaceFromEnv(env: RedisEnv, prefix: string): { target: RedisTarget; prefix: string } {
  const target = redisTargetFromEnv(env);
  return { target, prefix: keyPrefixFor(target, prefix) };
}

/** What a message may say about the target: a URL without its credentials, or the sentinels and name. */
export function describeRedisTarget(target: RedisTarget): string {
  const list = (addresses: RedisAddress[]) => addresses.map((a) => `${a.host}:${a.port}`).join(',');
  const tls = (on: unknown) => (on ? ', TLS' : '');
  if (isClusterTarget(target)) return `Redis Cluster (nodes ${list(target.nodes)}${tls(target.tls)})`;
  if (!isUrlTarget(target))
    return `Sentinel master ${target.name} (sentinels ${list(target.sentinels)}${tls(target.tls)})`;
  try {
    const u = new URL(typeof target === 'string' ? target : target.url);
    // Say that credentials were given (a wrong one is a common cause) without printing them.
    return `${u.protocol}//${u.username || u.password ? '[redacted]@' : ''}${u.host}`;
  } catch {
    return 'the configured Redis';
  }
}
