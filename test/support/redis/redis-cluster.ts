import { type ChildProcess, execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { ClusterTarget } from '../../../src/config/redis-target.js';
import { allocateFreePorts, withFreshPortsOnce } from '../lab/free-ports.js';
import { killRedisServer, launchRedisServer, redisCliWith, waitForRedis } from './redis-server.js';
import type { RedisPki } from './redis-tls.js';

const run = promisify(execFile);

const MASTERS = 3;
const CREATE_TIMEOUT_MS = 30_000;
const STATE_OK_TIMEOUT_MS = 30_000;

/**
 * A real Redis Cluster on free loopback ports: three `redis-server --cluster-enabled yes` masters
 * (with `replicas: 1`, one replica each) joined by `redis-cli --cluster create`, nothing persisted,
 * their node files in a temp dir, each with its cluster bus on a free port of its own
 * (`cluster-port`, Redis 7: the default, port + 10000, may be taken or past 65535). Nodes take
 * another for failed after 2 s (`cluster-node-timeout`), and a replica then takes over.
 */
export interface RedisClusterGroup {
  readonly target: ClusterTarget;
  readonly ports: number[];
  /** Every key each master holds (`redis-cli --scan` per node), replicas left out. */
  keysByMaster(): Promise<string[][]>;
  /** The port of the master that serves `key`'s hash slot now. */
  masterOf(key: string): Promise<number>;
  /** SIGKILLs the node on `port` (a crash: nothing saved). */
  kill(port: number): Promise<void>;
  /** Resolves once another master serves `key`'s slot and the surviving nodes say cluster_state:ok. */
  waitForFailover(key: string, fromPort: number, timeoutMs: number): Promise<number>;
  destroy(): Promise<void>;
}

/** With `tls`: TLS only on every node (`--port 0`), for clients, replication and the cluster bus (`tls-cluster yes`). */
export function startRedisCluster(
  opts: { replicas?: 0 | 1; tls?: RedisPki } = {},
): Promise<RedisClusterGroup> {
  return withFreshPortsOnce(() => startClusterOnce(opts));
}

async function startClusterOnce(opts: { replicas?: 0 | 1; tls?: RedisPki }): Promise<RedisClusterGroup> {
  const tlsCli = opts.tls?.cliArgs() ?? [];
  const cli = redisCliWith(tlsCli);
  const replicas = opts.replicas ?? 0;
  const count = MASTERS * (1 + replicas);
  const all = await allocateFreePorts(count * 2, '127.0.0.1');
  const ports = all.slice(0, count);
  const busPorts = all.slice(count);
  const dir = await mkdtemp(join(tmpdir(), 'etcd-doctor-cluster-'));
  const children = new Map<number, ChildProcess>();
  const destroy = async () => {
    await Promise.all([...children.values()].map(killRedisServer));
    await rm(dir, { recursive: true, force: true });
  };
  const alive = () =>
    ports.filter((port) => children.get(port)?.exitCode === null && children.get(port)?.signalCode === null);
  try {
    // Every node that started is kept for destroy(), also when another failed (a port taken).
    const started = await Promise.allSettled(
      ports.map((port, i) =>
        launchRedisServer(nodeArgs(port, busPorts[i] ?? 0, dir, opts.tls), /Ready to accept connections/),
      ),
    );
    for (const [i, r] of started.entries())
      if (r.status === 'fulfilled') children.set(ports[i] ?? 0, r.value);
    const failed = started.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
    const addresses = ports.map((port) => `127.0.0.1:${port}`);
    const create = ['--cluster', 'create', ...addresses, '--cluster-replicas', String(replicas)];
    await run('redis-cli', [...create, '--cluster-yes', ...tlsCli], { timeout: CREATE_TIMEOUT_MS });
    await waitForRedis(
      async () => (await Promise.all(ports.map((port) => nodeReady(cli, port)))).every(Boolean),
      STATE_OK_TIMEOUT_MS,
      'the cluster did not reach cluster_state:ok (and replicas in sync) on every node',
    );
  } catch (err) {
    await destroy();
    throw err;
  }
  const masterOf = async (key: string) => {
    const [port = 0] = alive();
    const slot = Number((await cli(port, 'cluster', 'keyslot', key)).trim());
    return slotOwner(await cli(port, 'cluster', 'nodes'), slot);
  };
  return {
    target: { nodes: ports.map((port) => ({ host: '127.0.0.1', port })) },
    ports,
    async keysByMaster() {
      const [port = 0] = alive();
      const masters = mastersIn(await cli(port, 'cluster', 'nodes'));
      return Promise.all(
        masters.map(async (master) => (await cli(master, '--scan')).split('\n').filter((k) => k.length > 0)),
      );
    },
    masterOf,
    async kill(port) {
      const child = children.get(port);
      if (child) await killRedisServer(child);
    },
    async waitForFailover(key, fromPort, timeoutMs) {
      let now = fromPort;
      await waitForRedis(
        async () => {
          now = await masterOf(key);
          if (now === fromPort || now === 0) return false;
          return (await Promise.all(alive().map((port) => clusterStateOk(cli, port)))).every(Boolean);
        },
        timeoutMs,
        `no replica took over ${key}'s slot from the master on ${fromPort}`,
      );
      return now;
    },
    destroy,
  };
}

function nodeArgs(port: number, busPort: number, dir: string, tls: RedisPki | undefined): string[] {
  const listen = tls
    ? ['--port', '0', '--tls-port', String(port), ...tls.serverArgs(), '--tls-cluster', 'yes']
    : ['--port', String(port)];
  return [
    ...listen,
    ...['--bind', '127.0.0.1', '--dir', dir],
    ...['--cluster-enabled', 'yes', '--cluster-port', String(busPort)],
    ...['--cluster-config-file', `nodes-${port}.conf`, '--cluster-node-timeout', '2000'],
    ...['--appendonly', 'no', '--save', ''],
  ];
}

type Cli = ReturnType<typeof redisCliWith>;

async function clusterStateOk(cli: Cli, port: number): Promise<boolean> {
  return /cluster_state:ok/.test(await cli(port, 'cluster', 'info'));
}

/** cluster_state:ok, and a replica's link to its master is up (its copy is complete). */
async function nodeReady(cli: Cli, port: number): Promise<boolean> {
  if (!(await clusterStateOk(cli, port))) return false;
  const replication = await cli(port, 'info', 'replication');
  return /role:master/.test(replication) || /master_link_status:up/.test(replication);
}

/**
 * `CLUSTER NODES` lines: `<id> <ip:port@bus> <flags> <master> <ping> <pong> <epoch> <link> <slots…>`,
 * a slot entry being `5461` or `5461-10922`. Masters that are failed serve nothing.
 */
function liveMasters(nodes: string): Array<{ port: number; slots: string[] }> {
  return nodes
    .split('\n')
    .map((line) => line.trim().split(' '))
    .filter((f) => (f[2] ?? '').includes('master') && !(f[2] ?? '').includes('fail'))
    .map((f) => ({ port: Number(/:(\d+)@/.exec(f[1] ?? '')?.[1]), slots: f.slice(8) }));
}

function mastersIn(nodes: string): number[] {
  return liveMasters(nodes).map((m) => m.port);
}

function slotOwner(nodes: string, slot: number): number {
  const owner = liveMasters(nodes).find((m) =>
    m.slots.some((range) => {
      const [from = -1, to = from] = range.split('-').map(Number);
      return slot >= from && slot <= to;
    }),
  );
  return owner?.port ?? 0;
}
