import type { MemberClients } from '../../clients/etcd-clients.js';
import { toHexId } from '../../etcd/member-ids.js';
import { grpcDeadline } from '../../clients/grpc-deadline.js';

/** One member as its own Status says (or why it did not answer). */
export type MemberRole =
  | {
      endpoint: string;
      ok: true;
      id: string;
      isLeader: boolean;
      /** It knows a leader (Status.leader is not 0): it follows a working cluster. */
      hasLeader: boolean;
      isLearner: boolean;
      dbSizeBytes: number;
      dbSizeInUseBytes: number;
      revision: number;
      raftAppliedIndex: number;
    }
  | { endpoint: string; ok: false; error: string };

/** Status of every member at once (Maintenance.Status: answered locally, no quorum needed). */
export async function readMemberRoles(
  members: readonly MemberClients[],
  timeoutMs: number,
): Promise<MemberRole[]> {
  return Promise.all(
    members.map(async (m): Promise<MemberRole> => {
      try {
        const res = await m.admin.maintenance.status(grpcDeadline(timeoutMs));
        const id = toHexId(res.header.member_id);
        return {
          endpoint: m.endpoint,
          ok: true,
          id,
          isLeader: id === toHexId(res.leader),
          hasLeader: String(res.leader) !== '0',
          isLearner: Boolean(res.isLearner),
          dbSizeBytes: Number(res.dbSize),
          dbSizeInUseBytes: Number(res.dbSizeInUse || res.dbSize),
          revision: Number(res.header.revision),
          raftAppliedIndex: Number(res.raftAppliedIndex || res.raftIndex),
        };
      } catch (err) {
        return { endpoint: m.endpoint, ok: false, error: shortError(err) };
      }
    }),
  );
}

/**
 * The member a scan reads from: a voting follower (never the leader, whose disk and CPU every write
 * goes through; never a learner, which may lag; never a member that knows no leader, cut off from the
 * cluster), the one furthest along in applying the log, so its serializable reads are the freshest.
 * Undefined when no follower answered.
 */
export function pickFollower(roles: readonly MemberRole[]): Extract<MemberRole, { ok: true }> | undefined {
  const followers = roles.flatMap((r) => (r.ok && r.hasLeader && !r.isLeader && !r.isLearner ? [r] : []));
  return followers.sort((a, b) => b.raftAppliedIndex - a.raftAppliedIndex)[0];
}

/** Member names by hex id, from one member's MemberList (answered from its own view of the cluster). */
export async function readMemberNames(
  member: MemberClients,
  timeoutMs: number,
): Promise<Map<string, string>> {
  try {
    const res = await member.admin.cluster.memberList({}, grpcDeadline(timeoutMs));
    return new Map(res.members.map((m) => [toHexId(m.ID), m.name]));
  } catch {
    return new Map();
  }
}

/** grpc-js's `14 UNAVAILABLE: No connection established. Last error: Error: connect ECONNREFUSED …` as `connect ECONNREFUSED …`. */
function shortError(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message
    .replace(/^\d+ UNAVAILABLE: No connection established\. Last error: (?:Error: )?/, '')
    .replace(/\. Resolution note: .*$/s, '');
}
