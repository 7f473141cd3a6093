import type { EtcdClients, MemberClients } from '../../clients/etcd-clients.js';
import { formatBytes } from '../../report/format.js';
import type { ActionContext } from '../action.js';
import { waitMemberReady } from './member-ready.js';

/** One member as a remediation step sees it right now (Maintenance.Status, answered locally). */
export interface MemberState {
  name: string;
  endpoint: string;
  id: string;
  isLearner: boolean;
  reachable: boolean;
  isLeader: boolean;
  dbSizeBytes: number | undefined;
  revision: number | undefined;
  /** raft applied index (Status.raftAppliedIndex, etcd >= 3.4). */
  appliedIndex: number | undefined;
  /** Status' errors, e.g. `memberID:… alarm:NOSPACE`. */
  errors: string[];
  problem: string | undefined;
}

export interface ClusterState {
  members: MemberState[];
  /** ⌊voting/2⌋+1 (etcd FAQ, "What is failure tolerance?"). */
  quorum: number;
  healthyVoting: number;
}

const hex = (id: string | number | bigint): string => BigInt(id).toString(16);
const callOpts = (ctx: Pick<ActionContext, 'now' | 'settings'>) => ({
  deadline: new Date(ctx.now() + ctx.settings.etcdCallTimeoutMs),
});
const shortOpts = (ctx: Pick<ActionContext, 'now'>) => ({ deadline: new Date(ctx.now() + 3000) });

/**
 * Member list (from the first member that answers, linearizable on etcd >= 3.5, which reads it
 * through raft; older servers ignore the flag) joined with every member's Status. When no member
 * answers the list, members are named by their URL and carry no id.
 */
export async function readClusterState(
  etcd: EtcdClients,
  ctx: Pick<ActionContext, 'now' | 'settings'>,
): Promise<ClusterState> {
  let listed: Array<{ id: string; name: string; endpoint: string; isLearner: boolean }> | undefined;
  for (const m of etcd.members) {
    try {
      const res = await m.maintenance.cluster.memberList({ linearizable: true }, shortOpts(ctx));
      listed = res.members.map((member) => {
        const urls = member.clientURLs ?? [];
        const configured = etcd.members.find((c) => urls.includes(c.endpoint))?.endpoint;
        return {
          id: hex(member.ID),
          name: member.name || hex(member.ID),
          endpoint: configured ?? urls[0] ?? '',
          isLearner: Boolean(member.isLearner),
        };
      });
      break;
    } catch {
      // Try the next member; a cluster where none answers is reported below.
    }
  }
  const base =
    listed ?? etcd.members.map((m) => ({ id: '', name: m.endpoint, endpoint: m.endpoint, isLearner: false }));
  const members = await Promise.all(base.map((m) => readMember(etcd, m, ctx)));
  const voting = members.filter((m) => !m.isLearner);
  const quorum = Math.floor(voting.length / 2) + 1;
  return { members, quorum, healthyVoting: voting.filter(isHealthy).length };
}

async function readMember(
  etcd: EtcdClients,
  m: { id: string; name: string; endpoint: string; isLearner: boolean },
  ctx: Pick<ActionContext, 'now'>,
): Promise<MemberState> {
  const state: MemberState = {
    ...m,
    reachable: false,
    isLeader: false,
    dbSizeBytes: undefined,
    revision: undefined,
    appliedIndex: undefined,
    errors: [],
    problem: undefined,
  };
  if (!m.endpoint) return { ...state, problem: 'lists no client URL' };
  try {
    const res = await etcd.forEndpoint(m.endpoint).maintenance.maintenance.status(shortOpts(ctx));
    const id = hex(res.header.member_id);
    return {
      ...state,
      id,
      reachable: true,
      isLeader: res.leader !== '0' && hex(res.leader) === id,
      dbSizeBytes: Number(res.dbSize),
      revision: Number(res.header.revision),
      appliedIndex: res.raftAppliedIndex ? Number(res.raftAppliedIndex) : undefined,
      errors: res.errors ?? [],
      problem: res.leader === '0' || !res.leader ? 'knows no leader' : undefined,
    };
  } catch (err) {
    return {
      ...state,
      problem: `did not answer Status: ${err instanceof Error ? err.message : String(err)}`,
    };
  }
}

/** Healthy for remediation: answers, knows a leader, no alarm other than NOSPACE (DEFRAG README ignores it). */
export function isHealthy(m: MemberState): boolean {
  return m.reachable && m.problem === undefined && m.errors.every((e) => /NOSPACE/i.test(e));
}

/**
 * KB R2/R3: refuse when any member is unhealthy, or when the cluster has no failure margin, i.e.
 * taking one member out would leave fewer healthy members than quorum
 * (CEOP IsQuorumFaultTolerant: `healthyMembers-quorum < 1`).
 */
export function quorumGuard(state: ClusterState, what: string): string | undefined {
  const sick = state.members.filter((m) => !isHealthy(m));
  const margin = state.healthyVoting - state.quorum;
  if (margin < 1) {
    return `refusing to ${what}: the cluster has quorum of ${state.quorum} and ${state.healthyVoting} healthy members, which is not fault tolerant; taking one member out would lose quorum${sick.length ? ` (${sick.map((m) => `${m.name} ${m.problem ?? 'has alarms'}`).join('; ')})` : ''}`;
  }
  if (sick.length) {
    return `refusing to ${what}: ${sick.map((m) => `${m.name} ${m.problem ?? `has alarms ${m.errors.join(', ')}`}`).join('; ')} (KB R3: never on an unhealthy cluster)`;
  }
  return undefined;
}

/** Followers in member order, then the leader (CEOP and etcd-defrag: leader last). */
export function defragOrder(members: MemberState[]): MemberState[] {
  return [...members.filter((m) => !m.isLeader && !m.isLearner), ...members.filter((m) => m.isLeader)];
}

/** `defragment etcd-1, etcd-3, then leader etcd-2` */
export function orderText(names: string[], leader: string | undefined): string {
  const followers = names.filter((n) => n !== leader);
  if (!leader) return followers.join(', ');
  return followers.length ? `${followers.join(', ')}, then leader ${leader}` : `leader ${leader}`;
}

export interface DefragResult {
  ok: boolean;
  lines: string[];
  order: string[];
  /** Why it stopped early. */
  stopped?: string;
}

/**
 * Defragments every voting member, one at a time, leader last; between members it waits until the
 * defragmented member is ready again (member-ready.ts), and guards quorum before each (KB R2/R3).
 */
export async function defragmentInOrder(
  etcd: EtcdClients,
  state: ClusterState,
  ctx: ActionContext,
): Promise<DefragResult> {
  const order = defragOrder(state.members);
  const lines: string[] = [];
  for (const [i, m] of order.entries()) {
    const clients = etcd.forEndpoint(m.endpoint);
    const before = m.dbSizeBytes;
    // KB R2/R3 again before every member: one may have died since the last look (during a long
    // snapshot, or the previous member's defragmentation), and taking another out then loses quorum.
    const problem = ctx.dryRun
      ? undefined
      : quorumGuard(await readClusterState(etcd, ctx), `defragment ${m.name}`);
    if (problem) return { ok: false, lines, order: order.map((o) => o.name), stopped: problem };
    if (ctx.dryRun) {
      lines.push(`${m.name}${m.isLeader ? ' (leader)' : ''}: would defragment (db ${size(before)})`);
      await ctx.progress(lines.at(-1) ?? '');
      continue;
    }
    ctx.safePoint(`defragmenting ${m.name}`);
    await ctx.progress(
      `defragmenting ${m.name}${m.isLeader ? ' (leader)' : ''} (${i + 1} of ${order.length})…`,
    );
    const started = performance.now();
    await clients.maintenance.maintenance.defragment(callOpts(ctx));
    const tookMs = performance.now() - started;
    const after = await dbSize(clients, ctx);
    lines.push(
      `${m.name}${m.isLeader ? ' (leader)' : ''}: db ${size(before)} → ${size(after)} in ${(tookMs / 1000).toFixed(1)} s`,
    );
    await ctx.progress(lines.at(-1) ?? '');
    if (i === order.length - 1) break;
    const ready = await waitMemberReady(etcd, m.name, ctx);
    if (!ready.ok) {
      const stopped = `${ready.line}; stopped before ${order[i + 1]?.name ?? 'the next member'}`;
      return { ok: false, lines, order: order.map((o) => o.name), stopped };
    }
    lines.push(ready.line);
    await ctx.progress(ready.line);
  }
  return { ok: true, lines, order: order.map((o) => o.name) };
}

async function dbSize(clients: MemberClients, ctx: Pick<ActionContext, 'now'>): Promise<number | undefined> {
  try {
    return Number((await clients.maintenance.maintenance.status(shortOpts(ctx))).dbSize);
  } catch {
    return undefined;
  }
}

function size(bytes: number | undefined): string {
  return bytes === undefined ? 'unknown' : formatBytes(bytes);
}
