import { ZodError } from 'zod';
import { ChatDeliveryError } from '../chat/adapter.js';
import { isEtcdDoctorError } from '../errors.js';

/** The whole job ran out of time: probes are already bounded, so another try would time out too. */
export class JobTimeoutError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JobTimeoutError';
  }
}

/**
 * Retry by type (STYLE.md "Errors"): a bad payload, bad config, an unknown cluster, a refused Slack
 * call or a timeout fail for good; a network blip, Redis reconnecting or Slack 5xx may pass.
 */
export function isTransient(err: unknown): boolean {
  if (err instanceof ChatDeliveryError) return err.transient;
  if (isEtcdDoctorError(err) || err instanceof ZodError || err instanceof JobTimeoutError) return false;
  return true;
}

export function withTimeout<T>(work: Promise<T>, timeoutMs: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new JobTimeoutError(message)), timeoutMs);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
