import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findEtcdBinary, findEtcdctlBinary, findSiblingEtcdctl, resolveBinary } from './binaries.js';
import { createChildRegistry } from './child-registry.js';
import type { CpuStarveOptions } from './faults.js';
import { allocateFreePorts } from './free-ports.js';
import { createLabControl, type LabContext } from './lab-control.js';
import { createMemberProcess, type MemberProcess, waitUntilHealthy } from './member-process.js';
import { readMemberIds, type FillOptions, type WriteLoadOptions } from './etcd-ops.js';

export { findEtcdBinary, findEtcdctlBinary } from './binaries.js';
export type { CpuStarveOptions } from './faults.js';
export type { FillOptions, WriteLoadOptions } from './etcd-ops.js';

/** One member of a lab cluster. `pid` follows the member across kill/restart; undefined while it is down. */
export interface LabMember {
  readonly name: string;
  readonly clientUrl: string;
  readonly peerUrl: string;
  /** Base URL of the member's own --listen-metrics-urls, without a path: GET `${metricsUrl}/metrics`. */
  readonly metricsUrl: string;
  readonly dataDir: string;
  readonly pid: number | undefined;
}

export interface EtcdLabOptions {
  /** Members, 1..9; default 3. */
  size?: number;
  quotaBackendBytes?: number;
  /** Parent of the lab's temp dir (which is created with mkdtemp and removed by destroy); default os.tmpdir(). */
  baseDir?: string;
  /** Path (or name on PATH) of etcd; default findEtcdBinary(). */
  etcdBinary?: string;
  /** Default: the etcdctl beside etcdBinary, else findEtcdctlBinary(). */
  etcdctlBinary?: string;
  /** Default: findStraceBinary(), looked up on the first slowDisk(). */
  straceBinary?: string;
  logger?: 'zap' | 'capnslog';
  /** Appended to every member's command line. */
  extraArgs?: string[];
  /** An IPv4 literal every port binds to; default 127.0.0.1. */
  host?: string;
  /**
   * A command prefix for one member, or undefined for none: that member runs `...prefix etcdBinary
   * args`, also on restart. The prefix must exec etcd in place (as `nice`, `taskset` or
   * test/support/clockshift do), so `pid`, kill(), stop() and cont() still reach etcd itself.
   */
  wrap?: (member: string) => string[] | undefined;
}

/** A real etcd cluster of child processes, with faults that can be injected for real. */
export interface EtcdLab {
  /** Named etcd-1..etcd-N. */
  readonly members: LabMember[];
  /** Client URLs, in member order. */
  readonly endpoints: string[];
  /** Each member's metrics base URL (no /metrics path), in member order. */
  readonly metricsUrls: string[];
  member(name: string): LabMember;
  /** SIGKILL, and wait until the process has exited. No-op if it is not running. */
  kill(name: string): Promise<void>;
  /** SIGSTOP: the member hangs; its port still accepts TCP but nothing answers. */
  stop(name: string): void;
  cont(name: string): void;
  /**
   * Starts the member again on its data dir (killing it first if it runs). Resolves when /health
   * says true, or when /version has answered for 5 s without quorum; rejects after 20 s.
   */
  restart(name: string): Promise<void>;
  /** Delays the member's fsync/fdatasync by `delayMicros` via strace; resolves once strace is attached. */
  slowDisk(name: string, delayMicros: number): Promise<{ stop(): Promise<void> }>;
  /** SIGSTOP for stopMs, SIGCONT for runMs, repeated (at most maxDurationMs, default 5 min); stop() leaves it running. */
  cpuStarve(name: string, opts: CpuStarveOptions): { stop(): Promise<void> };
  /** The leader according to the reachable member with the newest raft term; undefined when none knows one. */
  leaderName(): Promise<string | undefined>;
  moveLeader(toName: string): Promise<void>;
  writeLoad(opts: WriteLoadOptions): Promise<{ puts: number; errors: number }>;
  fill(opts: FillOptions): Promise<{ puts: number; nospace: boolean }>;
  fragment(opts: { bytes: number }): Promise<void>;
  /**
   * Runs etcdctl (ETCDCTL_API=3, clean environment) with every member's --endpoints unless `args`
   * names its own. Never rejects; code 124 means it was killed at timeoutMs (default 10 s).
   */
  etcdctl(
    args: string[],
    opts?: { timeoutMs?: number },
  ): Promise<{ code: number; stdout: string; stderr: string }>;
  /** The member's stderr (zap JSON lines), newest 2 MB, across restarts. */
  logs(name: string): string;
  /** Kills every process the lab started, stops its timers, removes its temp dir. Idempotent. */
  destroy(): Promise<void>;
}

export interface LabConfig {
  size: number;
  quotaBackendBytes: number | undefined;
  baseDir: string;
  etcdBinary: string;
  etcdctlBinary: string | undefined;
  straceBinary: string | undefined;
  logger: 'zap' | 'capnslog';
  extraArgs: string[];
  host: string;
  wrap: ((member: string) => string[] | undefined) | undefined;
}

const START_TIMEOUT_MS = 20_000;
const LOG_RING_BYTES = 2 * 1024 * 1024;
const MAX_SIZE = 9;

export async function startEtcdLab(opts: EtcdLabOptions = {}): Promise<EtcdLab> {
  const config = await resolveConfig(opts);
  try {
    return await startOnce(config);
  } catch {
    // Free ports are found, not reserved: another process may bind one before etcd does. Retry once.
    return await startOnce(config);
  }
}

async function resolveConfig(opts: EtcdLabOptions): Promise<LabConfig> {
  const size = opts.size ?? 3;
  if (!Number.isInteger(size) || size < 1 || size > MAX_SIZE) {
    throw new RangeError(`lab size must be 1..${MAX_SIZE}, got ${size}`);
  }
  const quota = opts.quotaBackendBytes;
  if (quota !== undefined && !(Number.isSafeInteger(quota) && quota > 0)) {
    throw new RangeError(`quotaBackendBytes must be a positive integer, got ${quota}`);
  }
  const etcdBinary = opts.etcdBinary ? await resolveBinary(opts.etcdBinary) : await findEtcdBinary();
  if (!etcdBinary) {
    throw new Error(
      `etcd binary not found (${opts.etcdBinary ?? 'looked in /usr/bin, /usr/local/bin and PATH'})`,
    );
  }
  return {
    size,
    quotaBackendBytes: opts.quotaBackendBytes,
    baseDir: opts.baseDir ?? tmpdir(),
    etcdBinary,
    etcdctlBinary: await resolveEtcdctl(opts.etcdctlBinary, etcdBinary),
    straceBinary: opts.straceBinary,
    logger: opts.logger ?? 'zap',
    extraArgs: opts.extraArgs ?? [],
    host: opts.host ?? '127.0.0.1',
    wrap: opts.wrap,
  };
}

async function resolveEtcdctl(explicit: string | undefined, etcdBinary: string): Promise<string | undefined> {
  if (explicit) return resolveBinary(explicit);
  return (await findSiblingEtcdctl(etcdBinary)) ?? (await findEtcdctlBinary());
}

async function startOnce(config: LabConfig): Promise<EtcdLab> {
  const dir = await mkdtemp(join(config.baseDir, 'etcd-lab-'));
  const registry = createChildRegistry(dir);
  try {
    const plans = planMembers(config, dir, await allocateFreePorts(3 * config.size, config.host));
    const processes = startMembers(config, plans, registry);
    await Promise.all(
      plans.map((p) => waitUntilHealthy(processOf(processes, p.name), p.clientUrl, START_TIMEOUT_MS)),
    );
    const memberIds = await readMemberIds(plans.map((p) => p.clientUrl));
    const members = plans.map((p) => labMember(p, processOf(processes, p.name)));
    const ctx: LabContext = {
      config,
      dir,
      registry,
      members,
      processes,
      memberIds,
      faults: new Set(),
      stopped: new Set(),
    };
    return createLabControl(ctx);
  } catch (err) {
    registry.killAll();
    await registry.waitAllExited(5000);
    registry.dispose();
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
}

type MemberPlan = Omit<LabMember, 'pid'>;

function planMembers(config: LabConfig, dir: string, ports: number[]): MemberPlan[] {
  const url = (port: number | undefined): string => `http://${config.host}:${port}`;
  return Array.from({ length: config.size }, (_, i) => ({
    name: `etcd-${i + 1}`,
    clientUrl: url(ports[3 * i]),
    peerUrl: url(ports[3 * i + 1]),
    metricsUrl: url(ports[3 * i + 2]),
    dataDir: join(dir, `etcd-${i + 1}.etcd`),
  }));
}

function startMembers(
  config: LabConfig,
  plans: MemberPlan[],
  registry: LabContext['registry'],
): Map<string, MemberProcess> {
  const initialCluster = plans.map((p) => `${p.name}=${p.peerUrl}`).join(',');
  // A unique token keeps members of two labs from ever joining each other's cluster.
  const token = `etcd-lab-${randomUUID()}`;
  const processes = new Map<string, MemberProcess>();
  for (const plan of plans) {
    const args = memberArgs(config, plan, initialCluster, token);
    const [wrapper, ...wrapperArgs] = config.wrap?.(plan.name) ?? [];
    const member = createMemberProcess({
      name: plan.name,
      binary: wrapper ?? config.etcdBinary,
      args: wrapper === undefined ? args : [...wrapperArgs, config.etcdBinary, ...args],
      registry,
      logBytes: LOG_RING_BYTES,
    });
    processes.set(plan.name, member);
    member.start();
  }
  return processes;
}

/** `--initial-cluster-state new` is ignored by etcd once the data dir holds a WAL, so restart reuses these. */
function memberArgs(config: LabConfig, plan: MemberPlan, initialCluster: string, token: string): string[] {
  const args = [
    ...['--name', plan.name, '--data-dir', plan.dataDir],
    ...['--listen-client-urls', plan.clientUrl, '--advertise-client-urls', plan.clientUrl],
    ...['--listen-peer-urls', plan.peerUrl, '--initial-advertise-peer-urls', plan.peerUrl],
    ...[
      '--initial-cluster',
      initialCluster,
      '--initial-cluster-state',
      'new',
      '--initial-cluster-token',
      token,
    ],
    ...['--listen-metrics-urls', plan.metricsUrl, '--logger', config.logger, '--log-outputs', 'stderr'],
  ];
  if (config.quotaBackendBytes !== undefined) {
    args.push('--quota-backend-bytes', String(config.quotaBackendBytes));
  }
  return [...args, ...config.extraArgs];
}

function labMember(plan: MemberPlan, proc: MemberProcess): LabMember {
  return {
    ...plan,
    get pid() {
      return proc.pid;
    },
  };
}

function processOf(processes: Map<string, MemberProcess>, name: string): MemberProcess {
  const member = processes.get(name);
  if (!member) throw new Error(`unknown lab member ${name}`);
  return member;
}
