import { quorumOf } from '../etcd/quorum.js';
import type { ElectionEvidence, HealthData, MemberEvidence, StatusData } from './evidence.js';
import type { Outcome } from './outcome.js';
import { isElectionError } from './probe.js';

/**
 * How long a check waits for an election to end: a killed leader gives a new one after 1.0-1.7 s
 * with etcd's default 1 s election timeout (etcd-fault-signatures.md "Leader churn"; ElectionMs
 * 1000, KB "heartbeat interval / election timeout"), and OpenShift's slower hardware profile sets
 * 2500 ms (KB F1, CEOP hwhelper.go). Never longer than the probe timeout.
 */
export const ELECTION_WAIT_MS = 3000;
/** Status is answered locally in well under a millisecond: asking every 100 ms costs nothing. */
export const ELECTION_POLL_MS = 100;

export interface ElectionOptions {
  /** Voting members in the member list (0 when it did not answer). */
  listedVoters: number;
  timeoutMs: number;
  now: () => number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  signal?: AbortSignal;
  askStatus: (member: MemberEvidence) => Promise<Outcome<StatusData>>;
  askHealth: (member: MemberEvidence) => Promise<Outcome<HealthData>>;
}

/**
 * A check that lands between a leader's loss and the next election sees what a lost quorum looks
 * like: the others answer Status with leader 0 and their reads fail (`etcdserver: leader changed`).
 * Calling that quorum-lost is a wrong verdict (the cluster is one election away from serving).
 * So when no read proved quorum and the members that answer without a leader (or whose read an
 * election cut short) are enough to form one, their Status is asked again until a quorum of them
 * agree on a leader that is not the lost one, for at most
 * ELECTION_WAIT_MS; then their reads are asked once more, to prove quorum. An election that does not
 * end in that time is left as it was seen: no leader, and the rules say what that means.
 */
export async function awaitElection(
  members: MemberEvidence[],
  opts: ElectionOptions,
): Promise<{ members: MemberEvidence[]; election?: ElectionEvidence }> {
  const seen = electionSeen(members, opts.listedVoters);
  if (!seen) return { members };
  const { answering, quorum } = seen;
  // A leader whose own Status failed is the one that was lost: agreeing on it is no new leader.
  const lost = new Set(members.flatMap((m) => (!m.status.ok && m.target.id ? [m.target.id] : [])));
  const started = opts.now();
  const until = started + Math.min(opts.timeoutMs, ELECTION_WAIT_MS);
  const latest = new Map<MemberEvidence, Outcome<StatusData>>(answering.map((m) => [m, m.status]));
  let leaderId = agreedLeader([...latest.values()], quorum, lost);
  while (!leaderId && opts.now() < until && !opts.signal?.aborted) {
    await opts.sleep(ELECTION_POLL_MS, opts.signal).catch(() => undefined);
    const again = await Promise.all(answering.map(opts.askStatus));
    again.forEach((status, i) => {
      const member = answering[i];
      if (member && status.ok) latest.set(member, status);
    });
    leaderId = agreedLeader([...latest.values()], quorum, lost);
  }
  const election: ElectionEvidence = {
    waitedMs: Math.round(opts.now() - started),
    leaderless: answering.filter((m) => m.status.ok && m.status.data.leaderId === '0').map(nameOf),
    interrupted: answering.filter(readInterrupted).map(nameOf),
  };
  if (!leaderId) return { members, election };
  const updated = await Promise.all(
    members.map(async (m) => {
      const status = latest.get(m);
      if (!status) return m;
      const health = m.health.ok ? m.health : await opts.askHealth(m);
      return { ...m, status, health: health.ok ? health : m.health };
    }),
  );
  return { members: updated, election: { ...election, leaderId } };
}

function readInterrupted(m: MemberEvidence): boolean {
  return !m.health.ok && isElectionError(m.health.failure.message);
}

function nameOf(m: MemberEvidence): string {
  return m.target.name;
}

/**
 * The members that answer, when no read proved quorum, some of them see no leader or had their
 * read cut short by an election, and they are enough to form a quorum.
 */
function electionSeen(
  members: MemberEvidence[],
  listedVoters: number,
): { answering: MemberEvidence[]; quorum: number } | undefined {
  const voters = members.filter((m) => !m.target.isLearner && !(m.status.ok && m.status.data.isLearner));
  if (voters.some((m) => m.health.ok && !m.health.data.serializable)) return undefined;
  const answering = voters.filter((m) => m.status.ok);
  const quorum = quorumOf(Math.max(listedVoters, voters.length));
  const electing = answering.some(
    (m) => (m.status.ok && m.status.data.leaderId === '0') || readInterrupted(m),
  );
  return electing && answering.length >= quorum ? { answering, quorum } : undefined;
}

/** The leader a quorum of the answers name, if any, and not one that was lost. */
function agreedLeader(
  statuses: Outcome<StatusData>[],
  quorum: number,
  lost: ReadonlySet<string>,
): string | undefined {
  const votes = new Map<string, number>();
  for (const s of statuses)
    if (s.ok && s.data.leaderId !== '0' && !lost.has(s.data.leaderId))
      votes.set(s.data.leaderId, (votes.get(s.data.leaderId) ?? 0) + 1);
  for (const [id, count] of votes) if (count >= quorum) return id;
  return undefined;
}
