import { readFileSync } from 'node:fs';

/** Third field of /proc/PID/stat: R running, S sleeping, T stopped. */
export function procState(pid: number): string {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] ?? '?';
}

/** SIGSTOP takes effect when the kernel next schedules the target, so a state check may need a moment. */
export async function waitForState(
  pid: number | undefined,
  state: string,
  timeoutMs: number,
): Promise<string> {
  const giveUpAt = Date.now() + timeoutMs;
  let seen = procState(pid ?? -1);
  while (seen !== state && Date.now() < giveUpAt) {
    await new Promise((resolve) => setTimeout(resolve, 5));
    seen = procState(pid ?? -1);
  }
  return seen;
}

/**
 * Resolves once `pid` is stopped: T (SIGSTOP), or t when a tracer holds it (a member run under
 * ptrace, as clockshift does). Returns the state seen last, so a test can say what it was instead.
 */
export async function waitForStopped(pid: number, timeoutMs: number): Promise<string> {
  const giveUpAt = Date.now() + timeoutMs;
  let seen = procState(pid);
  while (seen !== 'T' && seen !== 't' && Date.now() < giveUpAt) {
    await new Promise((resolve) => setTimeout(resolve, 5));
    seen = procState(pid);
  }
  return seen;
}
