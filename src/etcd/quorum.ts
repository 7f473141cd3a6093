/**
 * Quorum counting, shared by the rules and by anything that must not break quorum (remediation's
 * guard). Learners do not vote: they count neither toward quorum nor toward failure tolerance
 * (WEB learner.md "Raft learner"; faq.md "What is failure tolerance?").
 */
export interface VotingFlag {
  isLearner: boolean;
}

/** Quorum for n voting members is ⌊n/2⌋+1 (WEB faq.md: 3 → 2, 5 → 3). */
export function quorumOf(voters: number): number {
  return Math.floor(voters / 2) + 1;
}

export function votersAmong<T extends VotingFlag>(members: readonly T[]): T[] {
  return members.filter((m) => !m.isLearner);
}

/** How many more voters may fail before quorum is lost; negative when it is already lost. */
export function failureTolerance(voters: number, healthyVoters: number): number {
  return healthyVoters - quorumOf(voters);
}
