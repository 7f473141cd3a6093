import { LogLevel, type Logger as SlackLogger } from '@slack/bolt';
import type { Logger } from '../../logger.js';

function words(parts: unknown[]): string {
  return parts
    .map((p) => (p instanceof Error ? p.message : typeof p === 'string' ? p : JSON.stringify(p)))
    .join(' ');
}

/** Bolt, the WebClient and the Socket Mode client log through ours; our logger applies the level. */
export function toSlackLogger(logger: Logger): SlackLogger {
  const fields = { component: 'slack' };
  return {
    debug: (...m) => logger.debug(fields, words(m)),
    info: (...m) => logger.info(fields, words(m)),
    warn: (...m) => logger.warn(fields, words(m)),
    error: (...m) => logger.error(fields, words(m)),
    setLevel: () => undefined,
    // Everything reaches our logger, which filters by LOG_LEVEL.
    getLevel: () => LogLevel.DEBUG,
    setName: () => undefined,
  };
}
