import {
  APOLOGY_TEXT,
  type ChatAdapter,
  type ChatFile,
  type ChatHandlers,
  type Destination,
  type MessageRef,
} from '../adapter.js';
import { type ChatView, textView, type ViewButton } from '../../report/chat-view.js';
import { renderViewText } from '../../report/render-view-text.js';

/** A message as it stands now, after updates. */
export interface MemoryMessage {
  ref: MessageRef;
  /** `ts` of the root message when this is a thread reply. */
  threadTs: string | undefined;
  view: ChatView;
  text: string;
  updates: number;
}

export interface MemoryEphemeral {
  channel: string;
  user: string;
  view: ChatView;
  text: string;
}

export interface MemoryUpload extends ChatFile {
  channel: string;
  threadTs: string | undefined;
}

export interface Speaker {
  channel?: string;
  channelName?: string;
  user?: string;
}

/** An in-process chat for tests: drives the real core and records what users would see. */
export interface MemoryAdapter extends ChatAdapter {
  readonly messages: readonly MemoryMessage[];
  readonly ephemerals: readonly MemoryEphemeral[];
  readonly uploads: readonly MemoryUpload[];
  /** Types `/etcd <text>`; resolves with the private replies once the handler returns. */
  command(text: string, as?: Speaker): Promise<ChatView[]>;
  /** Presses a button of a posted message. */
  click(message: MessageRef, button: ViewButton, as?: Speaker): Promise<ChatView[]>;
  /** Polls every 20 ms until `pred` holds; rejects after `timeoutMs`. */
  waitFor(pred: (chat: MemoryAdapter) => boolean, timeoutMs?: number): Promise<void>;
}

const DEFAULT_CHANNEL = 'C0MEMORY';
const DEFAULT_USER = 'U0MEMORY';
const POLL_MS = 20;

export interface MemoryAdapterOptions {
  /** User groups by id, as `groupMembers` answers them. */
  userGroups?: Record<string, string[]>;
  /**
   * Called, and awaited, after each post or update: a test acts at an exact step of a run (kills a
   * member when the snapshot is saved) because the run waits for its progress message.
   */
  onChange?: (message: MemoryMessage) => void | Promise<void>;
}

export function createMemoryAdapter(opts: MemoryAdapterOptions = {}): MemoryAdapter {
  const messages: MemoryMessage[] = [];
  const ephemerals: MemoryEphemeral[] = [];
  const uploads: MemoryUpload[] = [];
  let handlers: ChatHandlers | undefined;
  let seq = 0;

  const running = (): ChatHandlers => {
    if (!handlers) throw new Error('memory adapter: not started (or stopped)');
    return handlers;
  };
  const find = (ref: MessageRef): MemoryMessage => {
    const found = messages.find((m) => m.ref.channel === ref.channel && m.ref.ts === ref.ts);
    if (!found) throw new Error(`memory adapter: no message ${ref.channel}/${ref.ts}`);
    return found;
  };

  const adapter: MemoryAdapter = {
    kind: 'memory',
    messages,
    ephemerals,
    uploads,
    async start(h) {
      handlers = h;
    },
    async stop() {
      handlers = undefined;
    },
    async post(to: Destination, view: ChatView) {
      seq += 1;
      const ts = `${seq}.000000`;
      const ref: MessageRef = { channel: to.channel, ts, link: `memory://${to.channel}/${ts}` };
      const message = { ref, threadTs: to.thread?.ts, view, text: renderViewText(view), updates: 0 };
      messages.push(message);
      await opts.onChange?.(message);
      return ref;
    },
    async update(ref, view) {
      const message = find(ref);
      Object.assign(message, { view, text: renderViewText(view), updates: message.updates + 1 });
      await opts.onChange?.(message);
    },
    async ephemeral(to, user, view) {
      ephemerals.push({ channel: to.channel, user, view, text: renderViewText(view) });
    },
    async upload(to, file) {
      uploads.push({ ...file, channel: to.channel, threadTs: to.thread?.ts });
    },
    async groupMembers(groupId) {
      return opts.userGroups?.[groupId] ?? [];
    },
    ...userActions(running, find),
    waitFor: (pred, timeoutMs = 10_000) => pollUntil(adapter, pred, timeoutMs),
  };
  return adapter;
}

/** The test's side of the chat: a user's command or button click, answered as every adapter answers it. */
function userActions(
  running: () => ChatHandlers,
  find: (ref: MessageRef) => MemoryMessage,
): Pick<MemoryAdapter, 'command' | 'click'> {
  return {
    command(text, as = {}) {
      const channel = as.channel ?? DEFAULT_CHANNEL;
      return repliesTo((respond) =>
        running().onCommand({
          text,
          channel,
          ...(as.channelName === undefined ? {} : { channelName: as.channelName }),
          user: as.user ?? DEFAULT_USER,
          respond,
        }),
      );
    },
    async click(message, button, as = {}) {
      find(message);
      return repliesTo((respond) =>
        running().onAction({
          actionId: button.action,
          value: button.value,
          channel: as.channel ?? message.channel,
          user: as.user ?? DEFAULT_USER,
          message,
          respond,
        }),
      );
    },
  };
}

/**
 * The replies a handler gives through `respond`. Like every adapter: a handler that throws still
 * gets the user an answer.
 */
async function repliesTo(
  handle: (respond: (view: ChatView) => Promise<void>) => Promise<void>,
): Promise<ChatView[]> {
  const replies: ChatView[] = [];
  const handling = handle(async (view) => {
    replies.push(view);
  });
  try {
    await handling;
  } catch {
    replies.push(textView(APOLOGY_TEXT, 'error'));
  }
  return replies;
}

/** Polls until `pred` holds; past `timeoutMs` it throws, listing the messages seen. */
async function pollUntil(
  adapter: MemoryAdapter,
  pred: (adapter: MemoryAdapter) => boolean,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!pred(adapter)) {
    if (Date.now() > deadline) {
      const seen = adapter.messages.map(
        (m) => `${m.ref.ts}${m.threadTs ? ` (in ${m.threadTs})` : ''}: ${m.text.split('\n')[0]}`,
      );
      throw new Error(
        `memory chat: condition not met within ${timeoutMs} ms; messages: ${seen.join(' | ') || 'none'}`,
      );
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}
