import type { Evidence } from '../../probes/evidence.js';

/** etcd labels peers by hex id (`To="8e9e05c52164694d"`); reports use member names. */
export function memberNameById(evidence: Evidence, id: string): string {
  const probed = evidence.members.find(
    (m) => m.target.id === id || (m.status.ok && m.status.data.memberId === id),
  );
  if (probed) return probed.target.name;
  const listed = evidence.memberList.ok ? evidence.memberList.data.find((m) => m.id === id) : undefined;
  return listed?.name || id;
}
