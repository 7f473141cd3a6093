import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The entry a user runs (`etcd-doctor` on PATH is this file). */
export const CLI_BIN = fileURLToPath(new URL('../../../bin/etcd-doctor.js', import.meta.url));

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CliProcessOptions {
  /** Added to the environment. */
  env?: Record<string, string>;
  /**
   * `inherit` (default): this process's environment with NODE_OPTIONS emptied (Jest's
   * --experimental-vm-modules is not what a user runs). `clean`: PATH alone, so nothing the test
   * runner has set (a Slack token, REDIS_URL) reaches the CLI unless `env` gives it.
   */
  baseEnv?: 'inherit' | 'clean';
  /** Node flags before the entry (`--import` a preload). */
  nodeArgs?: string[];
  /** Killed past this; the run then ends with a non-zero code. */
  timeoutMs?: number;
}

/**
 * `node bin/etcd-doctor.js ...args` as a separate process, as a user runs it: its exit code (1 when
 * killed or signalled), stdout and stderr. Never rejects: a failing CLI is an answer to assert on.
 */
export function cliProcess(args: string[], opts: CliProcessOptions = {}): Promise<CliRun> {
  const base =
    opts.baseEnv === 'clean' ? { PATH: process.env.PATH ?? '' } : { ...process.env, NODE_OPTIONS: '' };
  return new Promise((resolve) => {
    execFile(
      'node',
      [...(opts.nodeArgs ?? []), CLI_BIN, ...args],
      { env: { ...base, ...opts.env }, timeout: opts.timeoutMs ?? 60_000 },
      (err, stdout, stderr) => {
        const code = err && typeof err.code === 'number' ? err.code : err ? 1 : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}
