/**
 * Sends only the newest progress, at most once per `minIntervalMs`, one send at a time: probes may
 * finish 30 times in a second, and chat.update allows about one call per second per channel.
 */
export interface ProgressUpdates<T> {
  push(value: T): void;
  /** Drops anything not yet sent and waits for the send in flight. */
  stop(): Promise<void>;
}

export function createProgressUpdates<T>(
  send: (value: T) => Promise<void>,
  opts: { minIntervalMs: number; now?: () => number; onError?: (err: unknown) => void },
): ProgressUpdates<T> {
  const now = opts.now ?? Date.now;
  let pending: { value: T } | undefined;
  let timer: NodeJS.Timeout | undefined;
  let inflight: Promise<void> = Promise.resolve();
  let lastSentAt = Number.NEGATIVE_INFINITY;
  let stopped = false;

  const flush = (): void => {
    timer = undefined;
    if (!pending || stopped) return;
    const { value } = pending;
    pending = undefined;
    lastSentAt = now();
    inflight = inflight.then(() => send(value)).catch((err: unknown) => opts.onError?.(err));
  };

  return {
    push(value) {
      if (stopped) return;
      pending = { value };
      if (timer) return;
      timer = setTimeout(flush, Math.max(0, lastSentAt + opts.minIntervalMs - now()));
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await inflight;
    },
  };
}
