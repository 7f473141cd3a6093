import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { allocateFreePorts } from './lab/free-ports.js';

/**
 * A `redis-server` of the test's own, on a free loopback port, persisting every write to an
 * append-only file in a temp dir (`appendfsync always`: a SIGKILL loses nothing acknowledged), so a
 * test can crash and restart Redis without touching the shared one on 6379 that other tests use.
 */
export interface PrivateRedis {
  readonly url: string;
  readonly port: number;
  /** SIGKILLs the server (a crash: no final save) and starts it again on the same port and files. */
  restart(): Promise<void>;
  /** Ends the server and removes its files. */
  destroy(): Promise<void>;
}

const READY_TIMEOUT_MS = 15_000;

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const [port] = await allocateFreePorts(1, '127.0.0.1');
  if (port === undefined) throw new Error('no free port for a private Redis');
  const dir = await mkdtemp(join(tmpdir(), 'etcd-doctor-redis-'));
  let child = await launch(port, dir);
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    async restart() {
      await kill(child);
      child = await launch(port, dir);
    },
    async destroy() {
      await kill(child);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

function launch(port: number, dir: string): Promise<ChildProcess> {
  const args = [
    ...['--port', String(port), '--bind', '127.0.0.1', '--dir', dir],
    ...['--appendonly', 'yes', '--appendfsync', 'always', '--save', ''],
    ...['--daemonize', 'no', '--logfile', ''],
  ];
  const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  process.once('exit', () => child.kill('SIGKILL'));
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`redis-server on ${port} not ready within ${READY_TIMEOUT_MS} ms:\n${out}`));
    }, READY_TIMEOUT_MS);
    const onData = (chunk: Buffer) => {
      out += chunk.toString('utf8');
      if (/Ready to accept connections/.test(out)) {
        clearTimeout(timer);
        child.stdout?.off('data', onData);
        child.stdout?.resume();
        child.stderr?.resume();
        resolve(child);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server on ${port} exited with ${code}:\n${out}`));
    });
  });
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGKILL');
  await exited;
}
