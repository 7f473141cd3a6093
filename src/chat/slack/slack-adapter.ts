import type { Server } from 'node:http';
import type { ChatView } from '../../report/chat-view.js';
import type { Secret } from '../../secret.js';
import type {
  ChatAdapter,
  ChatFile,
  Destination,
  FetchedFile,
  FetchFileOptions,
  MessageRef,
} from '../adapter.js';
import { chunkLines, LIMITS } from './blocks.js';
import { escapeMrkdwn } from './mrkdwn.js';
import { downloadSlackFile, type SlackFileInfo } from './slack-file-download.js';
import { renderSlackMessage } from './render-blocks.js';
import { createSlackWebApi, type SlackWebApi, type SlackWebApiOptions } from './slack-web-api.js';
import type { HttpRoute } from '../../http/route.js';
import { type ReceiverOptions, type StartedReceiver, startSlackReceiver } from './slack-receiver.js';

/** The Web API client's options (slack-web-api.ts) and the receiver's. */
export interface SlackAdapterOptions extends SlackWebApiOptions {
  /** HTTP mode: requests to /slack/events are verified with it. */
  signingSecret?: Secret;
  /** Socket Mode when set (an app-level `xapp-` token with connections:write). */
  appToken?: Secret;
  /** HTTP mode only. */
  listen?: { port: number; host?: string };
  routes?: HttpRoute[];
  command?: string;
  socketPingTimeoutMs?: number;
  ackDeadlineMs?: number;
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

/**
 * Slack through Bolt. Posting uses our own WebClient, so the worker role can post without
 * receiving; start() adds the receiver (HTTP at /slack/events, or Socket Mode).
 */
export function createSlackAdapter(opts: SlackAdapterOptions): SlackAdapter {
  const api = createSlackWebApi(opts);
  const { client, clientOptions, call, linkTo, authOk } = api;
  let receiver: StartedReceiver | undefined;

  const adapter: SlackAdapter = {
    kind: 'slack',
    async start(handlers) {
      receiver = await startSlackReceiver(receiverOptions(opts, clientOptions, adapter), handlers);
    },
    async stop() {
      await receiver?.stop();
      receiver = undefined;
    },
    authOk,
    address: () => addressOf(receiver),
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
      if (message.attachment)
        await attach(adapter, api, opts.logger, { channel, thread: to.thread ?? ref }, message.attachment);
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
    upload: (to, file) => uploadFile(api, to, file),
    groupMembers: (groupId) => groupMembers(api, groupId),
    fetchFile: (fileId, fetchOpts) => fetchFile(opts, api, fileId, fetchOpts),
  };
  return adapter;
}

/** The receiver's settings: the adapter's options with their defaults; its replies go through `adapter`. */
function receiverOptions(
  opts: SlackAdapterOptions,
  clientOptions: ReceiverOptions['clientOptions'],
  adapter: ChatAdapter,
): ReceiverOptions {
  return {
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
  };
}

/** A report too long for one message goes as a file; when the upload fails, as follow-up messages. */
async function attach(
  adapter: ChatAdapter,
  api: SlackWebApi,
  logger: SlackAdapterOptions['logger'],
  to: Destination,
  file: ChatFile,
): Promise<void> {
  const { client, call } = api;
  try {
    await adapter.upload?.(to, file);
  } catch (err) {
    logger.warn(
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
}

/** files.uploadV2, in the thread when there is one. */
async function uploadFile(api: SlackWebApi, to: Destination, file: ChatFile): Promise<void> {
  const { client, call } = api;
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
}

/** The user ids in a user group (remediation responders). */
async function groupMembers(api: SlackWebApi, groupId: string): Promise<string[]> {
  const res = await api.call('usergroups.users.list', () =>
    api.client.usergroups.users.list({ usergroup: groupId }),
  );
  return res.users ?? [];
}

/** A file shared with the bot: files.info, then url_private_download with the bot token. */
function fetchFile(
  opts: SlackAdapterOptions,
  api: SlackWebApi,
  fileId: string,
  fetchOpts: FetchFileOptions,
): Promise<FetchedFile> {
  const info = async (file: string) =>
    (await api.call('files.info', () => api.client.files.info({ file }))).file as SlackFileInfo | undefined;
  const apiUrl = opts.apiUrl ?? 'https://slack.com/api/';
  // A large must-gather takes longer than one API call; the job's own timeout bounds it too.
  const timeoutMs = 5 * 60_000;
  return downloadSlackFile({ botToken: opts.botToken.reveal(), info, apiUrl, timeoutMs }, fileId, fetchOpts);
}

/** Where the HTTP receiver listens, once started (HTTP mode). */
function addressOf(receiver: StartedReceiver | undefined): { host: string; port: number } | undefined {
  const address = (receiver?.server as Server | undefined)?.address();
  return address && typeof address === 'object' ? { host: address.address, port: address.port } : undefined;
}
