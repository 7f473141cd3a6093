/**
 * Resolves as `promise` does, or rejects naming `what` once `timeoutMs` has passed: a wait on an
 * event (a process's exit, a callback) gets its own bound and message, not Jest's test timeout.
 */
export async function within<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`not within ${timeoutMs} ms: ${what}`)), timeoutMs);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}
