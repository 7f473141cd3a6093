import type { ClusterProbeContext } from './cluster-context.js';
import { firstAnswer, mostTelling } from './cluster-context.js';
import type { MemberInfo } from './evidence.js';
import { deadline } from './member-context.js';
import { sameUrl, toHexId } from '../etcd/member-ids.js';
import type { Probe } from './probe.js';

interface ListedMember {
  ID: string;
  name: string;
  peerURLs?: string[];
  clientURLs?: string[];
  isLearner?: boolean;
}

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
      const ask = (endpoint: string) =>
        ctx.clients.forEndpoint(endpoint).admin.cluster.memberList({}, deadline(timeoutMs));
      const res =
        ctx.hedgeMs === undefined
          ? await listOfMost(endpoints, endpoints.map(ask))
          : await firstAnswer(endpoints, ask, ctx.hedgeMs);
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

/** How many of the configured endpoints a member list names as client URLs. */
function covered(members: ListedMember[], endpoints: string[]): number {
  return endpoints.filter((e) => members.some((m) => (m.clientURLs ?? []).some((u) => sameUrl(u, e)))).length;
}

/**
 * The member list of the cluster most of the configured endpoints belong to. An endpoint of another
 * cluster among them (a member re-created with `--initial-cluster-state new`, a wrong URL) answers
 * with its own cluster's list, and may answer first: taking it would name the real members as
 * strangers. The first answer is taken at once when its list names most of the endpoints, or none
 * (URLs written otherwise than the members advertise them say nothing either way); a list naming
 * only some waits for the others, and the one naming the most is taken.
 */
function listOfMost<T extends { members: ListedMember[] }>(
  endpoints: string[],
  asked: Array<Promise<T>>,
): Promise<T> {
  const most = Math.floor(endpoints.length / 2) + 1;
  if (asked.length === 0) return Promise.reject(new Error('no endpoint to ask for the member list'));
  return new Promise<T>((resolve, reject) => {
    let best: { res: T; n: number } | undefined;
    const errors: unknown[] = [];
    let settled = 0;
    const settle = () => {
      settled += 1;
      if (settled < asked.length) return;
      if (best) resolve(best.res);
      else reject(mostTelling(errors));
    };
    for (const p of asked) {
      p.then(
        (res) => {
          const n = covered(res.members, endpoints);
          if (n >= most || (n === 0 && !best)) resolve(res);
          else if (!best || n > best.n) best = { res, n };
          settle();
        },
        (err: unknown) => {
          errors.push(err);
          settle();
        },
      );
    }
  });
}
