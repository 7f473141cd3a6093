/**
 * A local fake of Slack's Web API and Socket Mode, built from shared/reference/slack-contract.md and its
 * samples. Point `@slack/web-api` (or Bolt's `clientOptions.slackApiUrl`) at `fake.url`.
 */
import { createServer, type IncomingMessage, STATUS_CODES, type ServerResponse } from 'node:http';
import { isRecord, validateBlocks } from './fake-slack-blocks.js';
import {
  mediaType,
  type ParsedRequest,
  parseApiRequest,
  parseMultipart,
  readBody,
  sendJson,
  sendText,
} from './fake-slack-request.js';
import {
  FakeWorkspace,
  type ApiResult,
  type FakeEphemeral,
  type FakeFile,
  type FakeMessage,
  type FakeView,
} from './fake-slack-workspace.js';
import type { RecordedDownload, SharedFileInput, SlackFileObject } from './fake-slack-files.js';
import { createFakeSocketMode, type FakeSocketMode, type SocketModeServer } from './fake-socket-mode.js';

export type { RecordedDownload, SharedFileInput, SlackFileObject } from './fake-slack-files.js';

export type { FakeEphemeral, FakeFile, FakeMessage, FakeView } from './fake-slack-workspace.js';
export type { DisconnectReason, FakeSocketMode } from './fake-socket-mode.js';

/** One Web API request as the fake received it (failed and refused ones included). */
export interface RecordedCall {
  method: string;
  /** Arguments with JSON-carrying fields (blocks, view, files, ...) decoded. */
  body: Record<string, unknown>;
  token: string | undefined;
  /** Date.now() at arrival. */
  at: number;
  /** HTTP status the fake answered. */
  status: number;
  /** `error` of an `ok:false` answer, if any. */
  error: string | undefined;
}

/** A scripted answer for the next call(s) of a method. */
export type ScriptedFailure =
  | { status: 429; retryAfterSeconds: number }
  | { status: 500 | 502 | 503 }
  | { ok: false; error: string };

/** A POST the app made to a response_url the fake handed out (slash command / block_actions payloads). */
export interface RecordedResponse {
  id: string;
  body: unknown;
  status: number;
}

export interface FakeSlack {
  /** Base URL for `slackApiUrl` / SLACK_API_URL, e.g. `http://127.0.0.1:PORT/api/`. */
  readonly url: string;
  readonly botUserId: string;
  readonly botId: string;
  readonly teamId: string;
  readonly appId: string;
  readonly socketMode: FakeSocketMode;
  calls(method?: string): RecordedCall[];
  /** Messages as they stand now; `channel` may be an ID or a `#name` the app posted to. */
  messages(channel?: string): FakeMessage[];
  ephemerals(channel?: string): FakeEphemeral[];
  files(): FakeFile[];
  views(): FakeView[];
  responses(): RecordedResponse[];
  setUserGroup(id: string, users: string[]): void;
  /** A file a person shared: its file object, for an event's `files`; files.info and the download serve it. */
  shareFile(input: SharedFileInput): SlackFileObject;
  /** The next download of this file answers a redirect to `location`. */
  redirectDownload(fileId: string, location: string): void;
  /** Every GET of a shared file's URL, with the bearer token it carried. */
  downloads(): RecordedDownload[];
  /** The next `times` (default 1) calls of `method` get this answer instead of the real one. */
  failNext(method: string, response: ScriptedFailure, times?: number): void;
  /**
   * Every call of `method` that arrives in the next `forMs`, starting `afterMs` from now, gets this
   * answer: an outage by the clock rather than by call count (after the `failNext` ones are used up).
   */
  failDuring(method: string, response: ScriptedFailure, window: { afterMs?: number; forMs: number }): void;
  /** Polls every 20 ms until `pred` holds; rejects after `timeoutMs` (default 5000). */
  waitFor(pred: (f: FakeSlack) => boolean, timeoutMs?: number): Promise<void>;
  /** Forgets calls, messages, files, views, responses and scripted failures (not Socket Mode counters). */
  reset(): void;
  close(): Promise<void>;
}

export interface FakeSlackOptions {
  botUserId?: string;
  botId?: string;
  teamId?: string;
  appId?: string;
  /** Members per user group ID, answered by usergroups.users.list. */
  userGroups?: Record<string, string[]>;
  /** How long Socket Mode envelopes wait for an ack (default 5000 ms). */
  ackTimeoutMs?: number;
  /** Trigger lifetime for views.open (default 3000 ms, contract §3.4). */
  triggerTtlMs?: number;
  /** The clock triggers age by; default Date.now. */
  now?: () => number;
}

const POLL_MS = 20;

/** Token rules (contract §4.2, §5.1): app-level token only in the header and only for apps.connections.open. */
function authError(method: string, req: ParsedRequest): string | undefined {
  if (method === 'apps.connections.open') {
    if (req.headerToken === undefined) return 'not_authed';
    return req.headerToken.startsWith('xapp-') ? undefined : 'not_allowed_token_type';
  }
  if (req.token === undefined) return 'not_authed';
  if (req.token.startsWith('xapp-')) return method === 'auth.test' ? undefined : 'not_allowed_token_type';
  return /^xox[bp]-/.test(req.token) ? undefined : 'invalid_auth';
}

class FakeSlackServer implements FakeSlack {
  readonly botUserId: string;
  readonly botId: string;
  readonly teamId: string;
  readonly appId: string;
  readonly #server = createServer((req, res) => {
    this.#route(req, res).catch((error: unknown) =>
      sendText(res, 500, `fake Slack failed: ${String(error)}`),
    );
  });
  readonly #workspace: FakeWorkspace;
  readonly #socket: SocketModeServer;
  readonly #userGroups: Map<string, string[]>;
  readonly #calls: RecordedCall[] = [];
  readonly #responses: RecordedResponse[] = [];
  readonly #failures = new Map<string, ScriptedFailure[]>();
  readonly #outages: Array<{ method: string; response: ScriptedFailure; from: number; until: number }> = [];
  #origin = '';

  constructor(opts: FakeSlackOptions) {
    // Defaults follow the samples: auth.test bot ids, Socket Mode envelope team/app ids.
    this.botUserId = opts.botUserId ?? 'W23456789';
    this.botId = opts.botId ?? 'BZYBOTHED';
    this.teamId = opts.teamId ?? 'T111';
    this.appId = opts.appId ?? 'A111';
    this.#userGroups = new Map(Object.entries(opts.userGroups ?? {}));
    const ids = { botUserId: this.botUserId, botId: this.botId, teamId: this.teamId, appId: this.appId };
    const triggerTtlMs = opts.triggerTtlMs ?? 3000;
    this.#workspace = new FakeWorkspace({
      ...ids,
      userGroups: this.#userGroups,
      triggerTtlMs,
      now: opts.now ?? Date.now,
      origin: () => this.#origin,
    });
    this.#socket = createFakeSocketMode({
      appId: this.appId,
      teamId: this.teamId,
      newTriggerId: () => this.#workspace.mintTriggerId(),
      newResponseUrl: () => `${this.#origin}/response/${this.#workspace.mintId('R')}`,
      ackTimeoutMs: opts.ackTimeoutMs ?? 5000,
    });
    this.#server.on('upgrade', (req: IncomingMessage, socket, head: Buffer) => {
      if ((req.url ?? '').startsWith('/link/')) this.#socket.handleUpgrade(req, socket, head);
      else socket.destroy();
    });
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    const address = this.#server.address();
    if (address === null || typeof address === 'string') throw new Error('fake Slack: no TCP address');
    this.#origin = `http://127.0.0.1:${address.port}`;
  }

  get url(): string {
    return `${this.#origin}/api/`;
  }

  get socketMode(): FakeSocketMode {
    return this.#socket;
  }

  calls(method?: string): RecordedCall[] {
    return this.#calls.filter((c) => method === undefined || c.method === method);
  }

  messages(channel?: string): FakeMessage[] {
    const id = channel === undefined ? undefined : this.#workspace.channelId(channel);
    return this.#workspace.messages
      .filter((m) => channel === undefined || m.channel === id)
      .map((m) => ({ ...m }));
  }

  ephemerals(channel?: string): FakeEphemeral[] {
    const id = channel === undefined ? undefined : this.#workspace.channelId(channel);
    return this.#workspace.ephemerals
      .filter((e) => channel === undefined || e.channel === id)
      .map((e) => ({ ...e }));
  }

  files(): FakeFile[] {
    return this.#workspace.files.map((f) => ({ ...f }));
  }

  views(): FakeView[] {
    return [...this.#workspace.views];
  }

  responses(): RecordedResponse[] {
    return [...this.#responses];
  }

  setUserGroup(id: string, users: string[]): void {
    this.#userGroups.set(id, [...users]);
  }

  shareFile(input: SharedFileInput): SlackFileObject {
    return this.#workspace.shared.share(input);
  }

  redirectDownload(fileId: string, location: string): void {
    this.#workspace.shared.redirect(fileId, location);
  }

  downloads(): RecordedDownload[] {
    return this.#workspace.shared.downloads();
  }

  failNext(method: string, response: ScriptedFailure, times = 1): void {
    const queue = this.#failures.get(method) ?? [];
    for (let i = 0; i < times; i += 1) queue.push(response);
    this.#failures.set(method, queue);
  }

  failDuring(method: string, response: ScriptedFailure, window: { afterMs?: number; forMs: number }): void {
    const from = Date.now() + (window.afterMs ?? 0);
    this.#outages.push({ method, response, from, until: from + window.forMs });
  }

  async waitFor(pred: (f: FakeSlack) => boolean, timeoutMs = 5000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!pred(this)) {
      if (Date.now() > deadline) {
        const seen = this.#calls.map((c) => `${c.method}(${c.error ?? c.status})`).join(', ') || 'none';
        // The last messages' text, cut short: what the thread said when the wait gave up.
        const last = this.#workspace.messages
          .slice(-3)
          .map((m) => JSON.stringify(m.text.slice(0, 300)))
          .join('; ');
        throw new Error(
          `fake Slack: condition not met within ${timeoutMs} ms; calls so far: ${seen}; last messages: ${last || 'none'}`,
        );
      }
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }

  reset(): void {
    this.#calls.length = 0;
    this.#responses.length = 0;
    this.#failures.clear();
    this.#outages.length = 0;
    this.#workspace.reset();
  }

  async close(): Promise<void> {
    this.#socket.close();
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async #route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.#origin);
    const raw = await readBody(req);
    const [, area, rest] = /^\/([a-z]+)\/(.+)$/.exec(url.pathname) ?? [];
    if (area === 'api' && rest !== undefined) return this.#api(rest, req, res, url, raw);
    if (req.method === 'POST' && area === 'upload' && rest !== undefined)
      return this.#upload(rest, req, res, raw);
    if (req.method === 'POST' && area === 'response' && rest !== undefined)
      return this.#response(rest, req, res, raw);
    // A shared file's url_private(_download): /files-pri/<team>-<file id>/[download/]<name>.
    if (req.method === 'GET' && url.pathname.startsWith('/files-pri/'))
      return this.#workspace.shared.download(url.pathname.slice('/files-pri/'.length), req, res);
    sendText(res, 404, 'Not Found');
  }

  async #api(
    method: string,
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    raw: Buffer,
  ): Promise<void> {
    const parsed = await parseApiRequest(req, url, raw);
    const call: RecordedCall = {
      method,
      body: {},
      token: undefined,
      at: Date.now(),
      status: 200,
      error: undefined,
    };
    this.#calls.push(call);
    if (!parsed.ok) return this.#answer(res, call, { ok: false, error: parsed.error });
    Object.assign(call, { body: parsed.value.params, token: parsed.value.token });
    const scripted =
      this.#failures.get(method)?.shift() ??
      this.#outages.find((o) => o.method === method && o.from <= call.at && call.at < o.until)?.response;
    if (scripted !== undefined) return this.#scripted(res, call, scripted);
    const refused = authError(method, parsed.value);
    if (refused !== undefined) return this.#answer(res, call, { ok: false, error: refused });
    if (method === 'apps.connections.open') {
      // Sample webapi.apps.connections.open.response.json, with a ws:// URL as Slack's own fakes use (§5.1).
      return this.#answer(res, call, { ok: true, url: this.#socket.issueUrl(this.#origin) });
    }
    this.#answer(res, call, this.#workspace.dispatch(method, parsed.value));
  }

  /** Contract §4.3: every Web API answer is HTTP 200 JSON, errors included. */
  #answer(res: ServerResponse, call: RecordedCall, body: ApiResult): void {
    call.error = body.ok === true ? undefined : String(body.error);
    sendJson(res, 200, body);
  }

  /** Contract §4.4 and sample webapi.ratelimited.http429.txt. */
  #scripted(res: ServerResponse, call: RecordedCall, failure: ScriptedFailure): void {
    if ('ok' in failure) {
      this.#answer(res, call, { ok: false, error: failure.error });
    } else if (failure.status === 429) {
      Object.assign(call, { status: 429, error: 'ratelimited' });
      sendJson(
        res,
        429,
        { ok: false, error: 'ratelimited' },
        { 'retry-after': String(failure.retryAfterSeconds) },
      );
    } else {
      call.status = failure.status;
      sendText(res, failure.status, STATUS_CODES[failure.status] ?? 'Server Error');
    }
  }

  /** Step 2 of filesUploadV2: WebClient POSTs multipart with the bytes as a file part. */
  async #upload(path: string, req: IncomingMessage, res: ServerResponse, raw: Buffer): Promise<void> {
    const fileId = path.replace(/^v1\//, '');
    // docs.slack.dev: "Files can be sent as raw bytes or can be multipart form encoded".
    let bytes = raw;
    if (mediaType(req) === 'multipart/form-data') {
      const form = await parseMultipart(req, raw);
      const part = [...(form?.values() ?? [])].find((v) => typeof v !== 'string');
      bytes = part === undefined ? Buffer.alloc(0) : Buffer.from(await part.arrayBuffer());
    }
    if (!this.#workspace.receiveUpload(fileId, bytes)) return sendText(res, 404, 'Not Found');
    sendText(res, 200, `OK - ${bytes.length}`);
  }

  /**
   * response_url POSTs (Bolt's respond(): JSON, contract §2.5). Invalid blocks get 400 `invalid_blocks`,
   * which is what hooks.slack.com answers for incoming webhooks (closest official evidence, §2.5).
   */
  async #response(id: string, req: IncomingMessage, res: ServerResponse, raw: Buffer): Promise<void> {
    let body: unknown = raw.toString('utf8');
    if (mediaType(req) === 'application/json') {
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        return sendText(res, 400, 'invalid_payload');
      }
    }
    const blocks = isRecord(body) ? body.blocks : undefined;
    const verdict = blocks === undefined ? [] : validateBlocks(blocks, 'message');
    const status = verdict === 'invalid_blocks_format' || verdict.length > 0 ? 400 : 200;
    this.#responses.push({ id, body, status });
    sendText(res, status, status === 200 ? 'ok' : 'invalid_blocks');
  }
}

export async function startFakeSlack(opts: FakeSlackOptions = {}): Promise<FakeSlack> {
  const fake = new FakeSlackServer(opts);
  await fake.listen();
  return fake;
}
