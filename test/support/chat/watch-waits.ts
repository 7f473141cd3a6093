import type { FakeSlack } from '../slack/fake-slack.js';
import { messageText } from '../slack/slack-driver.js';

/** What the watch's state store says of a cluster's last check (src/state/watch-state.ts). */
export interface LastCheckSource {
  lastCheck(cluster: string): Promise<{ t: number } | undefined>;
}

/** A failure's context: what the channel and the worker held (empty by default). */
export type Context = () => string | Promise<string>;

const POLL_MS = 100;

/**
 * Resolves once `n` more watch checks of `cluster` have finished (its last check's time moved on
 * `n` times). Bounded: by default n + 2 intervals plus 20 s for a loaded host; past that it
 * throws, with `context()` appended.
 */
export async function watchChecks(
  state: LastCheckSource,
  cluster: string,
  n: number,
  opts: { intervalS: number; timeoutMs?: number | undefined; context?: Context },
): Promise<void> {
  const timeoutMs = opts.timeoutMs ?? (n + 2) * opts.intervalS * 1000 + 20_000;
  const deadline = Date.now() + timeoutMs;
  let last = (await state.lastCheck(cluster))?.t;
  for (let seen = 0; seen < n; ) {
    if (Date.now() > deadline) {
      throw new Error(`not within ${timeoutMs} ms: ${n} watch checks of ${cluster}${await opts.context?.()}`);
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
    const t = (await state.lastCheck(cluster))?.t;
    if (t !== undefined && t !== last) {
      seen += 1;
      last = t;
    }
  }
}

/** `fake.waitFor`, and on a timeout what was awaited plus `context()`. */
export async function waitForSlack(
  fake: FakeSlack,
  pred: () => boolean,
  timeoutMs: number,
  what: string,
  context: Context = () => '',
): Promise<void> {
  try {
    await fake.waitFor(pred, timeoutMs);
  } catch {
    throw new Error(`not within ${timeoutMs} ms: ${what}${await context()}`);
  }
}

/** Every message in `channel`, replies indented, each cut at `width` characters. */
export function channelDump(fake: FakeSlack, channel: string, width = 300): string {
  const all = fake
    .messages(channel)
    .map((m) => `${m.thread_ts ? '  ' : ''}${messageText(m).slice(0, width)}`);
  return `\nchannel:\n${all.join('\n')}`;
}
