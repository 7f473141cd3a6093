import type { CheckDepth } from '../contracts/check-depth.js';
import type { ClusterConfig } from '../config/schema.js';
import type { MemberEvidence, MemberInfo, MemberTarget } from './evidence.js';
import { hostOf, normalizeUrl, pathOf, sameUrl } from '../etcd/member-ids.js';
import { type Outcome, skipped } from './outcome.js';

/*
 * Which members a run probes and what it calls them: the configured endpoints, the members the
 * member list adds, those that have not started, and their names (etcd-2) once the list answers.
 */

export function initialTarget(cluster: ClusterConfig, endpoint: string, index: number): MemberTarget {
  return {
    name: hostOf(endpoint),
    endpoint,
    metricsUrl: metricsUrlOf(cluster, endpoint, index),
    id: undefined,
    ...(Number.isFinite(index) ? { endpointIndex: index } : {}),
  };
}

/** The /metrics URL of the configured member at `index` (its `metricsUrls` entry, else its client URL's). */
export function metricsUrlOf(cluster: ClusterConfig, endpoint: string, index: number): string {
  return withMetricsPath(cluster.etcd.metricsUrls?.[index] ?? `${endpoint.replace(/\/+$/, '')}/metrics`);
}

/** `http://127.0.0.1:2381` means its /metrics; a URL with a path is taken as given. */
function withMetricsPath(url: string): string {
  return pathOf(url) === '/' ? `${url.replace(/\/+$/, '')}/metrics` : url;
}

/** Members the list knows that the config did not name: probe them too, through their client URL. */
export function discoverTargets(
  list: MemberInfo[],
  configured: MemberTarget[],
  cluster: ClusterConfig,
): MemberTarget[] {
  const known = new Set(configured.map((t) => normalizeUrl(t.endpoint)));
  return list.flatMap((member) => {
    const url = member.clientUrls[0];
    if (!url || member.clientUrls.some((u) => known.has(normalizeUrl(u)))) return [];
    known.add(normalizeUrl(url));
    return [
      {
        ...initialTarget(cluster, url, Number.POSITIVE_INFINITY),
        name: member.name || member.id,
        id: member.id,
        isLearner: member.isLearner,
      },
    ];
  });
}

/** "If the member is not started, the name will be an empty string" (rpc.proto, KB §1.5). */
export function notStartedMembers(list: MemberInfo[], depth: CheckDepth): MemberEvidence[] {
  return list
    .filter((m) => m.clientUrls.length === 0)
    .map((m) => {
      const target: MemberTarget = {
        name: m.name || `member ${m.id}`,
        endpoint: m.peerUrls[0] ?? '',
        metricsUrl: '',
        id: m.id,
        isLearner: m.isLearner,
      };
      const why = skipped(`${target.name} has not started (no client URLs in the member list)`);
      return {
        target,
        health: why,
        status: why,
        metrics: depth === 'health' ? skipped('not asked') : why,
        clock: depth === 'health' ? skipped('not asked') : why,
      };
    });
}

/** Names the member (etcd-2) from the member list, by member id or by client URL. */
export function nameFromList(target: MemberTarget, list: Outcome<MemberInfo[]>, memberId?: string): void {
  const match = list.ok
    ? list.data.find(
        (m) => (memberId && m.id === memberId) || m.clientUrls.some((u) => sameUrl(u, target.endpoint)),
      )
    : undefined;
  if (match?.name) target.name = match.name;
  target.id = match?.id ?? memberId ?? target.id;
}

export function subjectOf(target: MemberTarget): string {
  return target.name === hostOf(target.endpoint) ? target.endpoint : `${target.name} (${target.endpoint})`;
}
