import { redactUrlCredentials } from './secret.js';

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

export class EtcdDoctorError extends Error {
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'EtcdDoctorError';
    this.code = code;
  }
}

export function isEtcdDoctorError(err: unknown): err is EtcdDoctorError {
  return err instanceof EtcdDoctorError;
}

/** The single place that turns an error into words for a human (one line, no stack, no URL password). */
export function describeError(err: unknown): string {
  if (isEtcdDoctorError(err)) return redactUrlCredentials(err.message);
  if (err instanceof Error) return redactUrlCredentials(`unexpected error: ${err.message.split('\n')[0]}`);
  return redactUrlCredentials(`unexpected error: ${String(err)}`);
}
