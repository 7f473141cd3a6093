import { type ChildProcess, execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { ClusterTarget } from '../../src/config/redis-target.js';
import { allocateFreePorts } from './lab/free-ports.js';
import { killRedisServer, launchRedisServer, waitForRedis } from './redis-server.js';

const run = promisify(execFile);

const NODES = 3;
const CREATE_TIMEOUT_MS = 30_000;
const STATE_OK_TIMEOUT_MS = 30_000;

/**
 * A real Redis Cluster on free loopback ports: three `redis-server --cluster-enabled yes` masters
 * (no replicas, nothing persisted, their node files in a temp dir) joined by
 * `redis-cli --cluster create`, each with its cluster bus on a free port of its own
 * (`cluster-port`, Redis 7: the default, port + 10000, may be taken or past 65535).
 */
export interface RedisClusterGroup {
  readonly target: ClusterTarget;
  readonly ports: number[];
  /** Every key each node holds (`redis-cli --scan` per node), in the order of `ports`. */
  keysByNode(): Promise<string[][]>;
  destroy(): Promise<void>;
}

export async function startRedisCluster(): Promise<RedisClusterGroup> {
  const all = await allocateFreePorts(NODES * 2, '127.0.0.1');
  const ports = all.slice(0, NODES);
  const busPorts = all.slice(NODES);
  const dir = await mkdtemp(join(tmpdir(), 'etcd-doctor-cluster-'));
  const children: ChildProcess[] = [];
  const destroy = async () => {
    await Promise.all(children.map(killRedisServer));
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const started = await Promise.all(
      ports.map((port, i) =>
        launchRedisServer(nodeArgs(port, busPorts[i] ?? 0, dir), /Ready to accept connections/),
      ),
    );
    children.push(...started);
    const addresses = ports.map((port) => `127.0.0.1:${port}`);
    await run(
      'redis-cli',
      ['--cluster', 'create', ...addresses, '--cluster-replicas', '0', '--cluster-yes'],
      {
        timeout: CREATE_TIMEOUT_MS,
      },
    );
    await waitForRedis(
      async () => (await Promise.all(ports.map(clusterStateOk))).every(Boolean),
      STATE_OK_TIMEOUT_MS,
      'the cluster did not reach cluster_state:ok on every node',
    );
  } catch (err) {
    await destroy();
    throw err;
  }
  return {
    target: { nodes: ports.map((port) => ({ host: '127.0.0.1', port })) },
    ports,
    keysByNode: () =>
      Promise.all(
        ports.map(async (port) => {
          const { stdout } = await run('redis-cli', ['-h', '127.0.0.1', '-p', String(port), '--scan'], {
            timeout: 5000,
          });
          return stdout.split('\n').filter((k) => k.length > 0);
        }),
      ),
    destroy,
  };
}

function nodeArgs(port: number, busPort: number, dir: string): string[] {
  return [
    ...['--port', String(port), '--bind', '127.0.0.1', '--dir', dir],
    ...['--cluster-enabled', 'yes', '--cluster-port', String(busPort)],
    ...['--cluster-config-file', `nodes-${port}.conf`, '--cluster-node-timeout', '2000'],
    ...['--appendonly', 'no', '--save', ''],
  ];
}

async function clusterStateOk(port: number): Promise<boolean> {
  const { stdout } = await run('redis-cli', ['-h', '127.0.0.1', '-p', String(port), 'cluster', 'info'], {
    timeout: 2000,
  });
  return /cluster_state:ok/.test(stdout);
}
