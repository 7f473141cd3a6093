import { z } from 'zod';
import { Secret } from '../secret.js';
import { parseAddressList, type RedisAddress } from './redis-target.js';

const secret = z
  .string()
  .min(1)
  .transform((value) => new Secret(value));

/** A bearer token a remote caller must guess: 32 characters at least (128 bits as hex). */
const BEARER_TOKEN_MIN_CHARS = 32;
const bearerToken = z
  .string()
  .min(BEARER_TOKEN_MIN_CHARS, {
    error: `must be at least ${BEARER_TOKEN_MIN_CHARS} characters (openssl rand -hex 32)`,
  })
  .transform((value) => new Secret(value));

/** `host:port,host:port,…` (REDIS_SENTINELS, REDIS_CLUSTER_NODES). */
const addressList = z.string().transform((text, ctx): RedisAddress[] => {
  const parsed = parseAddressList(text);
  if (parsed.ok) return parsed.addresses;
  ctx.addIssue({ code: 'custom', message: `"${parsed.bad}" is not host:port (write host:port,host:port,…)` });
  return z.NEVER;
});

/** Every environment variable etcd-doctor reads. `.env.example` documents each one. */
export const envSchema = z
  .object({
    ETCD_DOCTOR_CONFIG: z.string().min(1).optional(),
    REDIS_URL: z
      .url({ protocol: /^rediss?$/, error: 'not a redis:// URL' })
      .default('redis://127.0.0.1:6379'),
    /** `host:port,host:port,…`: Redis through Sentinel; with REDIS_SENTINEL_NAME, takes precedence over REDIS_URL. */
    REDIS_SENTINELS: addressList.optional(),
    REDIS_SENTINEL_NAME: z.string().min(1).optional(),
    /** `host:port,…`: seed nodes of a Redis Cluster; takes precedence over REDIS_URL. */
    REDIS_CLUSTER_NODES: addressList.optional(),
    /** The password of the Redis primary and replicas (with REDIS_SENTINELS) or of the cluster nodes. */
    REDIS_PASSWORD: secret.optional(),
    /** The password of the sentinels themselves, where they require one. */
    REDIS_SENTINEL_PASSWORD: secret.optional(),
    /** TLS to the Redis servers named by REDIS_SENTINELS or REDIS_CLUSTER_NODES (a URL says it with rediss://). */
    REDIS_TLS: z.stringbool({ error: 'write true or false' }).optional(),
    /** TLS to the sentinels themselves; default REDIS_TLS. */
    REDIS_SENTINEL_TLS: z.stringbool({ error: 'write true or false' }).optional(),
    /** PEM files for TLS to Redis: the CA of the servers' certificates, and a client certificate and key. */
    REDIS_TLS_CA_FILE: z.string().min(1).optional(),
    REDIS_TLS_CERT_FILE: z.string().min(1).optional(),
    REDIS_TLS_KEY_FILE: z.string().min(1).optional(),
    SLACK_BOT_TOKEN: secret.optional(),
    SLACK_SIGNING_SECRET: secret.optional(),
    SLACK_APP_TOKEN: secret.optional(),
    SLACK_API_URL: z.url({ error: 'not a URL' }).optional(),
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    /** Address the HTTP server binds: every interface in a container; 127.0.0.1 on a laptop or in tests. */
    LISTEN_HOST: z.string().min(1).default('0.0.0.0'),
    ALERTMANAGER_TOKEN: bearerToken.optional(),
    /** The bearer token that /mcp requires; unset, the serve and bot roles do not serve /mcp. */
    MCP_TOKEN: bearerToken.optional(),
    /**
     * Signs remediation plans and jobs (src/state/record-signer.ts); the same in the bot and every
     * worker, kept in a Secret, never written to Redis. Required by the bot and worker roles.
     */
    REMEDIATION_SIGNING_KEY: bearerToken.optional(),
    LOG_LEVEL: z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']).default('info'),
  })
  .refine((env) => !env.REDIS_SENTINELS || env.REDIS_SENTINEL_NAME, {
    path: ['REDIS_SENTINEL_NAME'],
    message: 'REDIS_SENTINELS needs REDIS_SENTINEL_NAME (the master name the sentinels monitor)',
  })
  .refine((env) => !env.REDIS_SENTINELS || !env.REDIS_CLUSTER_NODES, {
    path: ['REDIS_CLUSTER_NODES'],
    message: 'set REDIS_CLUSTER_NODES or REDIS_SENTINELS, not both (a Redis Cluster is not behind Sentinel)',
  })
  .refine((env) => !env.REDIS_TLS_CERT_FILE === !env.REDIS_TLS_KEY_FILE, {
    path: ['REDIS_TLS_KEY_FILE'],
    message: 'set REDIS_TLS_CERT_FILE and REDIS_TLS_KEY_FILE together (the client certificate and its key)',
  })
  .refine(
    (env) => env.REDIS_SENTINELS || env.REDIS_CLUSTER_NODES || !(env.REDIS_TLS || env.REDIS_SENTINEL_TLS),
    {
      path: ['REDIS_TLS'],
      message:
        'REDIS_TLS is for REDIS_SENTINELS and REDIS_CLUSTER_NODES; with REDIS_URL, write rediss:// instead',
    },
  )
  .refine(
    (env) =>
      !usesTlsFiles(env) || env.REDIS_TLS || env.REDIS_SENTINEL_TLS || env.REDIS_URL.startsWith('rediss:'),
    {
      path: ['REDIS_TLS_CA_FILE'],
      message:
        'the TLS files are used only over TLS: set REDIS_TLS=true (Sentinel, Cluster) or write REDIS_URL as rediss://',
    },
  );

function usesTlsFiles(env: {
  REDIS_TLS_CA_FILE?: string | undefined;
  REDIS_TLS_CERT_FILE?: string | undefined;
}): boolean {
  return Boolean(env.REDIS_TLS_CA_FILE || env.REDIS_TLS_CERT_FILE);
}

export type Env = z.infer<typeof envSchema>;
