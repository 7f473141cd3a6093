import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { type RawData, type WebSocket, WebSocketServer } from 'ws';
import { isRecord } from './fake-slack-blocks.js';

/** Reasons Slack sends in `{"type":"disconnect"}` (sample socket-mode.disconnect.json and its source). */
export type DisconnectReason = 'refresh_requested' | 'link_disabled' | 'warning' | 'too_many_websockets';

/** The Socket Mode side of the fake: the WebSocket that `apps.connections.open` points at (contract §5). */
export interface FakeSocketMode {
  /** Connections accepted (hello sent) since start. Each reconnect adds one, so it only grows. */
  readonly connections: number;
  /** Connections open right now. */
  readonly openConnections: number;
  /**
   * Sends an envelope on the newest open connection (a fresh `envelope_id` is added when missing) and
   * resolves with the `payload` of the app's ack (undefined if it acked without one, as Python does).
   * Rejects when no connection is open or no ack arrives within the ack timeout.
   */
  sendEnvelope(envelope: object): Promise<unknown>;
  /** A `slash_commands` envelope; fields default to the sample's, with a fresh response_url and trigger_id. */
  sendSlashCommand(payload: Record<string, string>): Promise<unknown>;
  /** An `interactive` envelope (block_actions, view_submission, ...); adds trigger_id/response_url if absent. */
  sendInteractive(payload: object): Promise<unknown>;
  /**
   * An `events_api` envelope around `event` (shape of sample socket-mode.envelope.events_api.json):
   * an `event_callback` with a fresh event_id; resolves with the ack's payload.
   */
  sendEvent(event: Record<string, unknown>): Promise<unknown>;
  /** Sends `{"type":"disconnect","reason":...}` to every open connection, then closes them (code 1000). */
  disconnect(reason?: DisconnectReason): void;
  /** Destroys every open connection's TCP socket without a close frame. */
  dropConnection(): void;
  /** Resolves once `connections >= n`. */
  waitForConnections(n: number, timeoutMs?: number): Promise<void>;
}

/** What startFakeSlack needs beyond the public API. */
export interface SocketModeServer extends FakeSocketMode {
  /** Mints a single-use ticket and returns the ws:// URL that carries it. */
  issueUrl(origin: string): string;
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  close(): void;
}

export interface SocketModeDeps {
  appId: string;
  teamId: string;
  newTriggerId(): string;
  newResponseUrl(): string;
  ackTimeoutMs: number;
}

/** Time between the disconnect message and the server's own close frame; the client usually closes first. */
const DISCONNECT_GRACE_MS = 250;
const POLL_MS = 20;

interface Pending {
  resolve(payload: unknown): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

export function createFakeSocketMode(deps: SocketModeDeps): SocketModeServer {
  return new SocketModeFake(deps);
}

function rawText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.from(new Uint8Array(data)).toString('utf8');
}

class SocketModeFake implements SocketModeServer {
  readonly #wss = new WebSocketServer({ noServer: true });
  readonly #tickets = new Set<string>();
  readonly #open: WebSocket[] = [];
  readonly #pending = new Map<string, Pending>();
  #accepted = 0;

  private readonly deps: SocketModeDeps;

  constructor(deps: SocketModeDeps) {
    this.deps = deps;
  }

  get connections(): number {
    return this.#accepted;
  }

  get openConnections(): number {
    return this.#open.length;
  }

  sendEnvelope(envelope: object): Promise<unknown> {
    const full: Record<string, unknown> = { envelope_id: randomUUID(), ...envelope };
    const id = String(full.envelope_id);
    const ws = this.#open.at(-1);
    if (ws === undefined)
      return Promise.reject(new Error(`no open Socket Mode connection for envelope ${id}`));
    const timeoutMs = this.deps.ackTimeoutMs;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new Error(`app did not ack envelope ${id} (${String(full.type)}) within ${timeoutMs} ms`));
      }, timeoutMs);
      this.#pending.set(id, { resolve, reject, timer });
      ws.send(JSON.stringify(full));
    });
  }

  sendSlashCommand(fields: Record<string, string>): Promise<unknown> {
    // Field set and order of sample socket-mode.envelope.slash_commands.json.
    const payload = {
      token: 'verification-token',
      team_id: this.deps.teamId,
      team_domain: 'fake',
      channel_id: 'C111',
      channel_name: 'random',
      user_id: 'U111',
      user_name: 'testxyz',
      command: '/etcd',
      text: '',
      api_app_id: this.deps.appId,
      response_url: this.deps.newResponseUrl(),
      trigger_id: this.deps.newTriggerId(),
      ...fields,
    };
    return this.sendEnvelope({ payload, type: 'slash_commands', accepts_response_payload: true });
  }

  sendInteractive(payload: object): Promise<unknown> {
    const out: Record<string, unknown> = { ...payload };
    out.trigger_id ??= this.deps.newTriggerId();
    if (out.type === 'block_actions') out.response_url ??= this.deps.newResponseUrl();
    // Sample socket-mode.envelope.interactive.shortcut.json: accepts_response_payload false.
    return this.sendEnvelope({ payload: out, type: 'interactive', accepts_response_payload: false });
  }

  sendEvent(event: Record<string, unknown>): Promise<unknown> {
    const eventTs = typeof event.ts === 'string' ? event.ts : `${Date.now() / 1000}`;
    const payload = {
      token: 'verification-token',
      team_id: this.deps.teamId,
      api_app_id: this.deps.appId,
      event: { event_ts: eventTs, ...event },
      type: 'event_callback',
      event_id: `Ev${randomUUID().replace(/-/g, '').slice(0, 10).toUpperCase()}`,
      event_time: Math.floor(Date.now() / 1000),
      authorizations: [
        {
          enterprise_id: null,
          team_id: this.deps.teamId,
          user_id: 'U222',
          is_bot: true,
          is_enterprise_install: false,
        },
      ],
      is_ext_shared_channel: false,
    };
    return this.sendEnvelope({
      payload,
      type: 'events_api',
      accepts_response_payload: false,
      retry_attempt: 0,
      retry_reason: '',
    });
  }

  disconnect(reason: DisconnectReason = 'refresh_requested'): void {
    for (const ws of [...this.#open]) {
      ws.send(JSON.stringify({ type: 'disconnect', reason, debug_info: { host: 'applink-fake' } }));
      setTimeout(() => {
        if (ws.readyState === ws.OPEN) ws.close(1000);
      }, DISCONNECT_GRACE_MS);
    }
  }

  dropConnection(): void {
    for (const ws of [...this.#open]) ws.terminate();
  }

  async waitForConnections(n: number, timeoutMs = 15_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.#accepted < n) {
      if (Date.now() > deadline) {
        throw new Error(`expected ${n} Socket Mode connections, saw ${this.#accepted} in ${timeoutMs} ms`);
      }
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }

  issueUrl(origin: string): string {
    const ticket = randomUUID();
    this.#tickets.add(ticket);
    return `${origin.replace(/^http/, 'ws')}/link/?ticket=${ticket}&app_id=${this.deps.appId}`;
  }

  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const ticket = new URL(req.url ?? '/', 'ws://fake.invalid').searchParams.get('ticket') ?? '';
    // Tickets are single-use: to reconnect, a client must call apps.connections.open again.
    if (!this.#tickets.delete(ticket)) {
      socket.end('HTTP/1.1 401 Unauthorized\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    this.#wss.handleUpgrade(req, socket, head, (ws) => this.#onConnection(ws));
  }

  close(): void {
    for (const waiter of this.#pending.values()) {
      clearTimeout(waiter.timer);
      waiter.reject(new Error('fake Slack closed'));
    }
    this.#pending.clear();
    this.dropConnection();
    this.#wss.close();
  }

  #onConnection(ws: WebSocket): void {
    this.#accepted += 1;
    this.#open.push(ws);
    ws.on('message', (data, isBinary) => {
      if (!isBinary) this.#onAck(data);
    });
    ws.on('close', () => {
      const i = this.#open.indexOf(ws);
      if (i >= 0) this.#open.splice(i, 1);
    });
    ws.on('error', () => undefined);
    // Sample socket-mode.hello.json; the client's start() resolves only on this message (contract §5.1).
    const hello = {
      type: 'hello',
      num_connections: this.#open.length,
      debug_info: { host: 'applink-fake', build_number: 10, approximate_connection_time: 18060 },
      connection_info: { app_id: this.deps.appId },
    };
    ws.send(JSON.stringify(hello));
  }

  #onAck(data: RawData): void {
    let message: unknown;
    try {
      message = JSON.parse(rawText(data));
    } catch {
      return;
    }
    // Ack frame {"envelope_id":"...","payload":{...}}; payload optional (sample socket-mode.ack.code-excerpt.txt).
    if (!isRecord(message) || typeof message.envelope_id !== 'string') return;
    const waiter = this.#pending.get(message.envelope_id);
    if (waiter === undefined) return;
    this.#pending.delete(message.envelope_id);
    clearTimeout(waiter.timer);
    waiter.resolve(message.payload);
  }
}
