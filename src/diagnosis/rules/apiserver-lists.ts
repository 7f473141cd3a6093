import type { Evidence } from '../../probes/evidence.js';
import type {
  ApiserverLists,
  FlowDispatch,
  ListsWindow,
  ResourceLists,
} from '../../probes/kubernetes/apiserver-lists.js';
import { formatBytes, formatCount, formatDuration } from '../../format.js';
import type { AuditLister, AuditListers } from '../../probes/kubernetes/evidence.js';
import type { Outcome } from '../../probes/outcome.js';
import { dataOf, kubernetesOf } from '../support/kubernetes.js';
import { formatPerSecond, formatRate } from '../support/load.js';

/** What the apiserver's own metrics say of the LISTs behind a read load (issue 39). */
export interface ListEvidence {
  /**
   * `LISTs of pods across all namespaces (3 a second, 85 MB each, in the last 3 s; flow schema
   * \`service-accounts\`, priority level \`workload-low\`) are reading`; undefined when nothing is named.
   */
  headline: string | undefined;
  resource: string | undefined;
  /** The flow schema that dispatched the most requests in the window. */
  flow: { flowSchema: string; priorityLevel: string } | undefined;
  /** Who lists the resource named, from the audit log: `system:serviceaccount:ci:runner (kubectl/v1.30.2)`. */
  lister?: string;
  evidence: string[];
  unknowns: string[];
}

interface Ranked {
  r: ResourceLists;
  lists: number;
  meanBytes: number | undefined;
  /** LISTs served from etcd (else all LISTs) times their mean size: the bytes they read from etcd. */
  weight: number;
}

const SOURCES = '(apiserver_request_total, apiserver_storage_list_total, apiserver_response_sizes)';

/**
 * The resource whose LISTs weigh most on etcd, from the apiserver's /metrics (probes/kubernetes/
 * apiserver-lists.ts): LISTs served from etcd (else all LISTs) times their mean response size. With
 * the two reads of the probe window, the figures are the window's own, and a resource is named
 * only when its LISTs read `heavyBytesPerSecond` or more (the bound the rule holds etcd's own sent
 * bytes to): otherwise the reads on etcd come from another client, and the lines say so. With one
 * read (a watch check, a digest), or when the two reads do not compare (the apiserver restarted, or
 * another one answered), the counters run since the apiserver started and are said to be averages.
 * API Priority and Fairness by flow schema and priority level beside them, and who lists from the
 * audit log where the config names one. None with no Kubernetes.
 */
export function apiserverListEvidence(
  evidence: Evidence,
  opts: { heavyBytesPerSecond: number },
): ListEvidence {
  const none = noLists();
  const k = kubernetesOf(evidence);
  if (!k) return none;
  const requests = dataOf(dataOf(k.apiserver)?.etcdRequests);
  const lists = requests?.lists;
  if (!lists)
    return withAudit(
      { ...none, unknowns: ["which resource is listed: the apiserver's /metrics was not read"] },
      k.auditLog,
    );
  const w = lists.window;
  const metrics =
    w && !w.reset && w.seconds > 0
      ? inWindow(w, opts.heavyBytesPerSecond)
      : sinceStartOrReset(lists, k.collectedAt, w);
  return withAudit(metrics, k.auditLog);
}

function sinceStartOrReset(
  lists: ApiserverLists,
  collectedAt: number,
  w: ListsWindow | undefined,
): ListEvidence {
  const since = sinceStart(lists, collectedAt);
  if (!w?.reset) return since;
  const note = `the apiserver's /metrics read twice ${formatDuration(w.seconds * 1000)} apart has two start times or a counter that went back: it restarted, or another apiserver behind the address answered; its counters are read since it started`;
  return { ...since, evidence: [note, ...since.evidence] };
}

/**
 * Who lists, from the audit log where the config names one (probes/kubernetes/audit-log.ts): the
 * three who list most in its last minute, and, beside the resource the metrics name, the one who
 * lists that resource most (in every namespace when the metrics say so).
 */
function withAudit(e: ListEvidence, audit: Outcome<AuditListers> | undefined): ListEvidence {
  if (!audit) return e;
  if (!audit.ok) return { ...e, unknowns: [...e.unknowns, `who lists: ${audit.failure.message}`] };
  const a = audit.data;
  const recent = `in the last ${formatDuration(a.recentMs)}`;
  const who = (l: AuditLister) => `${l.username}${l.client ? ` (${l.client})` : ''}`;
  const of = (l: AuditLister) =>
    `${l.resource}${l.scope === 'cluster' ? ' across all namespaces' : ' in one namespace'}`;
  if (a.listers.length === 0) {
    const newest =
      a.newestAtMs !== undefined
        ? `its newest event was received ${formatDuration(a.readAtMs - a.newestAtMs)} before the read`
        : 'no event in it parsed';
    return {
      ...e,
      evidence: [
        ...e.evidence,
        `the audit log: no LIST received ${recent} (${formatCount(a.eventsRead)} events read; ${newest})`,
      ],
    };
  }
  const top = a.listers
    .slice(0, 3)
    .map((l) => `${formatCount(l.lists)} of ${of(l)} by ${who(l)}`)
    .join('; ');
  const line = `the audit log, LISTs received ${recent}: ${top}`;
  const cluster = e.headline?.includes(' across all namespaces') ?? false;
  const lister = e.resource
    ? a.listers.find((l) => l.resource === e.resource && (!cluster || l.scope === 'cluster'))
    : undefined;
  if (!lister || !e.headline) return { ...e, evidence: [...e.evidence, line] };
  const by = `; by ${lister.username}${lister.client ? ` with ${lister.client}` : ''}`;
  return {
    ...e,
    headline: e.headline.replace(/\) are reading$/, `${by}) are reading`),
    lister: who(lister),
    evidence: [...e.evidence, line],
  };
}

/** `LISTs of pods across all namespaces` and `3 a second, 85 MB each`, over `seconds`. */
function words(x: Ranked, seconds: number) {
  const cluster = (x.r.listsByScope.cluster ?? 0) >= x.lists / 2 ? ' across all namespaces' : '';
  const each = x.meanBytes !== undefined ? `, ${formatBytes(x.meanBytes)} each` : '';
  return {
    subject: `LISTs of ${x.r.resource}${cluster}`,
    figures: `${formatPerSecond(x.lists / seconds)}${each}`,
  };
}

function storageWords(r: ResourceLists): string {
  if (r.fromStorage === undefined) return '';
  const fetched = r.fetchedObjects !== undefined ? ` (${formatCount(r.fetchedObjects)} objects fetched)` : '';
  return `, ${formatCount(r.fromStorage)} served from etcd rather than the watch cache${fetched}`;
}

/** The window's own figures: what the apiserver lists now, and its flows. */
function inWindow(w: ListsWindow, heavyBytesPerSecond: number): ListEvidence {
  const last = `in the last ${formatDuration(w.seconds * 1000)}`;
  const ranked = rankAll(w.resources);
  const flows = flowEvidence(w.flows, w.seconds, last);
  const top = ranked[0];
  const readPerSecond = top?.meanBytes !== undefined ? top.weight / w.seconds : undefined;
  const lines = ranked.slice(0, 3).map((x) => {
    const v = words(x, w.seconds);
    const rate = x.meanBytes !== undefined ? ` (${formatRate((x.lists * x.meanBytes) / w.seconds)})` : '';
    return `the apiserver ${last}: ${v.subject}, ${v.figures}${rate}${storageWords(x.r)} ${SOURCES}`;
  });
  if (top && readPerSecond === undefined)
    return {
      headline: undefined,
      resource: undefined,
      flow: undefined,
      evidence: [...lines, ...flows.lines],
      unknowns: [
        "how much the apiserver's LISTs read from etcd: its /metrics has no apiserver_response_sizes for LIST",
      ],
    };
  if (!top || readPerSecond === undefined || readPerSecond < heavyBytesPerSecond) {
    const heaviest = top
      ? `; the heaviest: ${words(top, w.seconds).subject}, ${words(top, w.seconds).figures}`
      : '';
    const light = `the apiserver's LISTs read ${formatRate(readPerSecond ?? 0)} from etcd ${last}, under ${formatRate(heavyBytesPerSecond)}${heaviest}: the reads come from another client of etcd, or another apiserver ${SOURCES}`;
    return {
      headline: undefined,
      resource: undefined,
      flow: undefined,
      evidence: [light, ...flows.lines],
      unknowns: [],
    };
  }
  const v = words(top, w.seconds);
  const flow = flows.top
    ? `; flow schema \`${flows.top.flowSchema}\`, priority level \`${flows.top.priorityLevel}\``
    : '';
  const rejected = flows.rejected > 0 ? `, ${formatCount(flows.rejected)} requests rejected with 429` : '';
  return {
    headline: `${v.subject} (${v.figures}, ${last}${flow}${rejected}) are reading`,
    resource: top.r.resource,
    flow: flows.top
      ? { flowSchema: flows.top.flowSchema, priorityLevel: flows.top.priorityLevel }
      : undefined,
    evidence: [...lines, ...flows.lines],
    unknowns: [],
  };
}

/** Nothing to say of the apiserver's LISTs (each caller adds its own unknowns). */
function noLists(): ListEvidence {
  return { headline: undefined, resource: undefined, flow: undefined, evidence: [], unknowns: [] };
}

/** One read, or two that do not compare: averages since the apiserver started, said so. */
function sinceStart(lists: ApiserverLists, collectedAt: number): ListEvidence {
  const none = noLists();
  const uptimeS =
    lists.startedAtSeconds !== undefined ? collectedAt / 1000 - lists.startedAtSeconds : undefined;
  const ranked = rankAll(lists.resources);
  const top = ranked[0];
  if (!top || uptimeS === undefined || uptimeS <= 0) return none;
  const since = `since the apiserver started ${formatDuration(uptimeS * 1000)} ago`;
  const w = words(top, uptimeS);
  const flows = flowEvidence(lists.flows ?? [], uptimeS, since, ' on average');
  return {
    headline: `${w.subject} (${w.figures}, ${since}) are reading`,
    resource: top.r.resource,
    flow: undefined,
    evidence: [
      ...ranked.slice(0, 3).map((x) => {
        const v = words(x, uptimeS);
        return `the apiserver: ${v.subject}, ${v.figures} on average ${since}${storageWords(x.r)} ${SOURCES}`;
      }),
      ...flows.lines,
    ],
    unknowns: [],
  };
}

/**
 * API Priority and Fairness over `seconds`: the flow schema that dispatched the most requests (all
 * verbs: the counter has no verb or resource, so it is the busiest flow beside the LISTs, not
 * necessarily theirs), and every flow that rejected requests with 429, with the reasons and what
 * waits in its queues now.
 */
function flowEvidence(
  flows: readonly FlowDispatch[],
  seconds: number,
  when: string,
  average = '',
): { top: FlowDispatch | undefined; rejected: number; lines: string[] } {
  const total = flows.reduce((n, f) => n + f.dispatched, 0);
  const top = [...flows].sort((a, b) => b.dispatched - a.dispatched)[0];
  const lines: string[] = [];
  const busiest = top && top.dispatched > 0 ? top : undefined;
  if (busiest)
    lines.push(
      `API Priority and Fairness ${when}: flow schema \`${busiest.flowSchema}\` (priority level \`${busiest.priorityLevel}\`) dispatches the most, ${formatPerSecond(busiest.dispatched / seconds, 'requests')}${average} of ${formatPerSecond(total / seconds)} in all (apiserver_flowcontrol_dispatched_requests_total)`,
    );
  const rejecting = flows
    .map((f) => ({ f, n: Object.values(f.rejected).reduce((a, b) => a + b, 0) }))
    .filter((x) => x.n > 0)
    .sort((a, b) => b.n - a.n);
  const rejected = rejecting.reduce((a, x) => a + x.n, 0);
  if (rejected > 0) {
    const each = rejecting.slice(0, 3).map(({ f, n }) => {
      const reasons = Object.entries(f.rejected)
        .filter(([, c]) => c > 0)
        .map(([reason, c]) => `${reason} ${formatCount(c)}`)
        .join(', ');
      const queued = f.inQueue ? `, ${formatCount(f.inQueue)} waiting in its queues now` : '';
      return `flow schema \`${f.flowSchema}\` (priority level \`${f.priorityLevel}\`) ${formatCount(n)}: ${reasons}${queued}`;
    });
    lines.push(
      `API Priority and Fairness ${when}: ${formatCount(rejected)} requests rejected with HTTP 429, ${each.join('; ')} (apiserver_flowcontrol_rejected_requests_total, apiserver_flowcontrol_current_inqueue_requests)`,
    );
  }
  return { top: busiest, rejected, lines };
}

function rankAll(resources: readonly ResourceLists[]): Ranked[] {
  return resources
    .map((r) => rank(r))
    .filter((x) => x.lists > 0)
    .sort((a, b) => b.weight - a.weight);
}

function rank(r: ResourceLists): Ranked {
  const lists = Object.values(r.listsByScope).reduce((n, v) => n + v, 0);
  const meanBytes = r.responseBytes !== undefined && r.responses ? r.responseBytes / r.responses : undefined;
  const fromEtcd = r.fromStorage ?? lists;
  return { r, lists, meanBytes, weight: fromEtcd * (meanBytes ?? 1) };
}
