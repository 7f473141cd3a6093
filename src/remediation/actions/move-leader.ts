import type { EtcdClients } from '../../clients/etcd-clients.js';
import type { ActionContext } from '../action.js';
import { type ClusterState, isHealthy, type MemberState, readClusterState } from './cluster-state.js';
import { APPLIED_INDEX_LAG_MAX } from './member-ready.js';
import { grpcDeadline } from '../../clients/grpc-deadline.js';

/**
 * etcd's MoveLeader returns once the old leader has seen the new one take over (etcdserver
 * MoveLeader polls `s.Lead() == transferee`), which takes about one election round; etcdctl gives
 * every command 5 s. 10 s leaves room for a loaded host and still bounds the call.
 */
export const MOVE_LEADER_TIMEOUT_MS = 10_000;
/** How long the members may take to agree on the new leader after MoveLeader returned. */
const SETTLE_MS = 5000;
const SETTLE_POLL_MS = 200;

export type LeaderMove =
  | { moved: true; to: string; line: string }
  | { moved: false; why: string; line: string };

/**
 * A follower that may take over: voting, healthy and caught up with the leader (applied index within
 * APPLIED_INDEX_LAG_MAX), preferring those in `prefer` (already defragmented), then the least behind.
 */
export function transfereeFor(
  leader: MemberState,
  members: MemberState[],
  prefer: readonly string[] = [],
): MemberState | undefined {
  const lag = (m: MemberState) =>
    leader.appliedIndex !== undefined && m.appliedIndex !== undefined
      ? leader.appliedIndex - m.appliedIndex
      : Number.POSITIVE_INFINITY;
  return members
    .filter((m) => m !== leader && !m.isLeader && !m.isLearner && isHealthy(m) && m.id !== '')
    .filter((m) => lag(m) <= APPLIED_INDEX_LAG_MAX)
    .sort((a, b) => Number(prefer.includes(b.name)) - Number(prefer.includes(a.name)) || lag(a) - lag(b))[0];
}

/**
 * Defragmenting the leader stalls the cluster's writes while bbolt rewrites its file
 * (gardener/etcd-backup-restore#1052): hand leadership to a caught-up follower first with
 * Maintenance.MoveLeader (sent to the leader, as etcdctl move-leader does), so the old leader is
 * defragmented as a follower. When no follower qualifies or the move fails, the caller
 * defragments the leader last, as before, and says so.
 */
export async function moveLeadership(
  etcd: EtcdClients,
  leader: MemberState,
  state: ClusterState,
  ctx: Pick<ActionContext, 'now' | 'sleep' | 'settings' | 'dryRun' | 'safePoint'>,
  prefer: readonly string[] = [],
): Promise<LeaderMove> {
  const target = transfereeFor(leader, state.members, prefer);
  const asLeader = `${leader.name} is defragmented as leader, last: the cluster's writes pause while it runs`;
  if (!target) {
    const why = 'no healthy follower has caught up with it';
    return { moved: false, why, line: `could not move leadership off ${leader.name} (${why}); ${asLeader}` };
  }
  if (ctx.dryRun)
    return {
      moved: true,
      to: target.name,
      line: `would move leadership from ${leader.name} to ${target.name} (MoveLeader) before defragmenting ${leader.name}`,
    };
  await ctx.safePoint(`moving leadership from ${leader.name} to ${target.name}`);
  const started = ctx.now();
  try {
    await etcd
      .forEndpoint(leader.endpoint)
      .admin.maintenance.moveLeader(
        { targetID: BigInt(`0x${target.id}`).toString() },
        grpcDeadline(MOVE_LEADER_TIMEOUT_MS),
      );
  } catch (err) {
    const why = `MoveLeader to ${target.name} failed: ${err instanceof Error ? err.message : String(err)}`;
    return { moved: false, why, line: `could not move leadership off ${leader.name} (${why}); ${asLeader}` };
  }
  const settled = await waitLeaderNot(etcd, leader.name, ctx);
  const tookS = ((ctx.now() - started) / 1000).toFixed(1);
  if (!settled.ok) {
    const why = `after MoveLeader ${settled.why}`;
    return { moved: false, why, line: `could not move leadership off ${leader.name} (${why}); ${asLeader}` };
  }
  return {
    moved: true,
    to: settled.leader,
    line: `moved leadership from ${leader.name} to ${settled.leader} in ${tookS} s (MoveLeader), so ${leader.name} is defragmented as a follower and writes go on`,
  };
}

/** Polls until a quorum-visible leader other than `old` is known (bounded by SETTLE_MS). */
async function waitLeaderNot(
  etcd: EtcdClients,
  old: string,
  ctx: Pick<ActionContext, 'now' | 'sleep' | 'settings'>,
): Promise<{ ok: true; leader: string } | { ok: false; why: string }> {
  const started = ctx.now();
  let why = 'no member named a leader';
  for (let round = 0; round < Math.ceil(SETTLE_MS / SETTLE_POLL_MS) + 1; round += 1) {
    const state = await readClusterState(etcd);
    const leader = state.members.find((m) => m.isLeader);
    if (leader && leader.name !== old) return { ok: true, leader: leader.name };
    why = leader ? `${old} is still the leader` : 'no member named a leader';
    if (ctx.now() - started >= SETTLE_MS) break;
    await ctx.sleep(SETTLE_POLL_MS);
  }
  return { ok: false, why: `${why} within ${SETTLE_MS / 1000} s` };
}
