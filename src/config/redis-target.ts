import type { Secret } from '../secret.js';

/** One Sentinel's address, as `REDIS_SENTINELS` lists it (`host:port,host:port,…`). */
export interface SentinelAddress {
  host: string;
  port: number;
}

/** A primary that Sentinel watches: connections ask the sentinels where it is, and again after a failover. */
export interface SentinelTarget {
  sentinels: SentinelAddress[];
  /** The master group name that the sentinels monitor (`sentinel monitor <name> …`). */
  name: string;
  password?: Secret;
  sentinelPassword?: Secret;
}

/**
 * Where Redis is: a `redis://` URL (`REDIS_URL`), or a Sentinel group (`REDIS_SENTINELS` with
 * `REDIS_SENTINEL_NAME`, which take precedence). Parsed once from env and passed wherever the
 * `redisUrl` fields go; every connection is made from it in src/clients/redis.ts.
 */
export type RedisTarget = string | SentinelTarget;

/** `host:port,host:port` -> addresses, or the first entry that is not `host:port`. */
export function parseSentinelList(
  text: string,
): { ok: true; sentinels: SentinelAddress[] } | { ok: false; bad: string } {
  const sentinels: SentinelAddress[] = [];
  for (const entry of text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0)) {
    const match = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(entry);
    const port = Number(match?.[2]);
    if (!match?.[1] || !Number.isInteger(port) || port < 1 || port > 65535) return { ok: false, bad: entry };
    sentinels.push({ host: match[1].replace(/^\[|\]$/g, ''), port });
  }
  return sentinels.length > 0 ? { ok: true, sentinels } : { ok: false, bad: text };
}

/** The Redis that env names: the Sentinel group when `REDIS_SENTINELS` is set, else `REDIS_URL`. */
export function redisTargetFromEnv(env: {
  REDIS_URL: string;
  REDIS_SENTINELS?: SentinelAddress[] | undefined;
  REDIS_SENTINEL_NAME?: string | undefined;
  REDIS_PASSWORD?: Secret | undefined;
  REDIS_SENTINEL_PASSWORD?: Secret | undefined;
}): RedisTarget {
  if (!env.REDIS_SENTINELS || !env.REDIS_SENTINEL_NAME) return env.REDIS_URL;
  return {
    sentinels: env.REDIS_SENTINELS,
    name: env.REDIS_SENTINEL_NAME,
    ...(env.REDIS_PASSWORD ? { password: env.REDIS_PASSWORD } : {}),
    ...(env.REDIS_SENTINEL_PASSWORD ? { sentinelPassword: env.REDIS_SENTINEL_PASSWORD } : {}),
  };
}

/** What a message may say about the target: a URL without its credentials, or the sentinels and name. */
export function describeRedisTarget(target: RedisTarget): string {
  if (typeof target !== 'string') {
    const list = target.sentinels.map((s) => `${s.host}:${s.port}`).join(',');
    return `Sentinel master ${target.name} (sentinels ${list})`;
  }
  try {
    const u = new URL(target);
    // Say that credentials were given (a wrong one is a common cause) without printing them.
    return `${u.protocol}//${u.username || u.password ? '[redacted]@' : ''}${u.host}`;
  } catch {
    return 'the configured Redis';
  }
}
