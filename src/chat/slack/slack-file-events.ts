import type { App } from '@slack/bolt';
import { z } from 'zod';
import type { Logger } from '../../logger.js';
import { type ChatView, textView } from '../../report/chat-view.js';
import { APOLOGY_TEXT, type Destination, type IncomingFiles, type SharedFile } from '../adapter.js';

/**
 * Files shared with the bot, from the Events API (docs.slack.dev/reference/events):
 * - `message.im` (scope `im:history`): a message in the bot's DM, with subtype `file_share` when it
 *   carries files; `channel_type` is `im`;
 * - `app_mention` (scope `app_mentions:read`): a message in a channel that mentions the bot, with
 *   `files` when files were attached to it (Slack does not send app_mention for DMs).
 * The events carry file ids (and usually name and size); the worker asks files.info for the rest.
 */

const fileSchema = z.object({
  id: z.string().regex(/^F[A-Z0-9]{2,40}$/),
  name: z.string().optional(),
  title: z.string().optional(),
  size: z.number().int().nonnegative().optional(),
  mode: z.string().optional(),
});

const eventSchema = z.object({
  channel: z.string().min(1),
  user: z.string().min(1),
  ts: z.string().min(1),
  thread_ts: z.string().optional(),
  files: z.array(z.unknown()).optional(),
});

/** Message subtypes that are a person writing (with or without files); edits, joins, bots are not. */
const PERSON_SUBTYPES = new Set([undefined, 'file_share', 'thread_broadcast']);

export interface FileEventOptions {
  logger: Logger;
  /** Posts in a channel or thread (chat.postMessage). */
  post(to: Destination, view: ChatView): Promise<unknown>;
}

function sharedFiles(raw: unknown[] | undefined): SharedFile[] {
  const files: SharedFile[] = [];
  for (const entry of raw ?? []) {
    const file = fileSchema.safeParse(entry);
    // A tombstone is a deleted file; it cannot be read.
    if (!file.success || file.data.mode === 'tombstone') continue;
    const { id, name, title, size } = file.data;
    files.push({ kind: 'slack', id, name: name ?? title ?? id, ...(size === undefined ? {} : { size }) });
  }
  return files;
}

function incoming(event: z.infer<typeof eventSchema>, opts: FileEventOptions): IncomingFiles {
  const thread = { channel: event.channel, ts: event.thread_ts ?? event.ts };
  return {
    channel: event.channel,
    user: event.user,
    messageId: event.ts,
    thread,
    files: sharedFiles(event.files),
    respond: async (view) => {
      await opts.post({ channel: event.channel, thread }, view);
    },
  };
}

/** Registers the two listeners on Bolt's app; each event is acked by Bolt before it runs. */
export function listenForFiles(
  app: App,
  onFiles: (files: IncomingFiles) => Promise<void>,
  opts: FileEventOptions,
): void {
  const handle = async (raw: unknown, source: string): Promise<void> => {
    const event = eventSchema.safeParse(raw);
    if (!event.success) return;
    const files = incoming(event.data, opts);
    try {
      await onFiles(files);
    } catch (err) {
      opts.logger.error({ err: String(err), source }, 'slack: file handler failed');
      await files.respond(textView(APOLOGY_TEXT, 'error')).catch(() => undefined);
    }
  };
  app.event('message', async ({ event }) => {
    const message = event as { channel_type?: string; subtype?: string; bot_id?: string; thread_ts?: string };
    // Only people in the bot's DMs; the bot's own uploads there (a long report) come back as file_share.
    if (message.channel_type !== 'im' || message.bot_id || !PERSON_SUBTYPES.has(message.subtype)) return;
    // A reply without files in an answer's thread ("thanks") is conversation, not a request.
    if (message.subtype !== 'file_share' && message.thread_ts) return;
    await handle(event, 'message.im');
  });
  app.event('app_mention', async ({ event }) => {
    if ((event as { bot_id?: string }).bot_id) return;
    await handle(event, 'app_mention');
  });
}
