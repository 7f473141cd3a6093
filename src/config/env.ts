import { z } from 'zod';
import { Secret } from '../secret.js';

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

/** Every environment variable etcd-doctor reads. `.env.example` documents each one. */
export const envSchema = z.object({
  ETCD_DOCTOR_CONFIG: z.string().min(1).optional(),
  REDIS_URL: z.url({ protocol: /^rediss?$/, error: 'not a redis:// URL' }).default('redis://127.0.0.1:6379'),
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
  LOG_LEVEL: z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']).default('info'),
});

export type Env = z.infer<typeof envSchema>;
