import type { EtcdClients, MemberClients } from '../../clients/etcd-clients.js';
import { formatBytes } from '../../format.js';
import type { ActionContext } from '../action.js';
import {
  type ClusterState,
  callOpts,
  type MemberState,
  quorumGuard,
  readClusterState,
  shortOpts,
} from './cluster-state.js';
import { defragGain, type DefragThresholds, smallGain } from './defrag-gain.js';
import { waitMemberReady } from './member-ready.js';
import { type LeaderMove, moveLeadership } from './move-leader.js';

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

export interface DefragOptions {
  /** Skip a member whose defragmentation would free less than these; undefined: every member (NOSPACE recovery). */
  thresholds?: DefragThresholds;
  /** Move leadership to a caught-up follower before the leader's own defragmentation (move-leader.ts). */
  moveLeader?: boolean;
  /** Epoch ms: no member's defragmentation starts at or after it (a maintenance window's close). */
  stopAtMs?: number;
}

export interface DefragResult {
  ok: boolean;
  lines: string[];
  order: string[];
  /** The members defragmented (or, in a dry run, that would be), in order. */
  defragmented: string[];
  /** The members skipped for little gain. */
  skipped: string[];
  /** The leader's move before its defragmentation, when one was tried. */
  leaderMove?: LeaderMove & { from: string };
  /** Why it stopped early. */
  stopped?: string;
}

/**
 * Defragments the voting members one at a time, followers first: before each, the member's gain is
 * read again (skipped when small, with `thresholds`), a leader hands leadership to a caught-up
 * follower first (with `moveLeader`; else it goes last, as leader), and the quorum guard runs with
 * nothing awaited between it and Defragment (KB R2/R3). Between members it waits until the
 * defragmented one is ready again (member-ready.ts).
 */
export async function defragmentInOrder(
  etcd: EtcdClients,
  state: ClusterState,
  ctx: ActionContext,
  opts: DefragOptions = {},
): Promise<DefragResult> {
  const order = defragOrder(state.members);
  const result: DefragResult = {
    ok: true,
    lines: [],
    order: order.map((o) => o.name),
    defragmented: [],
    skipped: [],
  };
  // Progress never blocks the action (the run sends its edits in order, each with a deadline).
  const progress = (line: string) => void ctx.progress(line);
  const note = (line: string) => {
    result.lines.push(line);
    progress(line);
  };
  for (const [i, planned] of order.entries()) {
    const fresh = i === 0 ? state : await readClusterState(etcd);
    const m = fresh.members.find((x) => x.name === planned.name) ?? planned;
    if (opts.stopAtMs !== undefined && ctx.now() >= opts.stopAtMs)
      return stop(
        result,
        `the maintenance window closed at ${new Date(opts.stopAtMs).toISOString()}, before ${m.name}`,
      );
    const small =
      opts.thresholds && smallGain(defragGain(m.dbSizeBytes, m.dbSizeInUseBytes), opts.thresholds);
    if (small) {
      result.skipped.push(m.name);
      note(`${m.name}${m.isLeader ? ' (leader)' : ''}: skipped: ${small}`);
      continue;
    }
    if (opts.moveLeader && m.isLeader) {
      const move = await moveLeadership(etcd, m, fresh, ctx, result.defragmented);
      result.leaderMove = { ...move, from: m.name };
      note(move.line);
    }
    const step = await defragmentOne(etcd, m, ctx, progress, `${i + 1} of ${order.length}`);
    if (!step.ok) return stop(result, step.line);
    result.defragmented.push(m.name);
    note(step.line);
    if (ctx.dryRun || i === order.length - 1) continue;
    const ready = await waitMemberReady(etcd, m.name, ctx);
    if (!ready.ok)
      return stop(result, `${ready.line}; stopped before ${order[i + 1]?.name ?? 'the next member'}`);
    note(ready.line);
  }
  return result;
}

function stop(result: DefragResult, why: string): DefragResult {
  return { ...result, ok: false, stopped: why };
}

/**
 * One member: the quorum guard right before Defragment, nothing but the lock's check awaited in
 * between: a member may have died since the last look (during a long snapshot, or the previous
 * member's defragmentation), and another action may hold the cluster now.
 */
async function defragmentOne(
  etcd: EtcdClients,
  planned: MemberState,
  ctx: ActionContext,
  progress: (line: string) => void,
  position: string,
): Promise<{ ok: boolean; line: string }> {
  const gain = defragGain(planned.dbSizeBytes, planned.dbSizeInUseBytes);
  const frees = gain ? `, frees ${formatBytes(gain.freeBytes)}` : '';
  if (ctx.dryRun)
    return { ok: true, line: `${planned.name}: would defragment (db ${size(planned.dbSizeBytes)}${frees})` };
  progress(`defragmenting ${planned.name} (${position})…`);
  const state = await readClusterState(etcd);
  const problem = quorumGuard(state, `defragment ${planned.name}`);
  if (problem) return { ok: false, line: problem };
  await ctx.safePoint(`defragmenting ${planned.name}`);
  const m = state.members.find((x) => x.name === planned.name) ?? planned;
  const clients = etcd.forEndpoint(m.endpoint);
  const started = performance.now();
  await clients.admin.maintenance.defragment(callOpts(ctx));
  const tookMs = performance.now() - started;
  const after = await dbSize(clients);
  return {
    ok: true,
    line: `${m.name}${m.isLeader ? ' (leader)' : ''}: db ${size(m.dbSizeBytes)} → ${size(after)} in ${(tookMs / 1000).toFixed(1)} s`,
  };
}

async function dbSize(clients: MemberClients): Promise<number | undefined> {
  try {
    return Number((await clients.admin.maintenance.status(shortOpts())).dbSize);
  } catch {
    return undefined;
  }
}

function size(bytes: number | undefined): string {
  return bytes === undefined ? 'unknown' : formatBytes(bytes);
}
