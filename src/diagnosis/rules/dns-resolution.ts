import type { Evidence } from '../../probes/evidence.js';
import { formatList } from '../../format.js';
import type { Finding, Severity } from '../finding.js';
import type { Rule } from '../rule.js';
import { NO_STAT } from '../support/faults.js';
import {
  dataOf,
  kubernetesOf,
  memberOfScan,
  nodesOfMembers,
  scansOf,
  unique,
} from '../support/kubernetes.js';
import { countsByMember, describeSignal, etcdSignalByMember } from '../support/logs.js';

/**
 * Peer or client URLs whose host names do not resolve. etcd resolves its URLs at start and retries
 * every second until they do (pkg/netutil resolveURL: ETCD33 capnslog `failed resolving host
 * <host:port> (lookup … no such host); retrying in 1s`, ETCD34/35/36 zap `failed to resolve URL
 * Host` with `host` and `error`): the member cannot start. A peer dial whose name does not resolve
 * fails the same way (`dial tcp: lookup <host> on <dns>: no such host`). In Kubernetes the usual
 * cause is a StatefulSet's headless Service that publishes only ready pods, so members cannot find
 * each other before they are ready (etcd-io/etcd#11654, #7798, apecloud/kubeblocks#5702).
 */
export const dnsResolutionRule: Rule = {
  name: 'dns-resolution',
  cause: 'dns-resolution',
  needs: ['kubernetes'],
  rank: 7,
  explains: ['peer-network', 'member-down', 'leader-churn', 'quorum-lost', 'etcd-crash', 'slow-reads'],
  evaluate(evidence) {
    const failing = etcdSignalByMember(evidence, (s) => s.signals.dnsFailed ?? NO_STAT);
    const explain = [`names that did not resolve: ${countsByMember(failing)}`];
    if (failing.length === 0) return { explain };
    const { hosts, reason, atStart } = lookupsOf(evidence);
    const reporters = failing.map((s) => s.member);
    const named = unique(hosts.flatMap((h) => memberOfHost(evidence, h) ?? []));
    const members = unique([...reporters, ...named]);
    // A member that cannot resolve its own cluster's URLs does not start; a peer it cannot resolve is one link.
    const severity: Severity = atStart > 0 ? 'critical' : 'warning';
    const finding: Finding = {
      cause: 'dns-resolution',
      severity,
      members,
      nodes: nodesOfMembers(evidence, reporters),
      summary: `${formatList(reporters)} cannot resolve ${formatList(hosts.map((h) => withMember(evidence, h)))}${reason ? ` (${reason})` : ''}: ${atStart > 0 ? 'etcd retries until its peer URLs resolve and does not start before' : 'its dials to that peer fail before they leave the node'}`,
      evidence: [
        ...failing.map((s) => `${s.member}: ${describeSignal(s, 'name lookup failed')}`),
        ...failing.slice(0, 1).flatMap((s) => (s.example ? [`e.g. ${s.example}`] : [])),
      ],
      steps: [
        {
          text: `Resolve the names from ${formatList(reporters)}'s node (\`getent hosts ${hosts[0] ?? '<host>'}\`, \`nslookup\` against the resolver in /etc/resolv.conf): the name must exist before the member that owns it is up`,
        },
        {
          text: "A StatefulSet's members find each other through its headless Service: set `publishNotReadyAddresses: true` on it (the pods are not ready until etcd has quorum); otherwise fix the DNS record or put IP addresses in --initial-cluster and the peer URLs",
        },
      ],
      unknowns: [],
    };
    return { finding, explain: [...explain, `fired: ${formatList(members)}`] };
  },
};

function lookupsOf(evidence: Evidence): { hosts: string[]; reason: string | undefined; atStart: number } {
  const stats = scansOf(kubernetesOf(evidence), 'etcd').flatMap((s) =>
    s.signals.dnsFailed ? [s.signals.dnsFailed] : [],
  );
  return {
    hosts: unique(stats.flatMap((s) => s.hosts)).slice(0, 5),
    reason: stats.find((s) => s.reason)?.reason,
    atStart: stats.reduce((n, s) => n + s.atStart, 0),
  };
}

/** `etcd-0.etcd (member etcd-0)` when a member owns the name. */
function withMember(evidence: Evidence, host: string): string {
  const member = memberOfHost(evidence, host);
  return member && member !== host ? `${host} (member ${member})` : host;
}

/**
 * The member a host name belongs to: the one whose peer or client URL has it (the member list, the
 * etcd pods), else a member named as its first label (a StatefulSet's `etcd-0.etcd` is pod etcd-0).
 */
function memberOfHost(evidence: Evidence, host: string): string | undefined {
  const hostOf = (url: string) => /^\w+:\/\/\[?([^\]/:]+)/.exec(url)?.[1];
  const listed = evidence.memberList.ok ? evidence.memberList.data : [];
  const byUrl = listed.find((m) => [...m.peerUrls, ...m.clientUrls].some((u) => hostOf(u) === host));
  if (byUrl?.name) return byUrl.name;
  const specs = dataOf(kubernetesOf(evidence)?.etcdPods) ?? [];
  const spec = specs.find((s) => s.peerUrls.some((u) => hostOf(u) === host));
  if (spec?.memberName) return spec.memberName;
  const label = host.split('.')[0];
  const known = [
    ...listed.map((m) => m.name),
    ...scansOf(kubernetesOf(evidence), 'etcd').map((s) => memberOfScan(evidence, s)),
  ];
  return label && known.includes(label) ? label : undefined;
}
