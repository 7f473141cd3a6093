import { createLogger, type Logger, type LogLevel } from '../../../src/logger.js';

/** A log line as pino wrote it: `msg` plus the fields. */
export type LogLine = Record<string, unknown> & { msg?: string };

/** The real pino logger writing JSON lines to memory, for tests that wait on what was logged. */
export interface LogCapture {
  logger: Logger;
  lines(): LogLine[];
  /** Resolves with the first line whose `msg` is `msg` (and whose fields match `fields`), once it is logged. */
  waitFor(msg: string, opts?: { fields?: Record<string, unknown>; timeoutMs?: number }): Promise<LogLine>;
}

const POLL_MS = 20;
/** Keeps at most this many lines: a long test must not grow its own memory. */
const MAX_LINES = 5000;

export function captureLogs(level: LogLevel = 'debug'): LogCapture {
  const lines: LogLine[] = [];
  const logger = createLogger(level, {
    write: (line: string) => {
      if (lines.length < MAX_LINES) lines.push(JSON.parse(line) as LogLine);
    },
  });
  const find = (msg: string, fields: Record<string, unknown>) =>
    lines.find((l) => l.msg === msg && Object.entries(fields).every(([k, v]) => l[k] === v));
  return {
    logger,
    lines: () => [...lines],
    async waitFor(msg, { fields = {}, timeoutMs = 10_000 } = {}) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const line = find(msg, fields);
        if (line) return line;
        if (Date.now() > deadline) break;
        await new Promise((r) => setTimeout(r, POLL_MS));
      }
      const seen = lines.map((l) => l.msg).join(' | ');
      throw new Error(
        `no "${msg}" log line ${JSON.stringify(fields)} within ${timeoutMs} ms; logged: ${seen}`,
      );
    },
  };
}
