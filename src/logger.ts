import { pino } from 'pino';

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

/** JSON lines on stderr, so stdout stays free for the CLI and the shell adapter. */
export function createLogger(level: LogLevel): Logger {
  return pino({ level, base: { app: 'etcd-doctor' } }, pino.destination(2));
}
