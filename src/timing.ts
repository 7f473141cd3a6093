/**
 * Waiting, bounded: the one copy of each time helper (sleep, a deadline with a fallback, a race
 * against an abort signal). A job's own timeout, which fails the job, is queue/retry-policy.ts
 * withTimeout.
 */

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** `work`'s value, or `fallback()` when it takes longer than `ms` (or fails). */
export async function withDeadline<T, F>(work: Promise<T>, ms: number, fallback: () => F): Promise<T | F> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<F>((resolve) => {
    timer = setTimeout(() => resolve(fallback()), ms);
  });
  try {
    return await Promise.race([work.catch((): F => fallback()), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** `work`, or a rejection with the signal's reason as soon as it aborts (work itself runs out its own deadlines). */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** Resolves when `signal` aborts (at once if it already has); never, without a signal. */
export function whenAborted(signal: AbortSignal | undefined): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal?.aborted) resolve();
    signal?.addEventListener('abort', () => resolve(), { once: true });
  });
}
