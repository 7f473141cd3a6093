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
  opts: {
    minIntervalMs: number;
    now?: () => number;
    /** Runs `fn` after `ms` and returns what cancels it. Default setTimeout (a test passes a manual clock's). */
    setTimer?: (fn: () => void, ms: number) => () => void;
    onError?: (err: unknown) => void;
  },
): ProgressUpdates<T> {
  const now = opts.now ?? Date.now;
  const setTimer = opts.setTimer ?? realTimer;
  let pending: { value: T } | undefined;
  let cancelTimer: (() => void) | undefined;
  let inflight: Promise<void> = Promise.resolve();
  let lastSentAt = Number.NEGATIVE_INFINITY;
  let stopped = false;

  const flush = (): void => {
    cancelTimer = undefined;
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
      if (cancelTimer) return;
      cancelTimer = setTimer(flush, Math.max(0, lastSentAt + opts.minIntervalMs - now()));
    },
    async stop() {
      stopped = true;
      cancelTimer?.();
      await inflight;
    },
  };
}

function realTimer(fn: () => void, ms: number): () => void {
  const timer = setTimeout(fn, ms);
  return () => clearTimeout(timer);
}
