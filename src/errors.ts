import { redactUrlCredentials } from './secret.js';
import { boundedMessage } from './untrusted-text.js';

/** The few error codes etcd-doctor uses. Each maps to one sentence a human can act on. */
export type ErrorCode =
  | 'config_invalid'
  | 'command_invalid'
  | 'cluster_unknown'
  | 'channel_forbidden'
  | 'action_forbidden'
  | 'action_failed'
  | 'queue_unavailable'
  | 'rate_limited';

/**
 * The longest message an error carries: one that says what is wrong and what to do fits in a few
 * hundred characters, and one past this quotes its input (cut in its middle, untrusted-text.ts).
 */
export const MAX_MESSAGE_CHARS = 600;

export class EtcdDoctorError extends Error {
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    // A message may carry untrusted parts (an entry path, a bucket name): no run of it may be long.
    super(boundedMessage(message, MAX_MESSAGE_CHARS), options);
    this.name = 'EtcdDoctorError';
    this.code = code;
  }
}

/**
 * Input etcd-doctor cannot analyse, said so a human can act: a corrupt tarball, an unsupported
 * archive, a file over the limit, an empty file. `message` is the whole answer (describeError
 * passes it through as it is).
 */
export class OfflineInputError extends EtcdDoctorError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('command_invalid', message, options);
    this.name = 'OfflineInputError';
  }
}

export function isEtcdDoctorError(err: unknown): err is EtcdDoctorError {
  return err instanceof EtcdDoctorError;
}

/** The single place that turns an error into words for a human (one line, no stack, no URL password). */
export function describeError(err: unknown): string {
  if (isEtcdDoctorError(err)) return redactUrlCredentials(err.message);
  // Cut before any regex reads it: the first line of a library's message may quote a whole input.
  const text = err instanceof Error ? firstLine(err.message) : String(err).slice(0, 4 * MAX_MESSAGE_CHARS);
  return redactUrlCredentials(`unexpected error: ${boundedMessage(text, MAX_MESSAGE_CHARS)}`);
}

function firstLine(message: string): string {
  const end = message.indexOf('\n');
  return (end === -1 ? message : message.slice(0, end)).slice(0, 4 * MAX_MESSAGE_CHARS);
}
