import type { ClusterProbeContext } from './cluster-context.js';
import { firstAnswer } from './cluster-context.js';
import type { MemberInfo } from './evidence.js';
import { deadline } from './member-context.js';
import { toHexId } from './member-ids.js';
import type { Probe } from './probe.js';

/**
 * Cluster.MemberList from whichever member answers first. In 3.4 it is answered locally;
 * in 3.5 it is linearizable and needs quorum (KB §2.1), so a failure here with members
 * still answering Status is itself a quorum hint.
 */
export function createMemberListProbe(timeoutMs: number): Probe<ClusterProbeContext, MemberInfo[]> {
  return {
    kind: 'member-list',
    asks: 'MemberList',
    timeoutMs,
    async collect(ctx) {
      const endpoints = ctx.clients.members.map((m) => m.endpoint);
      const res = await firstAnswer(
        endpoints,
        (endpoint) =>
          ctx.clients.forEndpoint(endpoint).maintenance.cluster.memberList({}, deadline(ctx.now, timeoutMs)),
        ctx.hedgeMs,
      );
      return res.members.map((m) => ({
        id: toHexId(m.ID),
        name: m.name,
        peerUrls: m.peerURLs ?? [],
        clientUrls: m.clientURLs ?? [],
        isLearner: Boolean(m.isLearner),
      }));
    },
  };
}
