import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { allocateFreePorts, withFreshPortsOnce } from '../lab/free-ports.js';
import { killRedisServer, launchRedisServer } from './redis-server.js';

/**
 * A `redis-server` of the test's own, on a free loopback port, so a test can crash and restart
 * Redis without touching the shared one on 6379 that other tests use. By default it persists every
 * write to an append-only file in a temp dir (`appendfsync always`: a SIGKILL loses nothing
 * acknowledged); with `persist: false` it keeps nothing, and a restart comes back empty.
 */
export interface PrivateRedis {
  readonly url: string;
  readonly port: number;
  /** SIGKILLs the server (a crash: no final save) and starts it again on the same port and files. */
  restart(): Promise<void>;
  /** SIGKILLs the server and leaves it down until `start()`. */
  stop(): Promise<void>;
  /** Starts a stopped server again on the same port and files. */
  start(): Promise<void>;
  /** Ends the server and removes its files. */
  destroy(): Promise<void>;
}

export function startPrivateRedis(opts: { persist?: boolean } = {}): Promise<PrivateRedis> {
  return withFreshPortsOnce(() => startOnce(opts));
}

async function startOnce(opts: { persist?: boolean }): Promise<PrivateRedis> {
  const [port] = await allocateFreePorts(1, '127.0.0.1');
  if (port === undefined) throw new Error('no free port for a private Redis');
  const dir = await mkdtemp(join(tmpdir(), 'etcd-doctor-redis-'));
  const persistence =
    opts.persist === false
      ? ['--appendonly', 'no', '--save', '']
      : ['--appendonly', 'yes', '--appendfsync', 'always', '--save', ''];
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, ...persistence];
  const launch = () => launchRedisServer(args, /Ready to accept connections/);
  let child: ChildProcess | undefined = await launch().catch(async (err: unknown) => {
    await rm(dir, { recursive: true, force: true });
    throw err;
  });
  const stop = async () => {
    const running = child;
    child = undefined;
    if (running) await killRedisServer(running);
  };
  const start = async () => {
    if (!child) child = await launch();
  };
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    async restart() {
      await stop();
      await start();
    },
    stop,
    start,
    async destroy() {
      await stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
