import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import {
  App,
  type BlockAction,
  type ButtonAction,
  HTTPReceiver,
  type Receiver,
  SocketModeReceiver,
  type webApi,
} from '@slack/bolt';
import { z } from 'zod';
import type { HttpRoute } from '../../http/route.js';
import type { Logger } from '../../logger.js';
import { type ChatView, textView } from '../../report/chat-view.js';
import { APOLOGY_TEXT, type ChatHandlers, type Destination, type MessageRef } from '../adapter.js';
import { ACTION_ID_PREFIX, renderSlackMessage } from './render-blocks.js';
import { listenForFiles } from './slack-file-events.js';
import { toSlackLogger } from './slack-logger.js';

export interface ReceiverOptions {
  botToken: string;
  clientOptions: webApi.WebClientOptions;
  logger: Logger;
  command: string;
  /** Socket Mode when set; otherwise HTTP at /slack/events, verified with `signingSecret`. */
  appToken: string | undefined;
  signingSecret: string | undefined;
  listen: { port: number; host?: string };
  routes: HttpRoute[];
  /** Socket Mode keepalive; the reconnect delay after a close is this times the failures in a row. */
  socketPingTimeoutMs: number;
  /** Ack with an empty body by then if the handler has not answered (Slack allows 3000 ms). */
  ackDeadlineMs: number;
  /** A private reply after the ack is no longer possible (chat.postEphemeral). */
  ephemeral: (channel: string, user: string, view: ChatView) => Promise<void>;
  /** A message in a channel or thread (the answer to a shared file). */
  post: (to: Destination, view: ChatView) => Promise<unknown>;
}

export interface StartedReceiver {
  server: Server | undefined;
  stop(): Promise<void>;
}

/** Slash command fields we use (contract §2.1); everything arrives as strings. */
const slashCommandSchema = z.object({
  text: z.string().default(''),
  channel_id: z.string().min(1),
  channel_name: z.string().optional(),
  user_id: z.string().min(1),
});

/**
 * Bolt buffers a request's body before it checks the signature: an unauthenticated 4 MiB (its
 * default) per request on a bot with a 256 Mi limit. Slack's own payloads are far smaller (a slash
 * command is under 4 KiB, a block_actions payload a few dozen KiB), so 1 MiB is ample.
 */
export const SLACK_BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * Bolt answers an oversized body 413 after reading only the first SLACK_BODY_LIMIT_BYTES: the rest
 * is still on the connection, so it must close after the answer instead of being reused.
 */
function closeAfterOversizedBody(req: IncomingMessage, res: ServerResponse): void {
  if (Number(req.headers['content-length'] ?? 0) > SLACK_BODY_LIMIT_BYTES) res.shouldKeepAlive = false;
}

function buildReceiver(opts: ReceiverOptions): Receiver {
  const logger = toSlackLogger(opts.logger);
  if (opts.appToken) {
    return new SocketModeReceiver({
      appToken: opts.appToken,
      logger,
      clientPingTimeout: opts.socketPingTimeoutMs,
      // SocketModeClient calls apps.connections.open through these options, so SLACK_API_URL applies to it too.
      installerOptions: { clientOptions: opts.clientOptions },
    });
  }
  if (!opts.signingSecret)
    throw new Error('HTTP mode needs SLACK_SIGNING_SECRET (or set SLACK_APP_TOKEN for Socket Mode)');
  return new HTTPReceiver({
    signingSecret: opts.signingSecret,
    endpoints: '/slack/events',
    customRoutes: opts.routes.map((r) => ({ path: r.path, method: r.method, handler: r.handler })),
    logger,
    processBeforeResponse: false,
    bodyLimit: SLACK_BODY_LIMIT_BYTES,
  });
}

/**
 * Resolves once the Socket Mode close handshake is over (at most 2 s): stopping earlier leaves the
 * client's 30 s close-handshake timer running, which keeps the process alive.
 */
function socketClosed(receiver: SocketModeReceiver): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, 2000);
    receiver.client.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** The body of an ack: a private reply (response_type ephemeral is Slack's default for commands). */
function ackBody(view: ChatView) {
  const { text, blocks } = renderSlackMessage(view);
  return { response_type: 'ephemeral' as const, text, blocks };
}

/**
 * The slash command: acked with the first answer (a private reply), or empty by the ack deadline;
 * later answers go out as chat.postEphemeral.
 */
function listenForCommand(app: App, opts: ReceiverOptions, handlers: ChatHandlers): void {
  app.command(opts.command, async ({ command, ack }) => {
    const parsed = slashCommandSchema.safeParse(command);
    if (!parsed.success) {
      await ack({
        response_type: 'ephemeral',
        text: 'Slack sent this command without a channel or a user; nothing was done.',
      });
      return;
    }
    const { text, channel_id: channel, channel_name: channelName, user_id: user } = parsed.data;
    let acked = false;
    const ackOnce = async (view?: ChatView): Promise<boolean> => {
      if (acked) return false;
      acked = true;
      await ack(view ? ackBody(view) : undefined);
      return true;
    };
    const respond = async (view: ChatView): Promise<void> => {
      if (!(await ackOnce(view))) await opts.ephemeral(channel, user, view);
    };
    const deadline = setTimeout(() => {
      ackOnce().catch((err: unknown) => opts.logger.warn({ err: String(err) }, 'slack: late ack failed'));
    }, opts.ackDeadlineMs);
    try {
      const incoming = { text: text.trim(), channel, user, respond, ...(channelName ? { channelName } : {}) };
      await handlers.onCommand(incoming);
    } catch (err) {
      opts.logger.error({ err: String(err) }, 'slack: command handler failed');
      await respond(textView(APOLOGY_TEXT, 'error')).catch(() => undefined);
    } finally {
      clearTimeout(deadline);
      await ackOnce().catch(() => undefined);
    }
  });
}

/** Our buttons (action ids under ACTION_ID_PREFIX): acked at once, answered privately. */
function listenForActions(app: App, opts: ReceiverOptions, handlers: ChatHandlers): void {
  app.action<BlockAction<ButtonAction>>(
    { type: 'block_actions', action_id: new RegExp(`^${ACTION_ID_PREFIX.replace('.', '\\.')}`) },
    async ({ ack, body, action }) => {
      await ack();
      const channel = body.channel?.id ?? body.container.channel_id;
      if (typeof channel !== 'string') return;
      const user = body.user.id;
      const message: MessageRef | undefined = body.message?.ts ? { channel, ts: body.message.ts } : undefined;
      try {
        await handlers.onAction({
          actionId: action.action_id,
          value: action.value ?? '',
          channel,
          ...(body.channel?.name ? { channelName: body.channel.name } : {}),
          user,
          ...(message ? { message } : {}),
          respond: (view) => opts.ephemeral(channel, user, view),
        });
      } catch (err) {
        opts.logger.error({ err: String(err) }, 'slack: action handler failed');
        await opts.ephemeral(channel, user, textView(APOLOGY_TEXT, 'error')).catch(() => undefined);
      }
    },
  );
}

export async function startSlackReceiver(
  opts: ReceiverOptions,
  handlers: ChatHandlers,
): Promise<StartedReceiver> {
  const receiver = buildReceiver(opts);
  const app = new App({
    token: opts.botToken,
    receiver,
    clientOptions: opts.clientOptions,
    logger: toSlackLogger(opts.logger),
    convoStore: false,
  });
  app.error(async (error) => {
    opts.logger.error({ err: error.message }, 'slack: listener failed');
  });

  listenForCommand(app, opts, handlers);
  listenForActions(app, opts, handlers);

  // Files dropped into a DM, or into a thread with a mention (offline analysis).
  if (handlers.onFiles) listenForFiles(app, handlers.onFiles, { logger: opts.logger, post: opts.post });

  const started = opts.appToken ? await app.start() : await app.start(opts.listen);
  const server = opts.appToken ? undefined : (started as Server);
  server?.prependListener('request', closeAfterOversizedBody);
  return {
    server,
    async stop() {
      server?.closeAllConnections();
      const closed = receiver instanceof SocketModeReceiver ? socketClosed(receiver) : Promise.resolve();
      await app.stop();
      await closed;
    },
  };
}
