import { webApi } from '@slack/bolt';
import type { MessageRef } from '../adapter.js';
import type { Logger } from '../../logger.js';
import type { Metrics } from '../../metrics/metrics.js';
import type { Secret } from '../../secret.js';
import { slackCall } from './slack-errors.js';
import { toSlackLogger } from './slack-logger.js';

/** /readyz asks often (every probe period): reuse a good auth.test answer this long, a bad one less. */
const AUTH_OK_REUSE_MS = 60_000;
const AUTH_FAILED_REUSE_MS = 5000;
const AUTH_TIMEOUT_MS = 3000;

export interface SlackWebApiOptions {
  botToken: Secret;
  /** SLACK_API_URL: the Web API base, also used for Socket Mode's apps.connections.open. */
  apiUrl?: string;
  logger: Logger;
  /** Web API retries for 5xx and network errors; 429 waits for Retry-After. Default 5, 0.5-10 s apart. */
  retries?: number;
  /** Web API calls by method and outcome (429s included) on /metrics. */
  metrics?: Pick<Metrics, 'slackCall' | 'error'>;
}

export interface SlackWebApi {
  client: webApi.WebClient;
  /** The same options, for the receiver's own Bolt app. */
  clientOptions: webApi.WebClientOptions;
  /** Every Web API call: its outcome counted, its failure turned into a ChatDeliveryError. */
  call<T>(method: string, run: () => Promise<T>): Promise<T>;
  /** A message's permalink (from the workspace URL that auth.test gives once), when known. */
  linkTo(channel: string, ts: string, thread?: MessageRef): Promise<string | undefined>;
  /** Slack takes the bot token (auth.test), reused for a while. */
  authOk(): Promise<boolean>;
}

/**
 * The bot's Web API client: retries for 5xx and network errors, 429s waited out (and counted),
 * every call counted by outcome on /metrics.
 */
export function createSlackWebApi(opts: SlackWebApiOptions): SlackWebApi {
  const retries = opts.retries ?? 5;
  const clientOptions: webApi.WebClientOptions = {
    ...(opts.apiUrl ? { slackApiUrl: opts.apiUrl } : {}),
    logger: toSlackLogger(opts.logger),
    // 429: the WebClient waits Retry-After and tries again; Slack did not take the call, so it cannot repeat.
    rejectRateLimitedCalls: false,
    retryConfig: { retries, factor: 2, minTimeout: 500, maxTimeout: 10_000, randomize: true },
    // Per request; a hung request is retried like a network error.
    timeout: 30_000,
  };
  const client = new webApi.WebClient(opts.botToken.reveal(), clientOptions);
  // The WebClient waits out a 429 itself; the event is the only sign of it.
  client.on(webApi.WebClientEvent.RATE_LIMITED, (_retrySec: number, request: { url?: string }) =>
    opts.metrics?.slackCall(request.url ?? 'unknown', 'rate_limited'),
  );
  let teamUrl: Promise<string | undefined> | undefined;

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

  let auth: { ok: boolean; atMs: number } | undefined;
  const authOk = async (): Promise<boolean> => {
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
  };
  return { client, clientOptions, call, linkTo, authOk };
}
