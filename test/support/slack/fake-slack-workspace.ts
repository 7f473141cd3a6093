import {
  isRecord,
  problemsResponse,
  truncateText,
  MESSAGE_TEXT_MAX,
  validateBlocks,
  validateModalView,
} from './fake-slack-blocks.js';
import { FakeSharedFiles } from './fake-slack-files.js';
import type { ParsedRequest } from './fake-slack-request.js';

/** A message as it stands after posts, updates and deletes. */
export interface FakeMessage {
  ts: string;
  /** Channel ID (names such as `#ops` are mapped to a stable fake ID). */
  channel: string;
  text: string;
  blocks: unknown[] | undefined;
  thread_ts: string | undefined;
  /** How many chat.update calls changed this message. */
  updates: number;
  ephemeral: false;
}

export interface FakeEphemeral {
  channel: string;
  user: string;
  text: string;
  blocks?: unknown;
  thread_ts?: string;
}

export interface FakeFile {
  id: string;
  channel?: string;
  thread_ts?: string;
  filename: string;
  /** The uploaded bytes as UTF-8 text (for text files). */
  content: string;
  /** The uploaded bytes as they arrived (a PNG chart). */
  bytes: Buffer;
  /** `length` as declared to files.getUploadURLExternal. */
  length: number;
  title?: string;
  /** files.getUploadURLExternal's "Description of image for screen-reader". */
  alt_txt?: string;
  /**
   * The argument name the alt text came in: Slack documents `alt_txt`; @slack/web-api 7 and 8 send
   * `alt_text` from filesUploadV2 (file-upload.js getFileUploadJob). Recorded so tests can see it.
   */
  altTextParam?: 'alt_txt' | 'alt_text';
  initial_comment?: string;
}

export interface FakeView {
  id: string;
  trigger_id: string;
  view: Record<string, unknown>;
}

export interface WorkspaceConfig {
  botUserId: string;
  botId: string;
  teamId: string;
  appId: string;
  userGroups: Map<string, string[]>;
  /** "Triggers expire in three seconds ... may only be used once" (contract §3.4). */
  triggerTtlMs: number;
  /** The clock triggers age by (a test moves it instead of waiting out the TTL). */
  now(): number;
  /** http://127.0.0.1:PORT of the fake, for upload URLs. */
  origin(): string;
}

export type ApiResult = Record<string, unknown>;

interface PendingUpload {
  filename: string;
  length: number;
  alt: { text: string; param: 'alt_txt' | 'alt_text' } | undefined;
  bytes: Buffer | undefined;
}

/** files.getUploadURLExternal: `alt_txt_too_large`, "longer than the limit of 1000 character". */
const ALT_TXT_MAX = 1000;

const CHANNEL_ID = /^[CGD][A-Z0-9]{2,}$/;
const USER_ID = /^[UW][A-Z0-9]{2,}$/;

const fail = (error: string, extra: ApiResult = {}): ApiResult => ({ ok: false, error, ...extra });

/** A string argument; WebClient sends everything as strings, JSON bodies may carry numbers. */
function arg(params: Record<string, unknown>, key: string): string | undefined {
  const value = params[key];
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function altTextOf(req: ParsedRequest): PendingUpload['alt'] {
  const documented = arg(req.params, 'alt_txt');
  if (documented !== undefined) return { text: documented, param: 'alt_txt' };
  const sdk = arg(req.params, 'alt_text');
  return sdk === undefined ? undefined : { text: sdk, param: 'alt_text' };
}

type BlocksResult = { ok: true; blocks: unknown[] | undefined } | { ok: false; response: ApiResult };

function messageBlocks(req: ParsedRequest): BlocksResult {
  if (req.badJson.has('blocks')) return { ok: false, response: fail('invalid_blocks_format') };
  const raw = req.params.blocks;
  if (raw === undefined || raw === null) return { ok: true, blocks: undefined };
  const problems = validateBlocks(raw, 'message');
  if (problems === 'invalid_blocks_format') return { ok: false, response: fail(problems) };
  if (problems.length > 0) return { ok: false, response: problemsResponse('invalid_blocks', problems) };
  return { ok: true, blocks: Array.isArray(raw) ? raw : undefined };
}

/** State of the fake workspace plus one handler per Web API method (contract §4.5). */
export class FakeWorkspace {
  readonly messages: FakeMessage[] = [];
  readonly ephemerals: FakeEphemeral[] = [];
  readonly files: FakeFile[] = [];
  readonly views: FakeView[] = [];
  readonly #uploads = new Map<string, PendingUpload>();
  readonly #triggers = new Map<string, number | 'used'>();
  readonly #channels = new Map<string, string>();
  readonly #baseSeconds = Math.floor(Date.now() / 1000);
  #seq = 0;
  private readonly config: WorkspaceConfig;

  /** Files people shared (files.info and the authenticated download). */
  readonly shared: FakeSharedFiles;

  constructor(config: WorkspaceConfig) {
    this.config = config;
    this.shared = new FakeSharedFiles({
      teamId: config.teamId,
      origin: config.origin,
      mintId: (prefix) => this.mintId(prefix),
    });
  }

  reset(): void {
    for (const list of [this.messages, this.ephemerals, this.files, this.views]) list.length = 0;
    this.#uploads.clear();
    this.#triggers.clear();
    this.shared.reset();
  }

  /** Channel ID for an ID, `#name` or `name`; a user ID maps to the app's DM with that user (inference). */
  channelId(raw: string, mint = false): string | undefined {
    if (CHANNEL_ID.test(raw)) return raw;
    if (USER_ID.test(raw)) return `D${raw.slice(1)}`;
    const name = raw.replace(/^#/, '');
    const known = this.#channels.get(name);
    if (known !== undefined || !mint) return known;
    const id = `CFAKE${String(this.#channels.size + 1).padStart(4, '0')}`;
    this.#channels.set(name, id);
    return id;
  }

  /** Unique, increasing `ts` strings shaped like Slack's ("1503435956.000247", contract §4.5). */
  #mintTs(): string {
    this.#seq += 1;
    return `${this.#baseSeconds}.${String(this.#seq).padStart(6, '0')}`;
  }

  mintTriggerId(): string {
    this.#seq += 1;
    const id = `${this.#baseSeconds}${this.#seq}.${this.#seq}.${Math.random().toString(16).slice(2, 18)}`;
    this.#triggers.set(id, this.config.now());
    return id;
  }

  mintId(prefix: string): string {
    this.#seq += 1;
    return `${prefix}FAKE${String(this.#seq).padStart(6, '0')}`;
  }

  dispatch(method: string, req: ParsedRequest): ApiResult {
    const handler = this.#handlers[method];
    return handler === undefined ? fail('unknown_method', { req_method: method }) : handler(req);
  }

  readonly #handlers: Record<string, (req: ParsedRequest) => ApiResult> = {
    'auth.test': () => this.#authTest(),
    'chat.postMessage': (req) => this.#postMessage(req),
    'chat.update': (req) => this.#update(req),
    'chat.postEphemeral': (req) => this.#postEphemeral(req),
    'chat.delete': (req) => this.#delete(req),
    'views.open': (req) => this.#viewsOpen(req),
    'users.info': (req) => this.#usersInfo(req),
    'usergroups.users.list': (req) => this.#usergroupUsers(req),
    'files.getUploadURLExternal': (req) => this.#getUploadUrl(req),
    'files.completeUploadExternal': (req) => this.#completeUpload(req),
    'files.info': (req) => this.shared.info(req.params),
  };

  #authTest(): ApiResult {
    // Shape of sample webapi.auth.test.bot.response.json; Bolt reads user_id and bot_id (contract §4.6).
    const { teamId, botUserId, botId } = this.config;
    const base = {
      ok: true,
      url: 'https://fake-workspace.slack.com/',
      team: 'Fake Workspace',
      user: 'etcd-doctor',
    };
    return { ...base, team_id: teamId, user_id: botUserId, bot_id: botId };
  }

  #messageJson(m: FakeMessage): ApiResult {
    const { botUserId, botId, appId, teamId } = this.config;
    const out: ApiResult = { type: 'message', user: botUserId, bot_id: botId, app_id: appId, team: teamId };
    Object.assign(out, { text: m.text, ts: m.ts });
    if (m.blocks !== undefined) out.blocks = m.blocks;
    if (m.thread_ts !== undefined) out.thread_ts = m.thread_ts;
    return out;
  }

  #postMessage(req: ParsedRequest): ApiResult {
    const rawChannel = arg(req.params, 'channel');
    const channel = rawChannel === undefined ? undefined : this.channelId(rawChannel, true);
    if (channel === undefined) return fail('channel_not_found');
    const blocks = messageBlocks(req);
    if (!blocks.ok) return blocks.response;
    const rawText = arg(req.params, 'text');
    if (rawText === undefined && (blocks.blocks ?? []).length === 0 && req.params.attachments === undefined) {
      return fail('no_text');
    }
    const { text, warning } = truncateText(rawText ?? '');
    const thread_ts = arg(req.params, 'thread_ts');
    const message: FakeMessage = {
      ts: this.#mintTs(),
      channel,
      text,
      blocks: blocks.blocks,
      thread_ts,
      updates: 0,
      ephemeral: false,
    };
    this.messages.push(message);
    const result: ApiResult = { ok: true, channel, ts: message.ts, message: this.#messageJson(message) };
    if (warning !== undefined) result.response_metadata = warning;
    return result;
  }

  #find(req: ParsedRequest): FakeMessage | undefined {
    const rawChannel = arg(req.params, 'channel');
    const channel = rawChannel === undefined ? undefined : this.channelId(rawChannel);
    const ts = arg(req.params, 'ts');
    return this.messages.find((m) => m.channel === channel && m.ts === ts);
  }

  #update(req: ParsedRequest): ApiResult {
    const message = this.#find(req);
    if (message === undefined) return fail('message_not_found');
    const blocks = messageBlocks(req);
    if (!blocks.ok) return blocks.response;
    const text = arg(req.params, 'text');
    // The 40,000-char truncation is documented for posting methods only; chat.update lists msg_too_long (§4.5, §6).
    if (text !== undefined && text.length > MESSAGE_TEXT_MAX) return fail('msg_too_long');
    // chat.update keeps fields that are not sent; `blocks: []` removes blocks (docs.slack.dev chat.update).
    if (text !== undefined) message.text = text;
    if (blocks.blocks !== undefined) message.blocks = blocks.blocks.length === 0 ? undefined : blocks.blocks;
    message.updates += 1;
    const { channel, ts } = message;
    return { ok: true, channel, ts, text: message.text, message: this.#messageJson(message) };
  }

  #postEphemeral(req: ParsedRequest): ApiResult {
    const rawChannel = arg(req.params, 'channel');
    const channel = rawChannel === undefined ? undefined : this.channelId(rawChannel, true);
    if (channel === undefined) return fail('channel_not_found');
    const user = arg(req.params, 'user');
    if (user === undefined) return fail('user_not_in_channel');
    const blocks = messageBlocks(req);
    if (!blocks.ok) return blocks.response;
    const { text, warning } = truncateText(arg(req.params, 'text') ?? '');
    const entry: FakeEphemeral = { channel, user, text };
    if (blocks.blocks !== undefined) entry.blocks = blocks.blocks;
    const thread_ts = arg(req.params, 'thread_ts');
    if (thread_ts !== undefined) entry.thread_ts = thread_ts;
    this.ephemerals.push(entry);
    // Sample webapi.chat.postEphemeral.response.json.
    const result: ApiResult = { ok: true, message_ts: this.#mintTs() };
    if (warning !== undefined) result.response_metadata = warning;
    return result;
  }

  #delete(req: ParsedRequest): ApiResult {
    const message = this.#find(req);
    if (message === undefined) return fail('message_not_found');
    this.messages.splice(this.messages.indexOf(message), 1);
    return { ok: true, channel: message.channel, ts: message.ts };
  }

  #viewsOpen(req: ParsedRequest): ApiResult {
    const triggerId = arg(req.params, 'trigger_id');
    // OpenAPI example error for views.open (contract §3.4).
    if (triggerId === undefined)
      return fail('invalid_arguments', { response_metadata: { messages: ['invalid `trigger_id`'] } });
    const triggerError = this.#useTrigger(triggerId);
    if (triggerError !== undefined) return fail(triggerError);
    const view = req.params.view;
    if (req.badJson.has('view') || !isRecord(view)) return fail('invalid_arguments');
    const problems = validateModalView(view);
    if (problems === 'invalid_blocks_format') return fail('invalid_arguments');
    if (problems.length > 0) return problemsResponse('invalid_arguments', problems);
    const id = this.mintId('V');
    this.views.push({ id, trigger_id: triggerId, view });
    return { ok: true, view: this.#viewJson(id, view) };
  }

  /** Only triggers this fake minted are tracked; others (hand-made in tests) are accepted. */
  #useTrigger(triggerId: string): string | undefined {
    const issuedAt = this.#triggers.get(triggerId);
    if (issuedAt === undefined) return undefined;
    if (issuedAt === 'used') return 'exchanged_trigger_id';
    this.#triggers.set(triggerId, 'used');
    return this.config.now() - issuedAt > this.config.triggerTtlMs ? 'expired_trigger_id' : undefined;
  }

  #viewJson(id: string, view: Record<string, unknown>): ApiResult {
    // Field set of sample webapi.views.open.response.json.
    const { teamId, appId, botId } = this.config;
    const defaults = {
      private_metadata: '',
      callback_id: '',
      external_id: '',
      clear_on_close: false,
      notify_on_close: false,
    };
    const fixed = {
      id,
      team_id: teamId,
      app_id: appId,
      bot_id: botId,
      root_view_id: id,
      previous_view_id: null,
    };
    return { ...defaults, ...view, ...fixed, state: { values: {} }, hash: `${this.#baseSeconds}.${id}` };
  }

  #usersInfo(req: ParsedRequest): ApiResult {
    const id = arg(req.params, 'user');
    if (id === undefined || !USER_ID.test(id)) return fail('user_not_found');
    const name = id.toLowerCase();
    const profile = { real_name: `User ${id}`, display_name: name };
    const flags = { deleted: false, is_bot: id === this.config.botUserId, is_admin: false };
    return {
      ok: true,
      user: {
        id,
        team_id: this.config.teamId,
        name,
        real_name: profile.real_name,
        tz: 'Etc/UTC',
        ...flags,
        profile,
      },
    };
  }

  #usergroupUsers(req: ParsedRequest): ApiResult {
    const users = this.config.userGroups.get(arg(req.params, 'usergroup') ?? '');
    // Slack's error for an unknown group (java-slack-sdk usergroups test asserts "no_such_subteam").
    return users === undefined ? fail('no_such_subteam') : { ok: true, users: [...users] };
  }

  /**
   * docs.slack.dev files.getUploadURLExternal: `filename` and `length` (bytes) required, optional
   * `alt_txt` and `snippet_type`; `missing_argument` "typically only occurs when the length provided
   * is 0", `alt_txt_too_large` past 1000 characters.
   */
  #getUploadUrl(req: ParsedRequest): ApiResult {
    const filename = arg(req.params, 'filename');
    const length = Number(arg(req.params, 'length'));
    if (filename === undefined || !Number.isInteger(length) || length < 0) return fail('invalid_arguments');
    if (length === 0) return fail('missing_argument');
    const alt = altTextOf(req);
    if (alt && alt.text.length > ALT_TXT_MAX) return fail('alt_txt_too_large');
    const file_id = this.mintId('F');
    this.#uploads.set(file_id, { filename, length, alt, bytes: undefined });
    return { ok: true, upload_url: `${this.config.origin()}/upload/v1/${file_id}`, file_id };
  }

  /** The byte upload to upload_url (step 2 of filesUploadV2); false if the URL was never handed out. */
  receiveUpload(fileId: string, bytes: Buffer): boolean {
    const upload = this.#uploads.get(fileId);
    if (upload === undefined) return false;
    upload.bytes = bytes;
    return true;
  }

  #completeUpload(req: ParsedRequest): ApiResult {
    const files = req.params.files;
    if (req.badJson.has('files') || !Array.isArray(files) || files.length === 0)
      return fail('invalid_arguments');
    const entries = files.filter(isRecord);
    const ids = entries.map((f) => (typeof f.id === 'string' ? f.id : ''));
    // Inference: an id never returned by getUploadURLExternal, or whose bytes never arrived, is not a file.
    if (ids.some((id) => this.#uploads.get(id)?.bytes === undefined)) return fail('file_not_found');
    const recorded = entries.map((f, i) => this.#recordFile(ids[i] ?? '', f.title, req));
    return {
      ok: true,
      files: recorded.map((f) => ({ id: f.id, name: f.filename, title: f.title ?? f.filename })),
    };
  }

  #recordFile(id: string, title: unknown, req: ParsedRequest): FakeFile {
    const upload = this.#uploads.get(id);
    this.#uploads.delete(id);
    const bytes = upload?.bytes ?? Buffer.alloc(0);
    const file: FakeFile = {
      id,
      filename: upload?.filename ?? '',
      content: bytes.toString('utf8'),
      bytes,
      length: upload?.length ?? 0,
    };
    if (upload?.alt) Object.assign(file, { alt_txt: upload.alt.text, altTextParam: upload.alt.param });
    const channel = arg(req.params, 'channel_id');
    if (channel !== undefined) file.channel = this.channelId(channel, true) ?? channel;
    const thread_ts = arg(req.params, 'thread_ts');
    if (thread_ts !== undefined) file.thread_ts = thread_ts;
    if (typeof title === 'string') file.title = title;
    const comment = arg(req.params, 'initial_comment');
    if (comment !== undefined) file.initial_comment = comment;
    this.files.push(file);
    return file;
  }
}
