import type { EtcdClients } from '../../clients/etcd-clients.js';
import { quorumOf, votersAmong } from '../../etcd/quorum.js';
import type { ActionContext } from '../action.js';
import { grpcDeadline, ownDeadlineProblem } from '../../clients/grpc-deadline.js';

/** One member as a remediation step sees it right now (Maintenance.Status, answered locally). */
export interface MemberState {
  name: string;
  endpoint: string;
  id: string;
  isLearner: boolean;
  /** The member list's peer URLs; absent when no member answered the list. */
  peerUrls?: string[];
  /** False while a member added to the list has not started (etcd lists it with no name and no client URL). */
  started?: boolean;
  reachable: boolean;
  isLeader: boolean;
  /** The leader this member follows (Status.leader, hex); undefined when it knows none or did not answer. */
  leaderId?: string;
  dbSizeBytes: number | undefined;
  /** Status.dbSizeInUse (etcd >= 3.4): the pages in use; the rest a defragmentation returns. */
  dbSizeInUseBytes: number | undefined;
  revision: number | undefined;
  /** raft applied index (Status.raftAppliedIndex, etcd >= 3.4). */
  appliedIndex: number | undefined;
  /** Status' errors, e.g. `memberID:… alarm:NOSPACE`. */
  errors: string[];
  problem: string | undefined;
  /**
   * Set when etcd-doctor could not ask this member at all (its own deadline had passed: clients/
   * grpc-deadline.ts ownDeadlineProblem): nothing is known of the member, and no guard may count it.
   */
  notAsked?: string;
}

export interface ClusterState {
  members: MemberState[];
  /** ⌊voting/2⌋+1 (etcd FAQ, "What is failure tolerance?"). */
  quorum: number;
  healthyVoting: number;
  /** A member answered the member list; without it, members are the configured endpoints, named by URL. */
  listed?: boolean;
}

const hex = (id: string | number | bigint): string => BigInt(id).toString(16);
export const callOpts = (ctx: Pick<ActionContext, 'settings'>) =>
  grpcDeadline(ctx.settings.etcdCallTimeoutMs);
/** Member list and Status: answered locally, so a member that takes longer is not well. */
const SHORT_CALL_MS = 3000;
export const shortOpts = () => grpcDeadline(SHORT_CALL_MS);

/**
 * Member list (from the first member that answers, linearizable on etcd >= 3.5, which reads it
 * through raft; older servers ignore the flag) joined with every member's Status. When no member
 * answers the list, members are named by their URL and carry no id.
 */
export async function readClusterState(etcd: EtcdClients): Promise<ClusterState> {
  let listed: ListedMember[] | undefined;
  for (const m of etcd.members) {
    try {
      const res = await m.admin.cluster.memberList({ linearizable: true }, shortOpts());
      listed = res.members.map((member) => {
        const urls = member.clientURLs ?? [];
        const configured = etcd.members.find((c) => urls.includes(c.endpoint))?.endpoint;
        return {
          id: hex(member.ID),
          name: member.name || hex(member.ID),
          endpoint: configured ?? urls[0] ?? '',
          isLearner: Boolean(member.isLearner),
          peerUrls: member.peerURLs ?? [],
          // KB: "If the member is not started, the name will be an empty string" (rpc.proto).
          started: Boolean(member.name) || urls.length > 0,
        };
      });
      break;
    } catch {
      // Try the next member; a cluster where none answers is reported below.
    }
  }
  const base =
    listed ?? etcd.members.map((m) => ({ id: '', name: m.endpoint, endpoint: m.endpoint, isLearner: false }));
  const members = await Promise.all(base.map((m) => readMember(etcd, m)));
  const voting = votersAmong(members);
  return {
    members,
    quorum: quorumOf(voting.length),
    healthyVoting: voting.filter(isHealthy).length,
    listed: listed !== undefined,
  };
}

/** How long a membership step waits for an election in progress before it judges the cluster. */
const ELECTION_WAIT_MS = 10_000;
const ELECTION_POLL_MS = 500;

/**
 * The cluster state, once no member that answers is between leaders: right after the leader is
 * lost (the member being replaced was the leader) the others know no leader until they elect one,
 * which takes an election timeout or a few (1 s by default, randomised; etcd tuning guide). A
 * guard that read that moment would refuse ("knows no leader") a change that is safe a second
 * later. It reads again, every ELECTION_POLL_MS for at most ELECTION_WAIT_MS; after that the state
 * is what it is, and the guard judges it.
 */
export async function readClusterStateAfterElection(
  etcd: EtcdClients,
  ctx: Pick<ActionContext, 'now' | 'sleep'>,
): Promise<ClusterState> {
  const giveUpAt = ctx.now() + ELECTION_WAIT_MS;
  let state = await readClusterState(etcd);
  for (let read = 1; read < ELECTION_WAIT_MS / ELECTION_POLL_MS && ctx.now() < giveUpAt; read += 1) {
    if (!betweenLeaders(state)) return state;
    await ctx.sleep(ELECTION_POLL_MS);
    state = await readClusterState(etcd);
  }
  return state;
}

/**
 * A member that answers knows no leader, or follows one that does not answer: the leader was just
 * lost, and the others elect a new one after an election timeout (until then they still follow the
 * dead one, and a membership change sent through them is forwarded to it and never applied: it
 * waited out its whole 60 s deadline). Without a quorum of voters answering, no election is coming.
 */
function betweenLeaders(state: ClusterState): boolean {
  const answering = new Set(state.members.filter((m) => m.reachable).map((m) => m.id));
  // An election needs a quorum of voters: with fewer answering, none is coming, and there is no wait.
  const canElect = votersAmong(state.members).filter((m) => m.reachable).length >= state.quorum;
  return (
    canElect &&
    state.members.some(
      (m) =>
        m.reachable &&
        (m.problem === 'knows no leader' || (m.leaderId !== undefined && !answering.has(m.leaderId))),
    )
  );
}

interface ListedMember {
  id: string;
  name: string;
  endpoint: string;
  isLearner: boolean;
  peerUrls?: string[];
  started?: boolean;
}

async function readMember(etcd: EtcdClients, m: ListedMember): Promise<MemberState> {
  const state: MemberState = {
    ...m,
    reachable: false,
    isLeader: false,
    dbSizeBytes: undefined,
    dbSizeInUseBytes: undefined,
    revision: undefined,
    appliedIndex: undefined,
    errors: [],
    problem: undefined,
  };
  if (!m.endpoint)
    return { ...state, problem: m.started === false ? 'has not started' : 'lists no client URL' };
  const started = performance.now();
  try {
    const res = await etcd.forEndpoint(m.endpoint).admin.maintenance.status(shortOpts());
    const id = hex(res.header.member_id);
    return {
      ...state,
      id,
      reachable: true,
      isLeader: res.leader !== '0' && hex(res.leader) === id,
      ...(res.leader && res.leader !== '0' ? { leaderId: hex(res.leader) } : {}),
      dbSizeBytes: Number(res.dbSize),
      // 3.3 and older do not send it (0 on the wire): unknown, not "nothing in use".
      dbSizeInUseBytes: Number(res.dbSizeInUse) > 0 ? Number(res.dbSizeInUse) : undefined,
      revision: Number(res.header.revision),
      appliedIndex: res.raftAppliedIndex ? Number(res.raftAppliedIndex) : undefined,
      errors: res.errors ?? [],
      problem: res.leader === '0' || !res.leader ? 'knows no leader' : undefined,
    };
  } catch (err) {
    const notAsked = ownDeadlineProblem(err, performance.now() - started, SHORT_CALL_MS);
    if (notAsked) return { ...state, notAsked, problem: 'was not asked' };
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
  const notAsked = state.members.find((m) => m.notAsked);
  if (notAsked)
    return `refusing to ${what}: etcd-doctor could not read the cluster's state (${notAsked.name}: ${notAsked.notAsked}); this says nothing about the cluster's health: check the worker's clock and run it again`;
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
