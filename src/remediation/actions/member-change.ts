import type { EtcdClients } from '../../clients/etcd-clients.js';
import {
  LEARNER_CAUGHT_UP_ENTRIES,
  type LearnerProgress,
  learnerProgress,
} from '../../diagnosis/support/learners.js';
import { quorumOf } from '../../etcd/quorum.js';
import type { ActionContext } from '../action.js';
import {
  type ClusterState,
  callOpts,
  isHealthy,
  type MemberState,
  readClusterStateAfterElection,
} from './cluster-state.js';

/**
 * What replace-member and promote-learner share: finding the member by name, their guards (pure, on
 * a ClusterState read right before each step), the membership calls with their deadlines, and the
 * member list as the thread ends with it. Membership changes go through raft, one at a time, and
 * need a quorum to commit (WEB runtime-configuration.md); etcd's --strict-reconfig-check refuses
 * those that would lose it (KB R2), and these guards refuse them before etcd has to.
 */

/** etcd's API takes member IDs as decimal uint64; the member list and logs show them in hex. */
export const decimalId = (hexId: string): string => BigInt(`0x${hexId}`).toString();

type Found = { member: MemberState } | { why: string };

/** The one member named `name` (the member list's name), or why it cannot be told. */
export function findMember(state: ClusterState, name: string, verb: string): Found {
  if (state.listed === false) {
    const answered = state.members.filter((m) => m.reachable).length;
    return {
      why: `refusing to ${verb} ${name}: no member answered the member list (${answered} of ${state.members.length} answered Status), so quorum cannot be shown to hold`,
    };
  }
  const matches = state.members.filter((m) => m.name === name);
  const [member] = matches;
  if (matches.length === 1 && member) return { member };
  const names = state.members.map((m) => m.name).join(', ') || 'none';
  return {
    why: `refusing to ${verb} ${name}: it matches ${matches.length ? `${matches.length} members` : 'no member'} of the member list (${names})`,
  };
}

/**
 * Why a lost voter may not be replaced now, or undefined. In order: it must be exactly one listed
 * voter; the cluster must have no learner (etcd allows one: `too many learner members`, and its
 * promotion is the next change); it must not answer (a member that runs would be told it was
 * removed, and exit); removing it must leave at least quorum of the new size healthy (etcd's own
 * IsReadyToRemoveVotingMember); and every other member must be healthy, since the new learner's
 * first act is to take the leader's snapshot, which a cluster without failure margin should not be
 * asked to send (inference from KB R2).
 */
export function replaceRefusal(state: ClusterState, name: string): string | undefined {
  const found = findMember(state, name, 'replace');
  if ('why' in found) return found.why;
  const target = found.member;
  const learners = state.members.filter((m) => m.isLearner);
  if (learners.length)
    return `refusing to replace ${name}: the cluster has a learner already (${learners.map((m) => m.name).join(', ')}); etcd allows one learner at a time, so promote or remove it first`;
  if (target.reachable)
    return `refusing to replace ${name}: it answers Status, so it is not lost; find out why it fails and restart it instead (a removed member that still runs exits with "the member has been permanently removed from the cluster")`;
  const voters = state.members.filter((m) => !m.isLearner).length;
  const quorumAfter = quorumOf(voters - 1);
  if (state.healthyVoting < quorumAfter)
    return `refusing to replace ${name}: removing it would leave ${state.healthyVoting} healthy voting member(s) of ${voters - 1}, below quorum ${quorumAfter} (KB R2)`;
  const others = state.members.filter((m) => m !== target && !isHealthy(m));
  if (others.length)
    return `refusing to replace ${name}: ${others.map((m) => `${m.name} ${m.problem ?? 'has alarms'}`).join('; ')} too; the new learner would take its snapshot from a cluster with no failure margin. Bring ${others.length === 1 ? 'it' : 'them'} back first, then replace ${name} (one member at a time)`;
  return undefined;
}

/**
 * Why a learner may not be promoted now, or undefined: it must be a learner that answers, follows
 * the leader and has caught up (support/learners.ts); and after the promotion the healthy voters
 * must still be a quorum of the larger size (etcd's IsReadyToPromoteMember counts the same).
 */
export function promoteRefusal(state: ClusterState, name: string): string | undefined {
  const found = findMember(state, name, 'promote');
  if ('why' in found) return found.why;
  const learner = found.member;
  if (!learner.isLearner) return `${name} is a voting member already; there is nothing to promote`;
  if (!learner.reachable || learner.problem)
    return `refusing to promote ${name}: it ${learner.problem ?? 'does not answer'}`;
  const progress = progressOf(state, learner);
  if (!progress) return `refusing to promote ${name}: no leader answers with its applied index`;
  if (!progress.caughtUp)
    return `refusing to promote ${name}: it is ${progress.behind} entries behind the leader (caught up within ${LEARNER_CAUGHT_UP_ENTRIES}); wait until it has caught up`;
  const voters = state.members.filter((m) => !m.isLearner).length;
  const quorumAfter = quorumOf(voters + 1);
  if (state.healthyVoting + 1 < quorumAfter)
    return `refusing to promote ${name}: with it, ${state.healthyVoting + 1} of ${voters + 1} voting members would be healthy, below quorum ${quorumAfter} (KB R2)`;
  return undefined;
}

/** How far the member's applied index is behind the leader's; undefined without both indexes. */
export function progressOf(state: ClusterState, member: MemberState): LearnerProgress | undefined {
  const leader = state.members.find((m) => m.isLeader && m.reachable);
  if (leader?.appliedIndex === undefined || member.appliedIndex === undefined) return undefined;
  return learnerProgress(member.appliedIndex, leader.appliedIndex);
}

/** A healthy voter to send membership calls to: the leader first (it proposes them anyway). */
export function healthyVoter(state: ClusterState): MemberState | undefined {
  const voters = state.members.filter((m) => !m.isLearner && isHealthy(m));
  return voters.find((m) => m.isLeader) ?? voters[0];
}

/**
 * `member list now: etcd-1 (voter, leader), etcd-2 (voter), etcd-3 (learner, applied 120 of 130)`,
 * the line a replacement or promotion ends with, whatever happened before it.
 */
export function memberListLine(state: ClusterState): string {
  if (state.listed === false) return 'member list now: no member answered it';
  const leader = state.members.find((m) => m.isLeader && m.reachable);
  const one = (m: MemberState) => {
    const role = m.isLearner ? 'learner' : 'voter';
    const lead = m.isLeader ? ', leader' : '';
    if (m.started === false) return `${m.name} (${role}, not started)`;
    if (!m.reachable) return `${m.name} (${role}, does not answer)`;
    const applied =
      m.isLearner && m.appliedIndex !== undefined && leader?.appliedIndex !== undefined
        ? `, applied ${m.appliedIndex} of ${leader.appliedIndex}`
        : '';
    return `${m.name} (${role}${lead}${applied}${m.problem ? `, ${m.problem}` : ''})`;
  };
  return `member list now: ${state.members.map(one).join(', ')}`;
}

/** How long a membership call is retried while etcd says the cluster is not ready for it. */
export const MEMBER_CHANGE_RETRY_MS = 30_000;
const RETRY_PAUSE_MS = 1000;

/**
 * Answers etcd gives while a change cannot be taken yet but soon can: members connected for less
 * than 5 s (--strict-reconfig-check: `unhealthy cluster`), a learner not yet in sync, a leader
 * election under way.
 */
export const RETRYABLE_MEMBER_ERROR =
  /unhealthy cluster|in sync with leader|leader changed|no leader|request timed out|not enough started members|deadline exceeded/i;

/** One membership step: its name, the guard asked right before every try, and how to see it already done. */
export interface MemberStep<T> {
  name: string;
  guard: (state: ClusterState) => string | undefined;
  /**
   * From the second try on: the change may have committed although its answer was lost (a deadline,
   * a leader change), so the retry first looks whether the member list already shows it done.
   */
  already?: (state: ClusterState) => T | undefined;
  /** Answers this step retries beside RETRYABLE_MEMBER_ERROR. */
  retryable?: RegExp;
}

/**
 * Reads the cluster, asks `guard` (undefined: go on), passes the lock's safe point, then makes the
 * call on a healthy voter with the action's deadline. Retried on RETRYABLE_MEMBER_ERROR for at most
 * MEMBER_CHANGE_RETRY_MS, every try guarded again right before it is sent.
 */
export async function guardedMemberCall<T>(
  etcd: EtcdClients,
  ctx: ActionContext,
  step: MemberStep<T>,
  call: (client: EtcdClients['members'][number]['admin'], opts: { deadline: Date }) => Promise<T>,
): Promise<{ ok: true; value: T } | { ok: false; why: string; refused: boolean }> {
  const giveUpAt = ctx.now() + MEMBER_CHANGE_RETRY_MS;
  for (let attempt = 1; ; attempt += 1) {
    const state = await readClusterStateAfterElection(etcd, ctx);
    const already = attempt > 1 ? step.already?.(state) : undefined;
    if (already !== undefined) return { ok: true, value: already };
    const why = step.guard(state);
    if (why) return { ok: false, why, refused: true };
    const via = healthyVoter(state);
    if (!via) return { ok: false, why: `no healthy voting member to ${step.name}`, refused: true };
    await ctx.safePoint(step.name);
    try {
      return { ok: true, value: await call(etcd.forEndpoint(via.endpoint).admin, callOpts(ctx)) };
    } catch (err) {
      const text = err instanceof Error ? err.message : String(err);
      const retry = RETRYABLE_MEMBER_ERROR.test(text) || step.retryable?.test(text) === true;
      if (!retry || ctx.now() >= giveUpAt)
        return {
          ok: false,
          why: `${step.name} failed on ${via.name} (try ${attempt}): ${text}`,
          refused: false,
        };
      await ctx.sleep(RETRY_PAUSE_MS);
    }
  }
}
