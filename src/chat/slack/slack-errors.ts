import { webApi } from '@slack/bolt';
import { ChatDeliveryError } from '../adapter.js';

/**
 * `ok:false` codes worth another try later; every other platform error (channel_not_found,
 * invalid_blocks, not_in_channel, ...) will fail the same way again (contract §4.3-§4.5).
 */
const TRANSIENT_PLATFORM_ERRORS = new Set([
  'ratelimited',
  'rate_limited',
  'internal_error',
  'fatal_error',
  'service_unavailable',
  'request_timeout',
]);

function platformCode(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const data = (err as { data?: { error?: unknown } }).data;
  return typeof data?.error === 'string' ? data.error : undefined;
}

/** Wraps a Web API failure so the queue can tell "try later" from "give up". */
export function toDeliveryError(method: string, err: unknown): ChatDeliveryError {
  const code = (err as { code?: unknown } | null)?.code;
  if (code === webApi.ErrorCode.PlatformError) {
    const error = platformCode(err) ?? 'unknown_error';
    return new ChatDeliveryError(`Slack ${method} failed: ${error}`, {
      transient: TRANSIENT_PLATFORM_ERRORS.has(error),
      cause: err,
    });
  }
  // Network errors, HTTP 5xx after the WebClient's own retries, or a rate limit we were told to reject.
  const reason = err instanceof Error ? err.message : String(err);
  return new ChatDeliveryError(`Slack ${method} failed: ${reason}`, { transient: true, cause: err });
}

export async function slackCall<T>(method: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw toDeliveryError(method, err);
  }
}
