/**
 * A clock that moves only when a test says so, for code that takes `now` and a timer: a unit test
 * then checks what happens at 99 ms and at 100 ms without waiting for either.
 */
export interface ManualClock {
  now(): number;
  /** The `setTimer` shape the code takes: runs `fn` once `ms` have passed on this clock; returns a cancel. */
  setTimer(fn: () => void, ms: number): () => void;
  /** Moves the clock `ms` forward, firing the timers that fall due in order, each followed by its promise work. */
  advance(ms: number): Promise<void>;
  /** Timers set and not yet fired or cancelled. */
  pendingTimers(): number;
}

/** Timers that fire timers: bound the firings of one advance, so a loop cannot hang the test. */
const MAX_FIRINGS_PER_ADVANCE = 10_000;

export function createManualClock(startMs = 0): ManualClock {
  let t = startMs;
  let seq = 0;
  const timers = new Map<number, { at: number; fn: () => void }>();
  const due = (until: number) => {
    let next: [number, { at: number; fn: () => void }] | undefined;
    for (const entry of timers) if (entry[1].at <= until && (!next || entry[1].at < next[1].at)) next = entry;
    return next;
  };
  return {
    now: () => t,
    setTimer(fn, ms) {
      const id = seq++;
      timers.set(id, { at: t + Math.max(0, ms), fn });
      return () => {
        timers.delete(id);
      };
    },
    async advance(ms) {
      const until = t + ms;
      for (let i = 0; i < MAX_FIRINGS_PER_ADVANCE; i += 1) {
        const next = due(until);
        if (!next) break;
        timers.delete(next[0]);
        t = Math.max(t, next[1].at);
        next[1].fn();
        await settled();
      }
      t = until;
      await settled();
    },
    pendingTimers: () => timers.size,
  };
}

/** Lets every promise callback already queued run (they all run before the next macrotask). */
export function settled(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
