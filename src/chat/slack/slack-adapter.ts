import type { Server } from 'node:http';
import { webApi } from '@slack/bolt';
import type { Logger } from '../../logger.js';
import type { Metrics } from '../../metrics/metrics.js';
import type { ChatView } from '../../report/chat-view.js';
import type { Secret } from '../../secret.js';
import type { ChatAdapter, ChatFile, Destination, MessageRef } from '../adapter.js';
import { chunkLines, LIMITS } from './blocks.js';
import { escapeMrkdwn } from './mrkdwn.js';
import { downloadSlackFile, type SlackFileInfo } from './slack-file-download.js';
import { renderSlackMessage } from './render-blocks.js';
import { slackCall } from './slack-errors.js';
import { toSlackLogger } from './slack-logger.js';
import { type HttpRoute, type StartedReceiver, startSlackReceiver } from './slack-receiver.js';

export type { HttpRoute } from './slack-receiver.js';

export interface SlackAdapterOptions {
  botToken: Secret;
  /** HTTP mode: requests to /slack/events are verified with it. */
  signingSecret?: Secret;
  /** Socket Mode when set (an app-level `xapp-` token with connections:write). */
  appToken?: Secret;
  /** SLACK_API_URL: the Web API base, also used for Socket Mode's apps.connections.open. */
  apiUrl?: string;
  /** HTTP mode only. */
  listen?: { port: number; host?: string };
  routes?: HttpRoute[];
  command?: string;
  logger: Logger;
  /** Web API retries for 5xx and network errors; 429 waits for Retry-After. Default 5, 0.5-10 s apart. */
  retries?: number;
  /** Per request; a hung request is retried like a network error. Default 30 s. */
  requestTimeoutMs?: number;
  socketPingTimeoutMs?: number;
  ackDeadlineMs?: number;
  /** Web API calls by method and outcome (429s included) on /metrics. */
  metrics?: Pick<Metrics, 'slackCall' | 'error'>;
}

export interface SlackAdapter extends ChatAdapter {
  /** The HTTP receiver's address once started (HTTP mode). */
  address(): { host: string; port: number } | undefined;
  /** Slack takes the bot token (`auth.test`), for /readyz; an answer is reused for a while. */
  authOk(): Promise<boolean>;
}

/** Slack allows 3000 ms; ack a little earlier so a slow handler never costs the user an error. */
const DEFAULT_ACK_DEADLINE_MS = 2500;
const MAX_FOLLOW_UPS = 10;
/** /readyz asks often (every probe period): reuse a good auth.test answer this long, a bad one less. */
const AUTH_OK_REUSE_MS = 60_000;
const AUTH_FAILED_REUSE_MS = 5000;
const AUTH_TIMEOUT_MS = 3000;

/**
 * Slack through Bolt. Posting uses our own WebClient, so the worker role can post without
 * receiving; start() adds the receiver (HTTP at /slack/events, or Socket Mode).
 */
export function createSlackAdapter(opts: SlackAdapterOptions): SlackAdapter {
  const retries = opts.retries ?? 5;
  const clientOptions: webApi.WebClientOptions = {
    ...(opts.apiUrl ? { slackApiUrl: opts.apiUrl } : {}),
    logger: toSlackLogger(opts.logger),
    // 429: the WebClient waits Retry-After and tries again; Slack did not take the call, so it cannot repeat.
    rejectRateLimitedCalls: false,
    retryConfig: { retries, factor: 2, minTimeout: 500, maxTimeout: 10_000, randomize: true },
    timeout: opts.requestTimeoutMs ?? 30_000,
  };
  const client = new webApi.WebClient(opts.botToken.reveal(), clientOptions);
  // The WebClient waits out a 429 itself; the event is the only sign of it.
  client.on(webApi.WebClientEvent.RATE_LIMITED, (_retrySec: number, request: { url?: string }) =>
    opts.metrics?.slackCall(request.url ?? 'unknown', 'rate_limited'),
  );
  let receiver: StartedReceiver | undefined;
  let teamUrl: Promise<string | undefined> | undefined;
  let auth: { ok: boolean; atMs: number } | undefined;

  /** Every Web API call: its outcome counted, its failure turned into a ChatDeliveryError. */
  const call = async <T>(method: string, run: () => Promise<T>): Promise<T> => {
    try {
      const result = await slackCall(method, run);
      opts.metrics?.slackCall(method, 'ok');
      return result;
    } catch (err) {
      opts.metrics?.slackCall(method, 'error');
      opts.metrics?.error('slack');
      throw err;
    }
  };

  const workspaceUrl = (): Promise<string | undefined> => {
    teamUrl ??= call('auth.test', () => client.auth.test()).then(
      (r) => (typeof r.url === 'string' ? r.url.replace(/\/+$/, '') : undefined),
      () => undefined,
    );
    return teamUrl;
  };
  /** Slack's message permalink shape: /archives/<channel>/p<ts without the dot>. */
  const linkTo = async (channel: string, ts: string, thread?: MessageRef): Promise<string | undefined> => {
    const base = await workspaceUrl();
    if (!base) return undefined;
    const link = `${base}/archives/${channel}/p${ts.replace('.', '')}`;
    return thread ? `${link}?thread_ts=${thread.ts}&cid=${channel}` : link;
  };

  const attach = async (to: Destination, file: ChatFile): Promise<void> => {
    try {
      await adapter.upload?.(to, file);
    } catch (err) {
      opts.logger.warn(
        { err: String(err), channel: to.channel },
        'slack: upload failed; posting the full report as follow-ups',
      );
      const text = typeof file.content === 'string' ? file.content : '';
      const chunks = chunkLines(text.split('\n'), LIMITS.sectionText - 8).slice(0, MAX_FOLLOW_UPS);
      for (const chunk of chunks) {
        const text = `\`\`\`${escapeMrkdwn(chunk)}\`\`\``;
        await call('chat.postMessage', () =>
          client.chat.postMessage({
            channel: to.channel,
            text,
            ...(to.thread ? { thread_ts: to.thread.ts } : {}),
          }),
        );
      }
    }
  };

  const adapter: SlackAdapter = {
    kind: 'slack',
    async start(handlers) {
      receiver = await startSlackReceiver(
        {
          botToken: opts.botToken.reveal(),
          clientOptions,
          logger: opts.logger,
          command: opts.command ?? '/etcd',
          appToken: opts.appToken?.reveal(),
          signingSecret: opts.signingSecret?.reveal(),
          listen: opts.listen ?? { port: 3000 },
          routes: opts.routes ?? [],
          socketPingTimeoutMs: opts.socketPingTimeoutMs ?? 5000,
          ackDeadlineMs: opts.ackDeadlineMs ?? DEFAULT_ACK_DEADLINE_MS,
          ephemeral: (channel, user, view) => adapter.ephemeral({ channel }, user, view),
          post: (to, view) => adapter.post(to, view),
        },
        handlers,
      );
    },
    async stop() {
      await receiver?.stop();
      receiver = undefined;
    },
    async authOk() {
      const nowMs = Date.now();
      if (auth && nowMs - auth.atMs < (auth.ok ? AUTH_OK_REUSE_MS : AUTH_FAILED_REUSE_MS)) return auth.ok;
      const ok = await Promise.race([
        call('auth.test', () => client.auth.test()).then(
          (r) => r.ok === true,
          () => false,
        ),
        new Promise<boolean>((resolve) => setTimeout(() => resolve(false), AUTH_TIMEOUT_MS).unref()),
      ]);
      auth = { ok, atMs: Date.now() };
      return ok;
    },
    address() {
      const address = (receiver?.server as Server | undefined)?.address();
      return address && typeof address === 'object'
        ? { host: address.address, port: address.port }
        : undefined;
    },
    async post(to: Destination, view: ChatView) {
      const message = renderSlackMessage(view);
      const res = await call('chat.postMessage', () =>
        client.chat.postMessage({
          channel: to.channel,
          text: message.text,
          blocks: message.blocks,
          unfurl_links: false,
          unfurl_media: false,
          ...(to.thread ? { thread_ts: to.thread.ts } : {}),
        }),
      );
      const channel = res.channel ?? to.channel;
      const ts = res.ts ?? '';
      const link = await linkTo(channel, ts, to.thread);
      const ref: MessageRef = { channel, ts, ...(link ? { link } : {}) };
      if (message.attachment) await attach({ channel, thread: to.thread ?? ref }, message.attachment);
      return ref;
    },
    async update(ref, view) {
      const message = renderSlackMessage(view);
      await call('chat.update', () =>
        client.chat.update({ channel: ref.channel, ts: ref.ts, text: message.text, blocks: message.blocks }),
      );
    },
    async ephemeral(to, user, view) {
      const message = renderSlackMessage(view);
      await call('chat.postEphemeral', () =>
        client.chat.postEphemeral({
          channel: to.channel,
          user,
          text: message.text,
          blocks: message.blocks,
          ...(to.thread ? { thread_ts: to.thread.ts } : {}),
        }),
      );
    },
    async upload(to, file) {
      // files.uploadV2: getUploadURLExternal (name, length, alt text), the bytes, completeUploadExternal.
      const data = typeof file.content === 'string' ? { content: file.content } : { file: file.content };
      const common = {
        filename: file.filename,
        title: file.title,
        ...data,
        // Slack documents `alt_txt`; the SDK helper sends this field as `alt_text`.
        ...(file.altText ? { alt_text: file.altText } : {}),
      };
      const thread = to.thread;
      await call('files.uploadV2', () =>
        thread
          ? client.filesUploadV2({ ...common, channel_id: to.channel, thread_ts: thread.ts })
          : client.filesUploadV2({ ...common, channel_id: to.channel }),
      );
    },
    async groupMembers(groupId) {
      const res = await call('usergroups.users.list', () =>
        client.usergroups.users.list({ usergroup: groupId }),
      );
      return res.users ?? [];
    },
    fetchFile(fileId, fetchOpts) {
      const info = async (file: string) =>
        (await call('files.info', () => client.files.info({ file }))).file as SlackFileInfo | undefined;
      const apiUrl = opts.apiUrl ?? 'https://slack.com/api/';
      // A large must-gather takes longer than one API call; the job's own timeout bounds it too.
      const timeoutMs = 5 * 60_000;
      return downloadSlackFile(
        { botToken: opts.botToken.reveal(), info, apiUrl, timeoutMs },
        fileId,
        fetchOpts,
      );
    },
  };
  return adapter;
}
