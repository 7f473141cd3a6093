import { spawn } from 'node:child_process';
import type { ChildRegistry } from './child-registry.js';
import { createLogRing } from './log-ring.js';

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunCommandOptions {
  timeoutMs: number;
  /** Replaces the environment entirely; omitted, the child inherits ours (needed by `which`). */
  env?: Record<string, string>;
  registry?: ChildRegistry;
}

/** Exit code when the command was killed at its deadline, as GNU timeout(1) reports it. */
export const TIMED_OUT_CODE = 124;
/** Exit code when the program could not be started, as a shell reports it. */
export const NOT_STARTED_CODE = 127;
const MAX_OUTPUT_BYTES = 8 * 1024 * 1024;

/** Runs a program to completion (or its deadline) and returns its output; never rejects. */
export function runCommand(file: string, args: string[], opts: RunCommandOptions): Promise<CommandResult> {
  const child = spawn(file, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(opts.env ? { env: opts.env } : {}),
  });
  opts.registry?.track(child);
  const stdout = createLogRing(MAX_OUTPUT_BYTES);
  const stderr = createLogRing(MAX_OUTPUT_BYTES);
  child.stdout.on('data', (chunk: Buffer) => stdout.append(chunk));
  child.stderr.on('data', (chunk: Buffer) => stderr.append(chunk));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, opts.timeoutMs);
  return new Promise((resolve) => {
    child.once('error', (err) => {
      clearTimeout(timer);
      resolve({ code: NOT_STARTED_CODE, stdout: '', stderr: `${file}: ${err.message}` });
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      const suffix = timedOut ? `\n${file} killed after ${opts.timeoutMs} ms` : '';
      resolve({
        code: timedOut ? TIMED_OUT_CODE : (code ?? 1),
        stdout: stdout.text(),
        stderr: stderr.text() + suffix,
      });
    });
  });
}
