import type { Evidence } from '../../probes/evidence.js';
import type { ResourceLists } from '../../probes/kubernetes/apiserver-lists.js';
import { formatBytes, formatCount, formatDuration } from '../../format.js';
import { dataOf, kubernetesOf } from '../support/kubernetes.js';
import { formatPerSecond } from '../support/load.js';

/** What the apiserver's own metrics say of the LISTs behind a read load (issue 39). */
export interface ListEvidence {
  /** `LISTs of pods across all namespaces (3 a second, 85 MB each, since the apiserver started 2 h ago) are reading`. */
  headline: string | undefined;
  resource: string | undefined;
  evidence: string[];
  unknowns: string[];
}

interface Ranked {
  r: ResourceLists;
  lists: number;
  meanBytes: number | undefined;
  weight: number;
}

/**
 * The resource whose LISTs weigh most on etcd, from the apiserver's /metrics (probes/kubernetes/
 * apiserver-lists.ts): LISTs served from etcd (else all LISTs) times their mean response size. The
 * counters run since the apiserver started, so the figures are averages over its uptime and are
 * said so; the live judgement is etcd's own window (expensive-requests). None with no Kubernetes.
 */
export function apiserverListEvidence(evidence: Evidence): ListEvidence {
  const none: ListEvidence = { headline: undefined, resource: undefined, evidence: [], unknowns: [] };
  const k = kubernetesOf(evidence);
  if (!k) return none;
  const requests = dataOf(dataOf(k.apiserver)?.etcdRequests);
  const lists = requests?.lists;
  if (!lists)
    return { ...none, unknowns: ["which resource is listed: the apiserver's /metrics was not read"] };
  const uptimeS =
    lists.startedAtSeconds !== undefined ? k.collectedAt / 1000 - lists.startedAtSeconds : undefined;
  const ranked = lists.resources
    .map((r) => rank(r))
    .filter((x) => x.lists > 0)
    .sort((a, b) => b.weight - a.weight);
  const top = ranked[0];
  if (!top || uptimeS === undefined || uptimeS <= 0) return none;
  const since = `since the apiserver started ${formatDuration(uptimeS * 1000)} ago`;
  const words = (x: Ranked) => {
    const cluster = (x.r.listsByScope.cluster ?? 0) >= x.lists / 2 ? ' across all namespaces' : '';
    const each = x.meanBytes !== undefined ? `, ${formatBytes(x.meanBytes)} each` : '';
    return {
      subject: `LISTs of ${x.r.resource}${cluster}`,
      figures: `${formatPerSecond(x.lists / uptimeS)}${each}`,
    };
  };
  const w = words(top);
  return {
    headline: `${w.subject} (${w.figures}, ${since}) are reading`,
    resource: top.r.resource,
    evidence: ranked.slice(0, 3).map((x) => {
      const v = words(x);
      const storage =
        x.r.fromStorage !== undefined
          ? `, ${formatCount(x.r.fromStorage)} served from etcd rather than the watch cache${x.r.fetchedObjects !== undefined ? ` (${formatCount(x.r.fetchedObjects)} objects fetched)` : ''}`
          : '';
      return `the apiserver: ${v.subject}, ${v.figures} on average ${since}${storage} (apiserver_request_total, apiserver_storage_list_total, apiserver_response_sizes)`;
    }),
    unknowns: [],
  };
}

function rank(r: ResourceLists): Ranked {
  const lists = Object.values(r.listsByScope).reduce((n, v) => n + v, 0);
  const meanBytes = r.responseBytes !== undefined && r.responses ? r.responseBytes / r.responses : undefined;
  const fromEtcd = r.fromStorage ?? lists;
  return { r, lists, meanBytes, weight: fromEtcd * (meanBytes ?? 1) };
}
