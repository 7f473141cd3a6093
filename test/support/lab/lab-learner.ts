import { rm } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { readStatus } from './etcd-ops.js';
import { allocateFreePorts } from './free-ports.js';
import { logTail, type MemberProcess } from './member-process.js';
import type { LabContext } from './lab-control.js';
import { type LabMember, labMember, memberArgs, planMember, spawnMember } from './member-plan.js';
import type { CommandResult } from './run-command.js';

type Etcdctl = (args: string[], timeoutMs: number) => Promise<CommandResult>;

/**
 * For its first seconds a cluster refuses membership changes with `etcdserver: unhealthy cluster`
 * (--strict-reconfig-check: members must have been connected for a while), and a change right
 * after another can answer `too many learner members` or time out. Retry that long.
 */
const MEMBER_ADD_DEADLINE_MS = 30_000;
const MEMBER_ADD_RETRY_MS = 500;
const RETRYABLE = /unhealthy cluster|request timed out|leader changed|context deadline exceeded/i;
const SYNC_TIMEOUT_MS = 20_000;
const ETCDCTL_TIMEOUT_MS = 10_000;

/** `member add --learner`, then the new member starts with `--initial-cluster-state existing`. */
export async function addLearner(ctx: LabContext, etcdctl: Etcdctl): Promise<LabMember> {
  const index = ctx.members.length;
  const plan = planMember(ctx.config, ctx.dir, index, await allocateFreePorts(3, ctx.config.host));
  const voters = ctx.members.filter((m) => ctx.processes.get(m.name)?.running).map((m) => m.clientUrl);
  await memberAdd(etcdctl, plan.name, plan.peerUrl, voters);
  const initialCluster = [...ctx.members, plan].map((m) => `${m.name}=${m.peerUrl}`).join(',');
  const join = { initialCluster, token: ctx.token, state: 'existing' as const };
  const proc = spawnMember(ctx.config, plan, memberArgs(ctx.config, plan, join, ctx.pki), ctx.registry);
  ctx.processes.set(plan.name, proc);
  const member = labMember(plan, () => ctx.processes.get(plan.name));
  ctx.members.push(member);
  const memberId = await waitUntilFollowing(ctx, plan.clientUrl, proc);
  ctx.memberIds.set(plan.name, memberId);
  return member;
}

/** A member whose disk is gone: killed, and its data dir deleted. */
export async function wipeMember(ctx: LabContext, name: string): Promise<void> {
  const plan = planOf(ctx, name);
  await ctx.processes.get(name)?.kill();
  ctx.stopped.delete(name);
  await rm(plan.dataDir, { recursive: true, force: true });
}

/**
 * Starts `name` (same name, URLs and data dir path) as a member someone added back: an empty data
 * dir, `--initial-cluster-state existing` and the caller's `--initial-cluster`, as an operator
 * follows the instructions etcd-doctor posts. Resolves once it follows a leader; its new member ID
 * (MemberAdd picks a fresh one) replaces the old in memberIds.
 */
export async function joinExisting(ctx: LabContext, name: string, initialCluster: string): Promise<void> {
  const plan = planOf(ctx, name);
  if (ctx.processes.get(name)?.running) throw new Error(`join ${name}: it is still running; wipe it first`);
  await rm(plan.dataDir, { recursive: true, force: true });
  const join = { initialCluster, token: ctx.token, state: 'existing' as const };
  const proc = spawnMember(ctx.config, plan, memberArgs(ctx.config, plan, join, ctx.pki), ctx.registry);
  ctx.processes.set(name, proc);
  ctx.memberIds.set(name, await waitUntilFollowing(ctx, plan.clientUrl, proc));
}

/**
 * Starts `name` again on its data dir with its usual flags plus `extraArgs` (`--force-new-cluster`
 * for a recovery), as an operator edits a unit or a static pod manifest; `[]` starts it as usual.
 * Resolves once it serves its client URL.
 */
export async function restartWith(
  ctx: LabContext,
  name: string,
  extraArgs: string[],
  waitServing: (proc: MemberProcess, clientUrl: string) => Promise<void>,
): Promise<void> {
  const plan = planOf(ctx, name);
  await ctx.processes.get(name)?.kill();
  ctx.stopped.delete(name);
  const initialCluster = ctx.members.map((m) => `${m.name}=${m.peerUrl}`).join(',');
  const join = { initialCluster, token: ctx.token, state: 'new' as const };
  const args = [...memberArgs(ctx.config, plan, join, ctx.pki), ...extraArgs];
  const proc = spawnMember(ctx.config, plan, args, ctx.registry);
  ctx.processes.set(name, proc);
  await waitServing(proc, plan.clientUrl);
}

function planOf(ctx: LabContext, name: string): LabMember {
  const plan = ctx.members.find((m) => m.name === name);
  if (!plan)
    throw new Error(`unknown lab member ${name}; members are ${ctx.members.map((m) => m.name).join(', ')}`);
  return plan;
}

async function memberAdd(etcdctl: Etcdctl, name: string, peerUrl: string, endpoints: string[]) {
  const giveUpAt = Date.now() + MEMBER_ADD_DEADLINE_MS;
  const args = [`--endpoints=${endpoints.join(',')}`, 'member', 'add', name, '--learner'];
  for (;;) {
    const res = await etcdctl([...args, `--peer-urls=${peerUrl}`], ETCDCTL_TIMEOUT_MS);
    if (res.code === 0) return;
    if (!RETRYABLE.test(res.stderr) || Date.now() >= giveUpAt) {
      throw new Error(`etcdctl member add ${name} --learner failed (exit ${res.code}): ${res.stderr.trim()}`);
    }
    await sleep(MEMBER_ADD_RETRY_MS);
  }
}

/**
 * On a loaded CI host a joining learner sometimes exits in its first seconds (seen once in three
 * full runs); started again on its data dir, it joins. At most this many restarts, each said.
 */
const JOIN_RESTARTS = 2;

/** A learner's /health fails by design (it serves no linearizable read); its Status names a leader once it follows. */
async function waitUntilFollowing(ctx: LabContext, clientUrl: string, proc: MemberProcess): Promise<string> {
  const giveUpAt = Date.now() + SYNC_TIMEOUT_MS;
  let restarts = 0;
  while (Date.now() < giveUpAt) {
    if (!proc.running) {
      if (restarts >= JOIN_RESTARTS)
        throw new Error(`the learner at ${clientUrl} exited while joining${logTail(proc)}`);
      restarts += 1;
      process.stderr.write(
        `lab: the learner at ${clientUrl} exited while joining; starting it again${logTail(proc)}\n`,
      );
      proc.start();
    }
    const status = await readStatus(clientUrl, 1000, ctx.pki?.material);
    if (status && status.leaderId !== '0') return status.memberId;
    await sleep(200);
  }
  throw new Error(
    `the learner at ${clientUrl} did not follow a leader within ${SYNC_TIMEOUT_MS} ms${logTail(proc)}`,
  );
}
