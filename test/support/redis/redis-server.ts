import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** How long a `redis-server` may take to say it is ready (a loaded CI host included). */
export const REDIS_READY_TIMEOUT_MS = 15_000;

/**
 * Starts `redis-server` in the foreground with `args` and resolves once its log matches `ready`
 * (read from its stdout/stderr, not polled); rejects if it exits or does not get there within
 * REDIS_READY_TIMEOUT_MS. The process is SIGKILLed if the test process exits first.
 */
export function launchRedisServer(args: string[], ready: RegExp): Promise<ChildProcess> {
  const child = spawn('redis-server', [...args, '--daemonize', 'no', '--logfile', ''], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  process.once('exit', () => child.kill('SIGKILL'));
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(`redis-server ${args.join(' ')} not ready within ${REDIS_READY_TIMEOUT_MS} ms:\n${out}`),
      );
    }, REDIS_READY_TIMEOUT_MS);
    const onData = (chunk: Buffer) => {
      out += chunk.toString('utf8');
      if (ready.test(out)) {
        clearTimeout(timer);
        child.stdout?.off('data', onData);
        child.stderr?.off('data', onData);
        child.stdout?.resume();
        child.stderr?.resume();
        resolve(child);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server ${args.join(' ')} exited with ${code}:\n${out}`));
    });
  });
}

/** SIGKILL (a crash: no final save), resolved once the process has exited. */
export async function killRedisServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGKILL');
  await exited;
}

/** Polls a condition that no event tells (another process's state, read with redis-cli), bounded by `timeoutMs`. */
export async function waitForRedis(
  check: () => Promise<boolean>,
  timeoutMs: number,
  what: string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${what} within ${timeoutMs} ms`);
}

/** How long one `redis-cli` call may take before the test says so. */
const REDIS_CLI_TIMEOUT_MS = 5000;

/** `redis-cli -h 127.0.0.1 -p <port> ...args`: its stdout (rejects on an error or a timeout). */
export function redisCli(port: number, ...args: string[]): Promise<string> {
  return redisCliWith([])(port, ...args);
}

/** redis-cli with these connection arguments first (a TLS Redis: redis-tls.ts `cliArgs()`). */
export function redisCliWith(
  connection: readonly string[],
): (port: number, ...args: string[]) => Promise<string> {
  return async (port, ...args) => {
    const where = ['-h', '127.0.0.1', '-p', String(port), ...connection];
    const { stdout } = await run('redis-cli', [...where, ...args], { timeout: REDIS_CLI_TIMEOUT_MS });
    return stdout;
  };
}
