import type { StatusData } from './evidence.js';
import { memberStatus } from '../clients/etcd-status.js';
import { deadline, type MemberProbeContext } from './member-context.js';
import { toHexId } from '../etcd/member-ids.js';
import type { Probe } from './probe.js';

/**
 * Maintenance.Status: answered from the member's local state, so it works without quorum (KB §2.2).
 * Decoded with etcd 3.6's shape (clients/etcd-status.ts): its storage version, quota and downgrade.
 */
export function createMemberStatusProbe(timeoutMs: number): Probe<MemberProbeContext, StatusData> {
  return {
    kind: 'status',
    asks: 'Status',
    timeoutMs,
    takesNoSignal: true,
    async collect(ctx) {
      const res = await memberStatus(ctx.clients.admin, deadline(timeoutMs));
      return {
        memberId: toHexId(res.header.member_id),
        clusterId: toHexId(res.header.cluster_id),
        version: res.version,
        dbSizeBytes: Number(res.dbSize),
        dbSizeInUseBytes: Number(res.dbSizeInUse || res.dbSize),
        leaderId: toHexId(res.leader),
        raftTerm: Number(res.raftTerm),
        raftIndex: Number(res.raftIndex),
        raftAppliedIndex: Number(res.raftAppliedIndex || res.raftIndex),
        revision: Number(res.header.revision),
        isLearner: Boolean(res.isLearner),
        errors: res.errors ?? [],
        ...(res.storageVersion ? { storageVersion: res.storageVersion } : {}),
        ...(res.dbSizeQuota ? { dbSizeQuotaBytes: Number(res.dbSizeQuota) } : {}),
        ...(res.downgradeInfo ? { downgrade: res.downgradeInfo } : {}),
      };
    },
  };
}
