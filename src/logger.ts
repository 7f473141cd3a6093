import { pino } from 'pino';
import { redactUrlCredentials } from './secret.js';

/** The few log calls etcd-doctor makes; a pino logger satisfies it, and tests pass `silentLogger`. */
export interface Logger {
  debug(fields: object, message: string): void;
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal' | 'silent';

const noop = (): void => undefined;
export const silentLogger: Logger = { debug: noop, info: noop, warn: noop, error: noop };

/** Where log lines go: stderr by default, a memory stream in tests. */
export interface LogDestination {
  write(line: string): unknown;
}

export const REDACTED = '[redacted]';

/** Field names that hold secrets wherever they appear (one level deep, as pino's redact matches them). */
const SECRET_FIELDS = [
  'token',
  'botToken',
  'appToken',
  'signingSecret',
  'password',
  'authorization',
  'key',
  'cert',
  'ca',
  'SLACK_BOT_TOKEN',
  'SLACK_APP_TOKEN',
  'SLACK_SIGNING_SECRET',
  'ALERTMANAGER_TOKEN',
  'MCP_TOKEN',
];
const REDACT_PATHS = [...SECRET_FIELDS, ...SECRET_FIELDS.map((f) => `*.${f}`), 'headers.authorization'];

/**
 * Secrets by shape, wherever they hide (an error message, a URL, a nested object): Slack bot, user,
 * app-level and refresh tokens, and PEM blocks (certificates, keys). In a JSON line a PEM's newlines
 * are `\n` escapes, which the lazy match crosses all the same.
 */
const SECRET_PATTERNS = [
  /xox[abpr]-[A-Za-z0-9-]+/g,
  /xapp-[A-Za-z0-9-]+/g,
  /-----BEGIN [A-Z0-9 ]+-----[\s\S]*?-----END [A-Z0-9 ]+-----/g,
];

/** Replaces every token- or PEM-shaped part of `text` with `[redacted]`. */
export function redactSecrets(text: string): string {
  let out = redactUrlCredentials(text);
  for (const pattern of SECRET_PATTERNS) out = out.replace(pattern, REDACTED);
  return out;
}

/**
 * JSON lines on stderr, so stdout stays free for the CLI and the shell adapter. Known secret fields
 * are censored by pino's `redact`; every finished line is scrubbed of token and PEM shapes too, so
 * a secret inside an error message or a config dump cannot slip through.
 */
export function createLogger(level: LogLevel, destination?: LogDestination): Logger {
  const out: LogDestination = destination ?? pino.destination(2);
  return pino(
    { level, base: { app: 'etcd-doctor' }, redact: { paths: REDACT_PATHS, censor: REDACTED } },
    { write: (line: string) => out.write(redactSecrets(line)) },
  );
}

/** A logger that adds `fields` (a job's id and cluster) to every line it logs. */
export function withFields(logger: Logger, fields: object): Logger {
  return {
    debug: (f, m) => logger.debug({ ...fields, ...f }, m),
    info: (f, m) => logger.info({ ...fields, ...f }, m),
    warn: (f, m) => logger.warn({ ...fields, ...f }, m),
    error: (f, m) => logger.error({ ...fields, ...f }, m),
  };
}
