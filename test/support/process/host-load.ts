import { readdirSync, readFileSync } from 'node:fs';

/**
 * How long a process's threads waited for a CPU (summed over each thread's /proc/<pid>/task/<tid>/schedstat,
 * the second field: ns spent runnable on a run queue), in ms; undefined when the process is gone.
 */
export function runQueueWaitMs(pid: number): number | undefined {
  try {
    let ns = 0;
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      const fields = readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').trim().split(/\s+/);
      ns += Number(fields[1] ?? 0);
    }
    return ns / 1e6;
  } catch {
    return undefined;
  }
}

/**
 * A member is starved in a window when its threads together waited for a CPU at least this share
 * of the window (100 ms a second, summed over its threads). Measured on this machine kind (2 cores),
 * 5 s windows: idle lab members waited 2-4 % of the window with the host at load 6 from other work;
 * with 8 busy loops beside them, 22-29 %.
 */
export const STARVED_WAIT_SHARE = 0.1;

export interface StarvedMembers {
  /** The members whose own run-queue wait proves they were short of CPU in the window. */
  starved: Set<string>;
  /** Each member's run-queue wait in the window (ms), and the window, for an assertion's message. */
  waitMs: Record<string, number>;
  windowMs: number;
}

/**
 * Starts measuring each member's own run-queue wait; `stop()` says which were starved of CPU in the
 * window. A healthy lab may then be called `cpu-starvation` on exactly those members, never because
 * the host as a whole looked loaded (issue 38: a test must not pass by luck).
 */
export function watchRunQueueWait(members: ReadonlyArray<{ name: string; pid?: number | undefined }>): {
  stop(): StarvedMembers;
} {
  const started = performance.now();
  const wait = (pid: number | undefined) => (pid === undefined ? undefined : runQueueWaitMs(pid));
  const before = new Map(members.map((m) => [m.name, wait(m.pid)]));
  return {
    stop() {
      const windowMs = performance.now() - started;
      const waitMs: Record<string, number> = {};
      const starved = new Set<string>();
      for (const m of members) {
        const end = wait(m.pid);
        const start = before.get(m.name);
        if (end === undefined || start === undefined) continue;
        waitMs[m.name] = Math.round(end - start);
        if (end - start >= STARVED_WAIT_SHARE * windowMs) starved.add(m.name);
      }
      return { starved, waitMs, windowMs: Math.round(windowMs) };
    },
  };
}

/** The members a line names after `cpu-starvation` on (`etcd-1, etcd-2 and etcd-3`). */
export function starvationMembersIn(text: string): string[] {
  const named = /cpu-starvation`? on ((?:etcd-\d+(?:, | and )?)+)/.exec(text)?.[1] ?? '';
  return named.split(/, | and /).filter(Boolean);
}
