import { formatList, formatPercent } from '../../format.js';
import type { Finding, Severity } from '../finding.js';
import { explainLines, type Rule } from '../rule.js';
import { nodesOfMembers } from '../support/kubernetes.js';
import { type MemberLoad, memberLoads } from '../support/load.js';
import { fdExhaustionRule } from './fd-exhaustion.js';

/**
 * etcd's own warning: "80% of file descriptors are used" once `used >= limit/5*4` (ETCD34/35/36
 * etcdserver/metrics.go monitorFileDescriptor). At the limit, accept and open fail with EMFILE.
 */
export const FD_WARNING_RATIO = 0.8;

/**
 * `fd-exhaustion` read live from each member's /metrics (issue 39): `process_open_fds` against
 * `process_max_fds` (Go's process collector; WEB metrics/_index.md). A warning from 80 % (etcd's
 * own bound), critical at the limit, where the member refuses new clients and peers and cannot
 * open WAL or snapshot files. The log side (`too many open files`) is fd-exhaustion.ts.
 */
export const fdExhaustionLiveRule: Rule = {
  name: 'fd-exhaustion-live',
  live: 'a /metrics scrape now',
  cause: 'fd-exhaustion',
  needs: ['metrics'],
  rank: fdExhaustionRule.rank,
  explains: fdExhaustionRule.explains ?? [],
  evaluate(evidence, ctx) {
    const loads = memberLoads(evidence).filter(
      (l) => l.load.openFds !== undefined && (l.load.maxFds ?? 0) > 0,
    );
    const explain = explainLines(ctx, () =>
      loads.map((l) => `${l.name}: ${describe(l)} (warning from ${formatPercent(FD_WARNING_RATIO)})`),
    );
    const near = loads.filter((l) => ratio(l) >= FD_WARNING_RATIO).sort((a, b) => ratio(b) - ratio(a));
    if (near.length === 0) return { explain };
    const names = near.map((l) => l.name);
    const full = near.filter((l) => ratio(l) >= 1);
    const severity: Severity = full.length > 0 ? 'critical' : 'warning';
    const finding: Finding = {
      cause: 'fd-exhaustion',
      severity,
      members: names,
      nodes: nodesOfMembers(evidence, names),
      summary:
        full.length > 0
          ? `${formatList(full.map((l) => l.name))} ${full.length === 1 ? 'is' : 'are'} out of file descriptors (${describe(full[0] as MemberLoad)}): new client and peer connections are refused`
          : `${formatList(names)} ${names.length === 1 ? 'uses' : 'use'} ${formatPercent(ratio(near[0] as MemberLoad))} of ${names.length === 1 ? 'its' : 'their'} file descriptors (${describe(near[0] as MemberLoad)}): at the limit new connections are refused`,
      evidence: near.map(
        (l) =>
          `${l.name}: ${describe(l)} (process_open_fds / process_max_fds; etcd warns from 80 %)${l.load.watchStreams !== undefined ? `, ${l.load.watchStreams} watch streams` : ''}`,
      ),
      steps: stepsFor(names),
      unknowns: [],
    };
    return { finding, explain: [...explain, `fired: ${formatList(names)} (${severity})`] };
  },
};

function ratio(l: MemberLoad): number {
  return (l.load.openFds ?? 0) / (l.load.maxFds ?? 1);
}

/** `109 of 120 open`. */
function describe(l: MemberLoad): string {
  return `${l.load.openFds} of ${l.load.maxFds} open`;
}

function stepsFor(names: string[]) {
  return [
    {
      text: `Find who holds the connections on ${formatList(names)}: \`ss -tn state established '( sport = :2379 )'\` counted by client address; a client that opens a connection per request and never closes it is the usual cause (etcd-io/etcd#2928)`,
    },
    {
      text: "Raise the limit where etcd runs (systemd `LimitNOFILE=`, the container runtime's `nofile` ulimit) and restart the member, one member at a time",
    },
  ];
}
