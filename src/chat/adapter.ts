import { EtcdDoctorError } from '../errors.js';
import type { ChatView } from '../report/chat-view.js';
import { formatBytes } from '../format.js';

/**
 * The chat adapter contract (bolt's Receiver, hubot's Adapter): every platform implements these few
 * calls, and one contract suite (test/support/chat-adapter-contract.ts) runs against each of them.
 */

/** A posted message. `ts` is the platform's id for it; `link` opens it, when the platform has links. */
export interface MessageRef {
  channel: string;
  ts: string;
  link?: string;
}

/** Where a message goes: a channel, or the thread under a root message in it. */
export interface Destination {
  channel: string;
  thread?: MessageRef;
}

export interface ChatFile {
  filename: string;
  /** Says what the file is: Slack shows it above the file. */
  title: string;
  /** Text (a report too long for one message) or bytes (a PNG chart). */
  content: string | Buffer;
  /** What an image shows, for screen readers (Slack `alt_txt`, at most 1000 characters). */
  altText?: string;
}

/** `/etcd <text>` as a user typed it. */
export interface IncomingCommand {
  /** Everything after the command word, e.g. `diagnose prod`. */
  text: string;
  channel: string;
  /** The channel's name without `#`, when the platform sends it. */
  channelName?: string;
  user: string;
  /** Answers only the user who typed the command. The first answer is the acknowledgement. */
  respond(view: ChatView): Promise<void>;
}

/** A button press. `value` is whatever the button carried: validate it before trusting it. */
export interface IncomingAction {
  actionId: string;
  value: string;
  channel: string;
  channelName?: string;
  user: string;
  /** The message the button sits on. */
  message?: MessageRef;
  respond(view: ChatView): Promise<void>;
}

/** A file a user shared with the bot: in Slack by id (the worker downloads it), in the shell by path. */
export type SharedFile =
  | { kind: 'slack'; id: string; name: string /** Bytes, when the event says. */; size?: number }
  | { kind: 'local'; path: string; name: string };

/**
 * Files handed to the bot for offline analysis: dropped into a DM, or into a channel thread with a
 * mention (Slack), or `analyze <path...>` (shell). `files` may be empty: the user is told what to do.
 */
export interface IncomingFiles {
  channel: string;
  user: string;
  /** The message the files came with; a retried delivery of it carries the same id. */
  messageId: string;
  /** Where the answer goes: the thread the message is in, or the one it starts. */
  thread?: MessageRef;
  files: SharedFile[];
  /** A reply in that thread. */
  respond(view: ChatView): Promise<void>;
}

export interface ChatHandlers {
  /** Must not throw: adapters log a rejection and answer with a generic apology. */
  onCommand(command: IncomingCommand): Promise<void>;
  onAction(action: IncomingAction): Promise<void>;
  /** Files to analyse offline; adapters that receive files only listen for them when it is set. */
  onFiles?(files: IncomingFiles): Promise<void>;
}

/** Downloads a shared file into `dir` (private to this process), refusing one over `maxBytes`. */
export interface FetchFileOptions {
  dir: string;
  maxBytes: number;
  signal?: AbortSignal;
}

export interface FetchedFile {
  path: string;
  name: string;
  bytes: number;
}

export interface ChatAdapter {
  readonly kind: 'slack' | 'shell' | 'memory';
  /** Starts receiving commands and button presses. Posting works without start() (the worker role). */
  start(handlers: ChatHandlers): Promise<void>;
  stop(): Promise<void>;
  post(to: Destination, view: ChatView): Promise<MessageRef>;
  /** Replaces a message in place. */
  update(ref: MessageRef, view: ChatView): Promise<void>;
  /** A message only `user` sees. */
  ephemeral(to: Destination, user: string, view: ChatView): Promise<void>;
  /** Shares a file, in the thread when `to.thread` is set; rejects when it could not. */
  upload?(to: Destination, file: ChatFile): Promise<void>;
  /** The user ids in a user group (Slack `usergroups.users.list`), for remediation responders. */
  groupMembers?(groupId: string): Promise<string[]>;
  /** A file shared with the bot (Slack `files.info` and its authenticated download). */
  fetchFile?(fileId: string, opts: FetchFileOptions): Promise<FetchedFile>;
}

/**
 * A message could not be delivered. `transient` says whether trying again later may work
 * (network, 5xx, rate limits) or not (unknown channel, invalid blocks): the queue retries by it.
 */
export class ChatDeliveryError extends Error {
  readonly transient: boolean;

  constructor(message: string, options: { transient: boolean; cause?: unknown }) {
    super(message, { cause: options.cause });
    this.name = 'ChatDeliveryError';
    this.transient = options.transient;
  }
}

/** Replies sent when a handler fails unexpectedly: the user gets words, never silence. */
export const APOLOGY_TEXT =
  'Sorry, something went wrong while handling that. The error was logged; please try again.';

/** The refusal for a shared file over the size limit (`bytes` when known), said the same by every adapter. */
export function fileTooLarge(name: string, bytes: number | undefined, maxBytes: number): EtcdDoctorError {
  const size = bytes === undefined ? 'larger than' : `${formatBytes(bytes)}, over`;
  return new EtcdDoctorError(
    'command_invalid',
    `${name} is ${size} the ${formatBytes(maxBytes)} etcd-doctor takes from chat. Share the etcd container's log alone (or one log per member), or run \`etcd-doctor analyze <path>\` where the file is.`,
  );
}
