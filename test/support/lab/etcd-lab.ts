import { randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import { access, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  checkLaneVersion,
  findEtcdBinary,
  findEtcdctlBinary,
  findSiblingEtcdctl,
  resolveBinary,
} from './binaries.js';
import { createChildRegistry } from './child-registry.js';
import { allocateFreePorts } from './free-ports.js';
import type { EtcdLab } from './lab-api.js';
import { createLabControl, type LabContext } from './lab-control.js';
import { createLabPki, type LabPki } from './lab-tls.js';
import {
  type LabConfig,
  labMember,
  type MemberPlan,
  memberArgs,
  planMember,
  spawnMember,
} from './member-plan.js';
import { type MemberProcess, waitUntilHealthy } from './member-process.js';
import { readMemberIds } from './etcd-ops.js';

export { findEtcdBinary, findEtcdctlBinary } from './binaries.js';
export type { CpuStarveOptions } from './faults.js';
export type { FillOptions, WriteLoadOptions } from './etcd-ops.js';

export interface EtcdLabOptions {
  /** Members, 1..9; default 3. */
  size?: number;
  quotaBackendBytes?: number;
  /**
   * Parent of the lab's temp dir (created with mkdtemp, removed by destroy). Default: /dev/shm when
   * it is a writable folder, else os.tmpdir(). On tmpfs a member's fdatasync costs microseconds
   * whatever else the host writes, so a lab is only slow where a test injects it (strace): on the
   * shared disk of a busy CI host, an idle member's fsync p99 reached 58 ms and healthy labs came
   * out slow-disk.
   */
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
   * kubeadm's layout: https client and peer URLs with `--client-cert-auth`, certificates made
   * with openssl for this run (EC P-256, SAN = host), and /metrics on the client URL only.
   */
  tls?: boolean;
  /** With `tls`: the members' server certificates expire this many days from now (default 365). */
  serverCertDays?: number;
  /**
   * A command prefix for one member, or undefined for none: that member runs `...prefix etcdBinary
   * args`, also on restart. The prefix must exec etcd in place (as `nice`, `taskset` or
   * test/support/clock/clockshift.ts do), so `pid`, kill(), stop() and cont() still reach etcd itself.
   */
  wrap?: (member: string) => string[] | undefined;
}

export type { EtcdLab } from './lab-api.js';
export type { LabConfig, LabMember } from './member-plan.js';
export type { LabTls } from './lab-tls.js';

const START_TIMEOUT_MS = 20_000;
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
  if (!opts.etcdBinary) await checkLaneVersion(etcdBinary);
  return {
    size,
    quotaBackendBytes: opts.quotaBackendBytes,
    baseDir: opts.baseDir ?? (await defaultBaseDir()),
    etcdBinary,
    etcdctlBinary: await resolveEtcdctl(opts.etcdctlBinary, etcdBinary),
    straceBinary: opts.straceBinary,
    logger: opts.logger ?? 'zap',
    extraArgs: opts.extraArgs ?? [],
    host: opts.host ?? '127.0.0.1',
    tls: opts.tls ?? false,
    serverCertDays: opts.serverCertDays,
    wrap: opts.wrap,
  };
}

const TMPFS_DIR = '/dev/shm';

async function defaultBaseDir(): Promise<string> {
  try {
    await access(TMPFS_DIR, constants.W_OK);
    return TMPFS_DIR;
  } catch {
    return tmpdir();
  }
}

async function resolveEtcdctl(explicit: string | undefined, etcdBinary: string): Promise<string | undefined> {
  if (explicit) return resolveBinary(explicit);
  return (await findSiblingEtcdctl(etcdBinary)) ?? (await findEtcdctlBinary());
}

async function startOnce(config: LabConfig): Promise<EtcdLab> {
  const dir = await mkdtemp(join(config.baseDir, 'etcd-lab-'));
  const registry = createChildRegistry(dir);
  try {
    const pki = config.tls ? await createLabPki(dir, config.host, config.serverCertDays) : undefined;
    const ports = await allocateFreePorts(3 * config.size, config.host);
    const plans = Array.from({ length: config.size }, (_, i) =>
      planMember(config, dir, i, ports.slice(3 * i, 3 * i + 3)),
    );
    // A unique token keeps members of two labs from ever joining each other's cluster.
    const token = `etcd-lab-${randomUUID()}`;
    const processes = startMembers(config, plans, { token, pki }, registry);
    await Promise.all(
      plans.map((p) =>
        waitUntilHealthy(processOf(processes, p.name), p.clientUrl, START_TIMEOUT_MS, pki?.material),
      ),
    );
    const memberIds = await readMemberIds(
      plans.map((p) => p.clientUrl),
      pki?.material,
    );
    const members = plans.map((p) => labMember(p, () => processes.get(p.name)));
    const ctx: LabContext = {
      config,
      dir,
      registry,
      members,
      processes,
      memberIds,
      faults: new Set(),
      stopped: new Set(),
      pki,
      token,
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

function startMembers(
  config: LabConfig,
  plans: MemberPlan[],
  spec: { token: string; pki: LabPki | undefined },
  registry: LabContext['registry'],
): Map<string, MemberProcess> {
  const initialCluster = plans.map((p) => `${p.name}=${p.peerUrl}`).join(',');
  const processes = new Map<string, MemberProcess>();
  for (const plan of plans) {
    const join = { initialCluster, token: spec.token, state: 'new' as const };
    processes.set(plan.name, spawnMember(config, plan, memberArgs(config, plan, join, spec.pki), registry));
  }
  return processes;
}

function processOf(processes: Map<string, MemberProcess>, name: string): MemberProcess {
  const member = processes.get(name);
  if (!member) throw new Error(`unknown lab member ${name}`);
  return member;
}
