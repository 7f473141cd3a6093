import { rm } from 'node:fs/promises';
import { findStraceBinary } from './binaries.js';
import type { ChildRegistry } from './child-registry.js';
import type { EtcdLab } from './lab-api.js';
import { fill, fragment, type MemberStatus, readStatus, writeLoad } from './etcd-ops.js';
import { type CpuStarveOptions, type FaultHandle, injectSlowDisk, starveCpu } from './faults.js';
import { addLearner, joinExisting, restartWith, wipeMember } from './lab-learner.js';
import { type LabPki, publicTls, tlsEtcdctlArgs } from './lab-tls.js';
import type { LabConfig, LabMember } from './member-plan.js';
import { type MemberProcess, waitUntilServing } from './member-process.js';
import { type CommandResult, runCommand } from './run-command.js';

/** Everything a running lab owns; destroy() releases all of it. */
export interface LabContext {
  config: LabConfig;
  dir: string;
  registry: ChildRegistry;
  members: LabMember[];
  processes: Map<string, MemberProcess>;
  /** Member name -> etcd member ID (decimal). IDs survive restarts: they derive from the peer URLs and token. */
  memberIds: Map<string, string>;
  faults: Set<FaultHandle>;
  /** Members we SIGSTOPped, so leaderName() does not wait on a member that cannot answer. */
  stopped: Set<string>;
  /** The TLS lab's certificates; undefined for plain HTTP. */
  pki: LabPki | undefined;
  /** The cluster token, which a member added later joins with. */
  token: string;
  destroyed?: Promise<void>;
}

const RESTART_TIMEOUT_MS = 20_000;
/** A healthy member answers Status in about 1 ms; one that needs a second is as good as absent. */
const STATUS_TIMEOUT_MS = 1000;
const ETCDCTL_TIMEOUT_MS = 10_000;
const DESTROY_WAIT_MS = 5000;

export function createLabControl(ctx: LabContext): EtcdLab {
  const endpoints = ctx.members.map((m) => m.clientUrl);
  const tls = ctx.pki?.material;
  return {
    members: ctx.members,
    endpoints,
    metricsUrls: ctx.members.map((m) => m.metricsUrl),
    tls: publicTls(ctx.pki),
    addLearner: () => {
      assertAlive(ctx, 'addLearner');
      return addLearner(ctx, (args, timeoutMs) => etcdctl(ctx, args, timeoutMs));
    },
    wipe: (name) => wipeMember(ctx, name),
    join: (name, initialCluster) => {
      assertAlive(ctx, `join ${name}`);
      return joinExisting(ctx, name, initialCluster);
    },
    member: (name) => memberOf(ctx, name),
    kill: (name) => kill(ctx, name),
    stop: (name) => signalMember(ctx, name, 'SIGSTOP'),
    cont: (name) => signalMember(ctx, name, 'SIGCONT'),
    restart: (name) => restart(ctx, name),
    restartWith: (name, extraArgs) =>
      restartWith(ctx, name, extraArgs, (proc, url) =>
        waitUntilServing(proc, url, RESTART_TIMEOUT_MS, ctx.pki?.material),
      ),
    slowDisk: (name, delayMicros) => slowDisk(ctx, name, delayMicros),
    cpuStarve: (name, opts) => cpuStarve(ctx, name, opts),
    leaderName: () => leaderName(ctx),
    moveLeader: (toName) => moveLeader(ctx, toName),
    writeLoad: (opts) => writeLoad(endpoints, opts, tls),
    fill: (opts) => fill(endpoints, opts, tls),
    fragment: (opts) => fragment(endpoints, opts, tls),
    etcdctl: (args, opts) => etcdctl(ctx, args, opts?.timeoutMs ?? ETCDCTL_TIMEOUT_MS),
    logs: (name) => processOf(ctx, name).logs(),
    destroy: () => {
      ctx.destroyed ??= teardown(ctx);
      return ctx.destroyed;
    },
  };
}

function memberOf(ctx: LabContext, name: string): LabMember {
  const member = ctx.members.find((m) => m.name === name);
  if (!member) {
    const names = ctx.members.map((m) => m.name).join(', ');
    throw new Error(`unknown lab member ${name}; members are ${names}`);
  }
  return member;
}

function processOf(ctx: LabContext, name: string): MemberProcess {
  const proc = ctx.processes.get(memberOf(ctx, name).name);
  if (!proc) throw new Error(`lab member ${name} has no process`);
  return proc;
}

function assertAlive(ctx: LabContext, what: string): void {
  if (ctx.destroyed !== undefined) throw new Error(`${what}: the lab was destroyed`);
}

async function kill(ctx: LabContext, name: string): Promise<void> {
  await processOf(ctx, name).kill();
  ctx.stopped.delete(name);
}

function signalMember(ctx: LabContext, name: string, signal: 'SIGSTOP' | 'SIGCONT'): void {
  if (!processOf(ctx, name).signal(signal)) throw new Error(`${signal}: member ${name} is not running`);
  if (signal === 'SIGSTOP') ctx.stopped.add(name);
  else ctx.stopped.delete(name);
}

async function restart(ctx: LabContext, name: string): Promise<void> {
  assertAlive(ctx, `restart ${name}`);
  const proc = processOf(ctx, name);
  await proc.kill();
  ctx.stopped.delete(name);
  proc.start();
  await waitUntilServing(proc, memberOf(ctx, name).clientUrl, RESTART_TIMEOUT_MS, ctx.pki?.material);
}

async function slowDisk(ctx: LabContext, name: string, delayMicros: number): Promise<FaultHandle> {
  assertAlive(ctx, `slowDisk ${name}`);
  const strace = ctx.config.straceBinary ?? (await findStraceBinary());
  if (!strace) throw new Error('slowDisk needs strace (apt-get install strace)');
  return track(ctx, await injectSlowDisk(strace, processOf(ctx, name), delayMicros, ctx.registry));
}

function cpuStarve(ctx: LabContext, name: string, opts: CpuStarveOptions): FaultHandle {
  assertAlive(ctx, `cpuStarve ${name}`);
  return track(ctx, starveCpu(processOf(ctx, name), opts));
}

/** Remembers a fault until it is stopped, so destroy() can stop it. */
function track(ctx: LabContext, fault: FaultHandle): FaultHandle {
  ctx.faults.add(fault);
  return {
    stop: async () => {
      await fault.stop();
      ctx.faults.delete(fault);
    },
  };
}

async function leaderName(ctx: LabContext): Promise<string | undefined> {
  const asked = ctx.members.filter((m) => processOf(ctx, m.name).running && !ctx.stopped.has(m.name));
  const statuses = await Promise.all(
    asked.map((m) => readStatus(m.clientUrl, STATUS_TIMEOUT_MS, ctx.pki?.material)),
  );
  const newest = newestLeaderView(statuses);
  return newest && nameOfId(ctx, newest.leaderId);
}

/** Members can disagree for a moment around an election; the view from the highest raft term is the current one. */
function newestLeaderView(statuses: (MemberStatus | undefined)[]): MemberStatus | undefined {
  let newest: MemberStatus | undefined;
  for (const status of statuses) {
    // Leader ID 0 means "no leader known" in etcd's Status response.
    if (status && status.leaderId !== '0' && (!newest || status.raftTerm > newest.raftTerm)) newest = status;
  }
  return newest;
}

function nameOfId(ctx: LabContext, memberId: string): string | undefined {
  for (const [name, id] of ctx.memberIds) if (id === memberId) return name;
  return undefined;
}

/** move-leader must be sent to the current leader; etcdctl wants the target ID in hex. */
async function moveLeader(ctx: LabContext, toName: string): Promise<void> {
  const targetId = ctx.memberIds.get(memberOf(ctx, toName).name);
  if (!targetId) throw new Error(`moveLeader: no member ID known for ${toName}`);
  const current = await leaderName(ctx);
  if (!current) throw new Error('moveLeader: no member knows a leader');
  if (current === toName) return;
  const hexId = BigInt(targetId).toString(16);
  const res = await etcdctl(
    ctx,
    ['move-leader', hexId, `--endpoints=${memberOf(ctx, current).clientUrl}`],
    ETCDCTL_TIMEOUT_MS,
  );
  if (res.code !== 0) {
    throw new Error(
      `etcdctl move-leader ${current} -> ${toName} failed (exit ${res.code}): ${res.stderr.trim()}`,
    );
  }
}

function etcdctl(ctx: LabContext, args: string[], timeoutMs: number): Promise<CommandResult> {
  const binary = ctx.config.etcdctlBinary;
  if (!binary) return Promise.resolve({ code: 127, stdout: '', stderr: 'etcdctl binary not found' });
  const hasEndpoints = args.some((a) => a === '--endpoints' || a.startsWith('--endpoints='));
  // Global flags go first, so they cannot land after a `--` in args.
  const fullArgs = [
    ...tlsEtcdctlArgs(ctx.pki),
    ...(hasEndpoints ? [] : [`--endpoints=${ctx.members.map((m) => m.clientUrl).join(',')}`]),
    ...args,
  ];
  // A clean environment: ETCDCTL_* variables in the caller's shell must not redirect the lab's etcdctl.
  return runCommand(binary, fullArgs, { timeoutMs, env: { ETCDCTL_API: '3' }, registry: ctx.registry });
}

async function teardown(ctx: LabContext): Promise<void> {
  // Starve loops first: a late timer must not signal a PID that is about to be recycled.
  await Promise.all([...ctx.faults].map((fault) => fault.stop().catch(() => undefined)));
  ctx.faults.clear();
  ctx.registry.killAll();
  await ctx.registry.waitAllExited(DESTROY_WAIT_MS);
  ctx.registry.dispose();
  await rm(ctx.dir, { recursive: true, force: true });
}
