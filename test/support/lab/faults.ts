import { type ChildProcess, spawn } from 'node:child_process';
import { type ChildRegistry, isRunning, waitForExit } from './child-registry.js';
import { createLogRing } from './log-ring.js';
import type { MemberProcess } from './member-process.js';

export interface FaultHandle {
  stop(): Promise<void>;
}

/** strace 6 prints "Process N attached with M threads"; older versions print one "Process N attached" per thread. */
const ATTACHED = /Process \d+ attached/;
const ATTACH_TIMEOUT_MS = 5000;
const DETACH_GRACE_MS = 2000;

/**
 * Delays every fsync and fdatasync of one process by `delayMicros`, as a slow disk would.
 * `-f -p` attaches to every thread (Go syncs the WAL from any of them); `-o /dev/null` keeps the
 * per-call trace out of the pipe while attach messages still go to stderr.
 */
export async function injectSlowDisk(
  strace: string,
  member: MemberProcess,
  delayMicros: number,
  registry: ChildRegistry,
): Promise<FaultHandle> {
  const pid = member.pid;
  if (pid === undefined) throw new Error(`slowDisk: member ${member.name} is not running`);
  if (!Number.isInteger(delayMicros) || delayMicros < 0) {
    throw new RangeError(`slowDisk: delayMicros must be a non-negative integer, got ${delayMicros}`);
  }
  const child = spawn(strace, straceArgs(pid, delayMicros), { stdio: ['ignore', 'ignore', 'pipe'], env: {} });
  registry.track(child);
  await waitForAttach(child, member.name);
  let stopped: Promise<void> | undefined;
  return { stop: () => (stopped ??= detach(child)) };
}

function straceArgs(pid: number, delayMicros: number): string[] {
  const syscalls = ['-e', 'trace=fdatasync,fsync'];
  const inject = [
    '-e',
    `inject=fdatasync:delay_enter=${delayMicros}`,
    '-e',
    `inject=fsync:delay_enter=${delayMicros}`,
  ];
  return ['-f', '-p', String(pid), '-o', '/dev/null', ...syscalls, ...inject];
}

function waitForAttach(child: ChildProcess, memberName: string): Promise<void> {
  const stderr = createLogRing(64 * 1024);
  return new Promise((resolve, reject) => {
    const settle = (error: Error | undefined): void => {
      clearTimeout(timer);
      child.off('error', onError).off('exit', onExit);
      child.stderr?.off('data', onData);
      if (!error) {
        resolve();
        return;
      }
      child.kill('SIGKILL');
      reject(error);
    };
    const fail = (why: string): void =>
      settle(
        new Error(
          `slowDisk: strace did not attach to member ${memberName}: ${why}; stderr: ${stderr.text()}`,
        ),
      );
    const onError = (err: Error): void => fail(err.message);
    const onExit = (code: number | null): void => fail(`strace exited with code ${code}`);
    const onData = (chunk: Buffer): void => {
      stderr.append(chunk);
      if (ATTACHED.test(stderr.text())) settle(undefined);
    };
    const timer = setTimeout(
      () => fail(`no attach message within ${ATTACH_TIMEOUT_MS} ms`),
      ATTACH_TIMEOUT_MS,
    );
    child.on('error', onError).on('exit', onExit);
    child.stderr?.on('data', onData);
  });
}

/** SIGINT lets strace detach cleanly (the tracee runs on untouched); SIGKILL only if it hangs. */
async function detach(child: ChildProcess): Promise<void> {
  if (!isRunning(child)) return;
  child.kill('SIGINT');
  const exited = waitForExit(child);
  const timedOut = await Promise.race([
    exited.then(() => false),
    sleepUnref(DETACH_GRACE_MS).then(() => true),
  ]);
  if (timedOut && isRunning(child)) child.kill('SIGKILL');
  await exited;
}

export interface CpuStarveOptions {
  runMs: number;
  stopMs: number;
  /** The loop ends itself after this long (default 5 minutes), so a forgotten stop() cannot run forever. */
  maxDurationMs?: number;
}

const DEFAULT_STARVE_MS = 5 * 60 * 1000;

/**
 * Starves a member of CPU by SIGSTOP for `stopMs`, then SIGCONT for `runMs`, repeated. It starts
 * with a stop so the effect is immediate, and stop() always leaves the member continued.
 */
export function starveCpu(member: MemberProcess, opts: CpuStarveOptions): FaultHandle {
  if (!(opts.runMs > 0 && opts.stopMs > 0)) throw new RangeError('cpuStarve: runMs and stopMs must be > 0');
  const endAt = Date.now() + (opts.maxDurationMs ?? DEFAULT_STARVE_MS);
  let timer: NodeJS.Timeout | undefined;
  let done = false;
  const finish = (): void => {
    done = true;
    clearTimeout(timer);
    member.signal('SIGCONT');
  };
  const pause = (): void => {
    if (done || Date.now() >= endAt) {
      finish();
      return;
    }
    member.signal('SIGSTOP');
    timer = setTimeout(resume, opts.stopMs).unref();
  };
  const resume = (): void => {
    member.signal('SIGCONT');
    timer = setTimeout(pause, opts.runMs).unref();
  };
  pause();
  return { stop: async () => finish() };
}

function sleepUnref(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
