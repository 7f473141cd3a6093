import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SentinelTarget } from '../../../src/config/redis-target.js';
import { allocateFreePorts, withFreshPortsOnce } from '../lab/free-ports.js';
import {
  killRedisServer as kill,
  launchRedisServer as launch,
  redisCliWith,
  waitForRedis as waitFor,
} from './redis-server.js';
import type { RedisPki } from './redis-tls.js';

/** The master name the sentinels monitor. */
export const SENTINEL_MASTER_NAME = 'etcd-doctor-test';
const READY_TIMEOUT_MS = 15_000;

/**
 * A real Sentinel group on free loopback ports: a primary, one replica (`--replicaof`) and three
 * `redis-server --sentinel` (quorum 2, the primary is down after 1 s without an answer), none
 * persisting anything, their conf files in a temp dir. `killPrimary()` SIGKILLs the primary;
 * `waitForFailover()` returns once every sentinel names the replica as the primary.
 */
export interface SentinelGroup {
  readonly target: SentinelTarget;
  readonly primaryPort: number;
  readonly replicaPort: number;
  killPrimary(): Promise<void>;
  waitForFailover(timeoutMs: number): Promise<void>;
  destroy(): Promise<void>;
}

/**
 * With `tls`, every server and sentinel listens with TLS only (`--port 0`, `tls-port`), replicates
 * and talks to the others over TLS (`tls-replication yes`), and asks clients for a certificate.
 */
export function startSentinelGroup(opts: { tls?: RedisPki } = {}): Promise<SentinelGroup> {
  return withFreshPortsOnce(() => startGroupOnce(opts.tls));
}

async function startGroupOnce(tls: RedisPki | undefined): Promise<SentinelGroup> {
  const [primaryPort = 0, replicaPort = 0, ...sentinelPorts] = await allocateFreePorts(5, '127.0.0.1');
  const dir = await mkdtemp(join(tmpdir(), 'etcd-doctor-sentinel-'));
  const children: ChildProcess[] = [];
  const ephemeral = ['--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir];
  const listen = (port: number) =>
    tls ? ['--port', '0', '--tls-port', String(port), ...tls.serverArgs()] : ['--port', String(port)];
  const cli = redisCliWith(tls?.cliArgs() ?? []);
  try {
    children.push(await launch([...listen(primaryPort), ...ephemeral], /Ready to accept connections/));
    const replicaOf = ['--replicaof', '127.0.0.1', String(primaryPort)];
    const synced = /MASTER <-> REPLICA sync: Finished with success/;
    children.push(await launch([...listen(replicaPort), ...ephemeral, ...replicaOf], synced));
    for (const port of sentinelPorts) {
      const conf = join(dir, `sentinel-${port}.conf`);
      await writeFile(conf, sentinelConf(port, primaryPort, dir, tls));
      children.push(await launch([conf, '--sentinel'], /\+monitor master/));
    }
    await waitFor(
      () => sentinelsKnowEachOther(cli, sentinelPorts),
      READY_TIMEOUT_MS,
      'sentinels did not find each other',
    );
  } catch (err) {
    await Promise.all(children.map(kill));
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
  const [primary, ...rest] = children;
  return {
    target: {
      sentinels: sentinelPorts.map((port) => ({ host: '127.0.0.1', port })),
      name: SENTINEL_MASTER_NAME,
    },
    primaryPort,
    replicaPort,
    killPrimary: () => (primary ? kill(primary) : Promise.resolve()),
    waitForFailover: (timeoutMs) =>
      waitFor(
        async () =>
          (await Promise.all(sentinelPorts.map((port) => masterPortOf(cli, port)))).every(
            (p) => p === replicaPort,
          ),
        timeoutMs,
        `no failover to the replica on ${replicaPort}`,
      ),
    async destroy() {
      await Promise.all([primary, ...rest].filter((c) => c !== undefined).map(kill));
      await rm(dir, { recursive: true, force: true });
    },
  };
}

function sentinelConf(port: number, primaryPort: number, dir: string, tls: RedisPki | undefined): string {
  return [
    ...(tls ? ['port 0', `tls-port ${port}`, ...tls.sentinelConf()] : [`port ${port}`]),
    'bind 127.0.0.1',
    `dir ${dir}`,
    `sentinel monitor ${SENTINEL_MASTER_NAME} 127.0.0.1 ${primaryPort} 2`,
    `sentinel down-after-milliseconds ${SENTINEL_MASTER_NAME} 1000`,
    `sentinel failover-timeout ${SENTINEL_MASTER_NAME} 5000`,
    '',
  ].join('\n');
}

type Cli = ReturnType<typeof redisCliWith>;

async function sentinelsKnowEachOther(cli: Cli, ports: number[]): Promise<boolean> {
  const counts = await Promise.all(
    ports.map(async (port) => {
      const lines = (await cli(port, 'sentinel', 'master', SENTINEL_MASTER_NAME)).split('\n');
      const at = lines.indexOf('num-other-sentinels');
      return Number(lines[at + 1]);
    }),
  );
  return counts.every((n) => n === ports.length - 1);
}

async function masterPortOf(cli: Cli, sentinelPort: number): Promise<number> {
  const out = await cli(sentinelPort, 'sentinel', 'get-master-addr-by-name', SENTINEL_MASTER_NAME);
  return Number(out.trim().split('\n')[1]);
}
