import type { ChildProcess } from 'node:child_process';
import { startWatchdog } from './watchdog.js';

/**
 * Every process a lab spawns (etcd, strace, etcdctl), so destroy() can end them by PID, and a
 * host process that dies without calling destroy() still takes them along: the `exit` hook kills
 * them at once in plain Node; the watchdog also covers Jest's sandbox and a SIGKILLed host.
 */
export interface ChildRegistry {
  track(child: ChildProcess): void;
  killAll(): void;
  waitAllExited(timeoutMs: number): Promise<void>;
  dispose(): void;
}

export function createChildRegistry(labDir: string): ChildRegistry {
  const live = new Set<ChildProcess>();
  const watchdog = startWatchdog(labDir);
  // An `exit` listener must be synchronous; SIGKILL needs no waiting and also ends SIGSTOPped processes.
  const killAll = (): void => {
    for (const child of live) if (isRunning(child)) child.kill('SIGKILL');
  };
  process.on('exit', killAll);
  return {
    track(child) {
      const pid = child.pid;
      if (pid === undefined) return;
      live.add(child);
      watchdog.add(pid);
      child.once('exit', () => {
        live.delete(child);
        watchdog.remove(pid);
      });
    },
    killAll,
    async waitAllExited(timeoutMs) {
      const exited = Promise.all([...live].map((child) => waitForExit(child)));
      await Promise.race([exited, delay(timeoutMs)]);
    },
    dispose() {
      process.off('exit', killAll);
      watchdog.disarm();
    },
  };
}

/** A child that failed to spawn has no pid and never emits `exit`; it counts as not running. */
export function isRunning(child: ChildProcess): boolean {
  return child.pid !== undefined && child.exitCode === null && child.signalCode === null;
}

export function waitForExit(child: ChildProcess): Promise<void> {
  if (!isRunning(child)) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
