import {
  createSlackAdapter,
  type SlackAdapter,
  type SlackAdapterOptions,
} from '../../../src/chat/slack/slack-adapter.js';
import { silentLogger } from '../../../src/logger.js';
import { Secret } from '../../../src/secret.js';
import type { FakeMessage, FakeSlack } from './fake-slack.js';
import { SIGNING_SECRET } from './slack-driver.js';

/**
 * The bot's Slack adapter in HTTP mode, as the tests run it: Bolt's receiver on a free loopback
 * port, verifying SIGNING_SECRET, calling the fake Web API. `extra` adds routes and the like.
 */
export function httpSlackAdapter(fake: FakeSlack, extra: Partial<SlackAdapterOptions> = {}): SlackAdapter {
  return createSlackAdapter({
    botToken: new Secret('xoxb-1-test'),
    signingSecret: new Secret(SIGNING_SECRET),
    apiUrl: fake.url,
    listen: { port: 0, host: '127.0.0.1' },
    logger: silentLogger,
    ...extra,
  });
}

/** The signed-request URL of an adapter started with httpSlackAdapter. */
export function eventsUrl(chat: SlackAdapter): string {
  return `http://127.0.0.1:${chat.address()?.port}/slack/events`;
}

/**
 * One channel of the fake workspace as the user sees it: the top-level messages, and the replies
 * in a message's thread. `fake` is read on each call (tests start it in beforeAll).
 */
export function channelThreads(
  fake: () => FakeSlack,
  channel: string,
): { roots(): FakeMessage[]; replies(root: FakeMessage): FakeMessage[] } {
  return {
    roots: () =>
      fake()
        .messages(channel)
        .filter((m) => m.thread_ts === undefined),
    replies: (root) =>
      fake()
        .messages(channel)
        .filter((m) => m.thread_ts === root.ts),
  };
}
