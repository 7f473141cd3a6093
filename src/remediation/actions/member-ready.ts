import type { EtcdClients } from '../../clients/etcd-clients.js';
import type { ActionContext } from '../action.js';
import { isHealthy, type MemberState, readClusterState } from './cluster-state.js';

/**
 * A defragmented member has caught up when its raft applied index is within this many entries of
 * the leader's. Defragment blocks the member's apply loop for its duration; once it answers again it
 * replays what it missed in milliseconds on a small database. 100 entries is a few hundred
 * milliseconds of a busy control plane's writes (inference; etcd's own `etcdctl endpoint status`
 * shows the same two numbers for the same judgement).
 */
export const APPLIED_INDEX_LAG_MAX = 100;
/** How often readiness is asked (CEOP polls health every 2 s; a small database is ready in well under 1 s). */
const READY_POLL_MS = 200;

/** Why the member is not ready yet, or undefined when it is. */
export function notReady(member: MemberState | undefined, members: MemberState[]): string | undefined {
  if (!member) return 'is not in the member list';
  if (!member.reachable) return member.problem ?? 'does not answer';
  if (member.problem) return member.problem;
  const leader = members.find((m) => m.isLeader && m.reachable);
  if (!leader) return 'no member knows a leader';
  if (member.appliedIndex !== undefined && leader.appliedIndex !== undefined) {
    const lag = leader.appliedIndex - member.appliedIndex;
    if (lag > APPLIED_INDEX_LAG_MAX) return `is ${lag} entries behind the leader`;
  }
  const sick = members.filter((m) => !isHealthy(m));
  if (sick.length) return `waits for ${sick.map((m) => `${m.name} (${m.problem ?? 'alarms'})`).join(', ')}`;
  return undefined;
}

/**
 * Waits until the member just defragmented answers, knows the leader and has caught up (applied
 * index within APPLIED_INDEX_LAG_MAX of the leader's), with every member healthy: then the next one
 * may go. CEOP's fixed 36 s pause suits routine defragmentation of multi-GB databases; during NOSPACE
 * every write of the control plane fails, so `defragPauseMs` is only the upper bound of this wait,
 * and `healthWaitMs` more is allowed for a cluster that is slow to settle before it stops.
 */
export async function waitMemberReady(
  etcd: EtcdClients,
  name: string,
  ctx: Pick<ActionContext, 'now' | 'sleep' | 'settings'>,
): Promise<{ ok: boolean; line: string }> {
  const started = ctx.now();
  const limitMs = ctx.settings.defragPauseMs + ctx.settings.healthWaitMs;
  let why = 'was not checked';
  for (let round = 0; round < Math.ceil(limitMs / READY_POLL_MS) + 2; round += 1) {
    const state = await readClusterState(etcd);
    const reason = notReady(
      state.members.find((m) => m.name === name),
      state.members,
    );
    const tookS = ((ctx.now() - started) / 1000).toFixed(1);
    if (!reason)
      return { ok: true, line: `${name} ready after ${tookS} s: answers, knows the leader, caught up` };
    why = reason;
    if (ctx.now() - started >= limitMs) break;
    await ctx.sleep(READY_POLL_MS);
  }
  return {
    ok: false,
    line: `${name} was not ready within ${Math.round(limitMs / 1000)} s of its defragmentation (${why})`,
  };
}
