import type { Outcome } from '../../probes/outcome.js';
import type { Evidence, MemberEvidence } from '../../probes/evidence.js';
import { sameUrl } from '../../etcd/member-ids.js';

/**
 * Voting members in the cluster: the member list's non-learners when it answered, else the
 * members we probed that are not learners. Learners never count toward quorum.
 */
export function clusterSize(evidence: Evidence): number {
  const voters = evidence.members.filter((m) => !isLearner(evidence, m)).length;
  const listed = evidence.memberList.ok ? evidence.memberList.data.filter((m) => !m.isLearner).length : 0;
  return Math.max(listed, voters);
}

/** A learner, by the member list (id or client URL), its own Status, or its health probe. */
export function isLearner(evidence: Evidence, member: MemberEvidence): boolean {
  if (member.target.isLearner) return true;
  if (member.status.ok && member.status.data.isLearner) return true;
  if (!evidence.memberList.ok) return false;
  const listed = evidence.memberList.data.find(
    (l) =>
      (member.target.id !== undefined && l.id === member.target.id) ||
      l.clientUrls.some((u) => sameUrl(u, member.target.endpoint)),
  );
  return listed?.isLearner ?? false;
}

/** The voting members we probed. */
export function votingMembers(evidence: Evidence): MemberEvidence[] {
  return evidence.members.filter((m) => !isLearner(evidence, m));
}

/** A member answered us at all (Status is answered locally, even without a leader). */
export function answered(member: MemberEvidence): boolean {
  return member.status.ok || member.health.ok;
}

/** A member takes part in consensus: it answered and it sees a leader. */
export function participating(member: MemberEvidence): boolean {
  if (member.health.ok) return true;
  return member.status.ok && member.status.data.leaderId !== '0';
}

export function failureOf(outcome: Outcome<unknown>): string | undefined {
  return outcome.ok ? undefined : outcome.failure.message;
}

/** Name of the member the majority of answering members call leader. */
export function leaderName(evidence: Evidence): string | undefined {
  const votes = new Map<string, number>();
  for (const m of evidence.members) {
    if (m.status.ok && m.status.data.leaderId !== '0') {
      votes.set(m.status.data.leaderId, (votes.get(m.status.data.leaderId) ?? 0) + 1);
    }
  }
  const [leaderId] = [...votes.entries()].sort((a, b) => b[1] - a[1])[0] ?? [];
  if (!leaderId) return undefined;
  const member = evidence.members.find(
    (m) => m.target.id === leaderId || (m.status.ok && m.status.data.memberId === leaderId),
  );
  if (member) return member.target.name;
  const listed = evidence.memberList.ok ? evidence.memberList.data.find((m) => m.id === leaderId) : undefined;
  return listed?.name ?? leaderId;
}

/** etcd labels peers by hex id (`To="8e9e05c52164694d"`); reports use member names. */
export function memberNameById(evidence: Evidence, id: string): string {
  const probed = evidence.members.find(
    (m) => m.target.id === id || (m.status.ok && m.status.data.memberId === id),
  );
  if (probed) return probed.target.name;
  const listed = evidence.memberList.ok ? evidence.memberList.data.find((m) => m.id === id) : undefined;
  return listed?.name || id;
}

/**
 * One alarm as `etcdctl alarm list` prints it, with the member's name where it is known:
 * `memberID:c9cf8b1396c30960 (etcd-1) alarm:NOSPACE`.
 */
export function alarmText(evidence: Evidence, alarm: { memberId: string; alarm: string }): string {
  const name = alarm.memberId === '0' ? undefined : memberNameById(evidence, alarm.memberId);
  const named = name && name !== alarm.memberId ? ` (${name})` : '';
  return `memberID:${alarm.memberId}${named} alarm:${alarm.alarm}`;
}
