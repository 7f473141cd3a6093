import type { Evidence } from '../../probes/evidence.js';
import { formatBytes, formatList } from '../../format.js';
import type { Finding, Severity } from '../finding.js';
import { explainLines, type Rule } from '../rule.js';
import { nodesOfMembers } from '../support/kubernetes.js';
import { formatPerSecond, formatRate, latencyShown, type MemberLoad, memberLoads } from '../support/load.js';
import { apiserverListEvidence, type ListEvidence } from './apiserver-lists.js';

/**
 * Bytes a second one member sends its clients before that is a heavy read load: 10 MB/s (inference).
 * Every byte of a range response is read from bbolt, decoded and marshalled in etcd's memory (jingyih
 * in etcd-io/etcd#12457: "Listing all the pods frequently … is simply too expensive"); a 1 GbE link,
 * "sufficient for common etcd deployments" (WEB hardware.md), carries 125 MB/s, and a Kubernetes
 * cluster at rest sends its apiservers watch events at well under 1 MB/s. 10 MB/s is a twelfth of
 * that link and ten times the quiet figure: a client reading whole prefixes again and again.
 */
export const EXPENSIVE_SENT_BYTES_PER_SECOND = 10e6;

interface Heavy {
  load: MemberLoad;
  sent: number;
  latency: string | undefined;
}

/**
 * Client load that explains the latency (issue 39; KB F11 "expensive requests", CEOP
 * performance-metrics.md): a member sending its clients 10 MB/s or more over the /metrics window
 * (`etcd_network_client_grpc_sent_bytes_total`), with the ranges behind it
 * (`grpc_server_handled_total{grpc_method="Range"}`, `etcd_mvcc_range_total`, in 3.4 `etcd_debugging_mvcc_range_total`). A warning
 * when the member shows latency now (a slow linearizable read, GET /version stalled, applies over
 * 100 ms): then it explains cpu-starvation and slow-reads there, and is ranked above them. Heavy
 * reads that slow nothing are `info`. With Kubernetes, the apiserver's own metrics name the
 * resource listed, at its rate in the same window, and the API Priority and Fairness flow schema
 * beside it; the audit log, where configured, who lists it (apiserver-lists.ts).
 */
export const expensiveRequestsRule: Rule = {
  name: 'expensive-requests',
  live: 'two /metrics scrapes now',
  cause: 'expensive-requests',
  needs: ['metrics'],
  rank: 21,
  explains: [
    'cpu-starvation',
    'slow-reads',
    'slow-disk',
    'leader-churn',
    'apiserver-latency',
    'control-plane-restarts',
    'slow-watchers',
  ],
  evaluate(evidence, ctx) {
    const loads = memberLoads(evidence).filter((l) => l.rates?.sentBytesPerSecond !== undefined);
    const explain = explainLines(ctx, () =>
      loads.map(
        (l) =>
          `${l.name}: ${formatRate(l.rates?.sentBytesPerSecond ?? 0)} sent to clients over ${l.windowSeconds} s (heavy from ${formatRate(EXPENSIVE_SENT_BYTES_PER_SECOND)})`,
      ),
    );
    const heavy: Heavy[] = loads
      .map((load) => ({
        load,
        sent: load.rates?.sentBytesPerSecond ?? 0,
        latency: latencyShown(load.member),
      }))
      .filter((h) => h.sent >= EXPENSIVE_SENT_BYTES_PER_SECOND)
      .sort((a, b) => b.sent - a.sent);
    if (heavy.length === 0) return { explain };
    const names = heavy.map((h) => h.load.name);
    const slowed = heavy.filter((h) => h.latency !== undefined);
    const severity: Severity = slowed.length > 0 ? 'warning' : 'info';
    const top = heavy[0] as Heavy;
    const lists = apiserverListEvidence(evidence, { heavyBytesPerSecond: EXPENSIVE_SENT_BYTES_PER_SECOND });
    const finding: Finding = {
      cause: 'expensive-requests',
      severity,
      members: names,
      nodes: nodesOfMembers(evidence, names),
      summary: `${lists.headline ?? 'Clients are reading'} ${formatRate(top.sent)} from ${top.load.name}${heavy.length > 1 ? ` (and from ${formatList(names.slice(1))})` : ''}${severity === 'warning' ? ': heavy reads explain the latency there' : ': heavy reads, no latency yet'}`,
      evidence: [...heavy.map(describeHeavy), ...lists.evidence],
      steps: stepsFor(evidence, names, lists),
      unknowns: lists.unknowns,
    };
    return { finding, explain: [...explain, `fired: ${formatList(names)} (${severity})`] };
  },
};

/** `etcd-1: 152 MB/s sent to clients over 3 s, 14 ranges a second (gRPC), about 11 MB each; a linearizable read took 820 ms`. */
function describeHeavy(h: Heavy): string {
  const r = h.load.rates;
  const ranges = r?.grpcRangesPerSecond ?? r?.mvccRangesPerSecond;
  const each = ranges && ranges > 0 ? `, about ${formatBytes(h.sent / ranges)} each` : '';
  const rangeWords = ranges !== undefined ? `, ${formatPerSecond(ranges, 'ranges')}${each}` : '';
  const watchers = h.load.load.watchers ?? 0;
  const watch = watchers > 0 ? `, ${watchers} watchers` : '';
  return `${h.load.name}: ${formatRate(h.sent)} sent to clients over ${h.load.windowSeconds} s${rangeWords}${watch}${h.latency ? `; ${h.latency}` : ''}`;
}

function stepsFor(evidence: Evidence, names: string[], lists: ListEvidence) {
  const kube = evidence.kubernetes !== undefined;
  const resource = lists.resource;
  const flow = lists.flow;
  const bound =
    flow && flow.priorityLevel !== 'exempt'
      ? `its requests go through flow schema \`${flow.flowSchema}\` at priority level \`${flow.priorityLevel}\`: give that client a FlowSchema of its own at a PriorityLevelConfiguration with fewer seats (API Priority and Fairness)`
      : 'a FlowSchema and PriorityLevelConfiguration for that client (API Priority and Fairness)';
  return [
    {
      text: `Find the client: ${lists.lister ? `the audit log names ${lists.lister} listing ${resource}; ` : ''}on ${formatList(names)}'s host, \`ss -tn state established '( sport = :2379 )'\` counted by peer address${kube ? `; with Kubernetes, the apiserver's \`apiserver_request_total{verb="LIST"}\` by resource and its audit log for LISTs${resource ? ` of ${resource}` : ''} without \`limit\` or \`resourceVersion\`` : ''}`,
    },
    {
      text: `Bound it: ${bound}, paginated LISTs (\`limit\` and \`continue\`), and LISTs the watch cache serves (\`resourceVersion=0\`) instead of etcd`,
    },
    {
      text: 'Do not restart or defragment etcd for this: the load comes back with the client (etcd-io/etcd#12457)',
    },
  ];
}
