/**
 * When a learner counts as caught up, shared by the diagnosis (learner-not-promoted) and the
 * remediation that promotes it, so that the Promote button and the action agree.
 *
 * etcd's own gate is looser: MemberPromote answers `can only promote a learner member which is in
 * sync with leader` until the learner's raft match index is 90 % of the leader's (ETCD34/35
 * server.go isLearnerReady, readyPercent 0.9), which on a long-lived cluster is millions of entries.
 * etcd-doctor asks for what `etcdctl endpoint status` shows an operator: the learner's applied index
 * within this many entries of the leader's, a few hundred milliseconds of a busy control plane's
 * writes (the same bound remediation uses for a defragmented member, member-ready.ts; inference).
 */
export const LEARNER_CAUGHT_UP_ENTRIES = 100;

/**
 * A learner behind for longer than this has not caught up "for long": a learner receives the
 * leader's snapshot first (the whole database, up to the 8 GiB quota etcd suggests at most, at the
 * peer link's speed) and then the entries since; at 50 MB/s even 8 GiB is under 3 minutes, so 10
 * minutes means something holds it back (inference).
 */
export const LEARNER_SLOW_AFTER_MS = 10 * 60_000;

export interface LearnerProgress {
  caughtUp: boolean;
  /** Leader's applied index minus the learner's (0 when ahead: the two Status calls are not atomic). */
  behind: number;
}

export function learnerProgress(learnerApplied: number, leaderApplied: number): LearnerProgress {
  const behind = Math.max(0, leaderApplied - learnerApplied);
  return { caughtUp: behind <= LEARNER_CAUGHT_UP_ENTRIES, behind };
}
