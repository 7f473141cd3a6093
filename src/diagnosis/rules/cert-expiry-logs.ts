import type { Evidence } from '../../probes/evidence.js';
import { formatList } from '../../format.js';
import type { Finding } from '../finding.js';
import type { Rule } from '../rule.js';
import {
  dataOf,
  kubernetesOf,
  memberOfScan,
  nodesOfMembers,
  scansOf,
  unique,
} from '../support/kubernetes.js';
import { earliest, formatSpan, latest } from '../support/logs.js';
import { memberNameById } from '../support/members.js';

interface Refusal {
  /** The member whose log says it refused (or whose dials found the certificate expired). */
  refuser: string;
  /** Members whose certificate expired: a refused IP that is a member's peer host, a peer dialled. */
  peers: string[];
  /** Refused IPs that are no member's: clients (the apiserver, etcdctl, a backup job). */
  clients: string[];
  count: number;
  notAfter?: string;
  firstSeenAt?: string;
  lastSeenAt?: string;
  reasons: string[];
  example?: string;
}

/**
 * Connections refused for an expired certificate, from the etcd logs: embed's `rejected connection`
 * (ETCD34/35 zap, ETCD33/34 capnslog `rejected connection from "<addr>" (error "tls: failed to
 * verify client's certificate: x509: certificate has expired or is not yet valid…")`, ETCD36 `… on
 * client endpoint` / `… on peer endpoint`) and peer dials that find a peer's certificate expired.
 * Go says when it expired (`current time … is after <NotAfter>`, crypto/x509 verify.go, Go ≥ 1.15).
 * Who is refused: a peer when the refused IP is the host of a member's peer URL (or the peer dialled),
 * else a client by its address (etcd-io/etcd#15740: clients refused from 07:04 on). A certificate
 * not yet valid (`is before`) is a clock, not an expiry, and stays with peer-tls. kubeadm's etcd
 * certificates last one year (kubernetes.io "Certificate Management with kubeadm").
 */
export const certExpiryLogsRule: Rule = {
  name: 'cert-expiry-logs',
  cause: 'cert-expiry',
  needs: ['kubernetes'],
  rank: 17,
  explains: [
    'peer-tls',
    'peer-network',
    'leader-churn',
    'member-down',
    'quorum-lost',
    'control-plane-restarts',
    'apiserver-latency',
  ],
  evaluate(evidence) {
    const refusals = refusalsOf(evidence);
    const explain = [
      refusals.length
        ? refusals
            .map((r) => `${r.refuser}: ${r.count} connections refused for an expired certificate`)
            .join('; ')
        : 'no connection refused for an expired certificate in the etcd logs',
    ];
    if (refusals.length === 0) return { explain };
    const peers = unique(refusals.flatMap((r) => r.peers));
    const clients = unique(refusals.flatMap((r) => r.clients));
    const refusers = unique(refusals.map((r) => r.refuser));
    const members = peers.length > 0 ? peers : refusers;
    const notAfter = refusals
      .map((r) => r.notAfter)
      .filter(Boolean)
      .sort()
      .at(-1);
    const firstSeenAt = refusals.map((r) => r.firstSeenAt).reduce(earliest, undefined);
    const who = [
      ...(peers.length ? [`peer${peers.length === 1 ? '' : 's'} ${formatList(peers)}`] : []),
      ...(clients.length ? [`clients from ${formatList(clients)}`] : []),
    ];
    // Go before 1.15 writes an expired certificate and one not yet valid (a clock behind) as one
    // message with no dates (crypto/x509 verify.go): without Go's `is after <NotAfter>`, either may be.
    const dated = notAfter !== undefined;
    const finding: Finding = {
      cause: 'cert-expiry',
      severity: dated ? 'critical' : 'warning',
      members,
      nodes: nodesOfMembers(evidence, members),
      summary: `${formatList(refusers)} refuse${refusers.length === 1 ? 's' : ''} ${formatList(who.length ? who : ['connections'])}: ${peers.length ? 'their' : 'the'} certificate has expired${notAfter ? ` (at ${notAfter.replace('T', ' ').replace('Z', ' UTC')})` : ", or is not yet valid because a clock is behind (this etcd's Go, before 1.15, writes both as one message with no dates)"}${firstSeenAt ? `; refused since ${firstSeenAt.replace('T', ' ').slice(0, 19)} UTC` : ''}`,
      evidence: refusals.flatMap(describe),
      steps: [
        ...(dated
          ? []
          : [
              {
                text: "First tell which: the certificate's dates (`openssl x509 -noout -dates -in <cert>`) against the clock of both ends (`timedatectl` on each node). Dates in the future mean a clock is behind: fix time sync (chrony/NTP) and nothing needs renewing",
              },
            ]),
        peers.length
          ? {
              text: `Renew the peer certificate of ${formatList(peers)} (kubeadm: \`kubeadm certs renew etcd-peer\` on its node; check with \`openssl x509 -noout -enddate -in /etc/kubernetes/pki/etcd/peer.crt\`), then restart that member so it presents the new one`,
            }
          : {
              text: `Renew the client certificate the refused clients present (kubeadm: \`kubeadm certs renew apiserver-etcd-client\` for the apiserver, \`etcd-healthcheck-client\` for probes and etcdctl; \`kubeadm certs check-expiration\` lists them), then restart those clients so they load it`,
            },
        {
          text: 'Check every certificate of the cluster before the next one lapses: `kubeadm certs check-expiration` on each control-plane node (OpenShift rotates its own: `oc get clusteroperator etcd`)',
        },
      ],
      unknowns: [],
    };
    return { finding, explain: [...explain, `fired: ${formatList(members)}`] };
  },
};

function refusalsOf(evidence: Evidence): Refusal[] {
  const byRefuser = new Map<string, Refusal>();
  for (const scan of scansOf(kubernetesOf(evidence), 'etcd')) {
    const stat = scan.signals.certExpired;
    if (!stat || stat.count === 0) continue;
    const refuser = memberOfScan(evidence, scan);
    const byIp = stat.from.map((ip) => ({ ip, member: memberOfIp(evidence, ip) }));
    const seen = byRefuser.get(refuser);
    byRefuser.set(refuser, {
      refuser,
      peers: unique([
        ...(seen?.peers ?? []),
        ...byIp.flatMap((b) => b.member ?? []),
        ...stat.peers.map((id) => memberNameById(evidence, id)),
      ]),
      clients: unique([...(seen?.clients ?? []), ...byIp.filter((b) => !b.member).map((b) => b.ip)]),
      count: (seen?.count ?? 0) + stat.count,
      ...withDefined('notAfter', [seen?.notAfter, stat.notAfter].filter(Boolean).sort().at(-1)),
      ...withDefined('firstSeenAt', earliest(seen?.firstSeenAt, stat.firstSeenAt)),
      ...withDefined('lastSeenAt', latest(seen?.lastSeenAt, stat.lastSeenAt)),
      reasons: unique([...(seen?.reasons ?? []), ...stat.reasons]).slice(0, 3),
      ...withDefined('example', stat.example ?? seen?.example),
    });
  }
  return [...byRefuser.values()];
}

function withDefined<K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, string>);
}

/** The member whose peer URL has this IP as its host (one only: a host of several members names none). */
function memberOfIp(evidence: Evidence, ip: string): string | undefined {
  const hostOf = (url: string) => /^\w+:\/\/\[?([^\]/]+?)\]?(?::\d+)?(?:\/|$)/.exec(url)?.[1];
  const listed = evidence.memberList.ok ? evidence.memberList.data : [];
  const owners = listed.filter((m) => m.peerUrls.some((u) => hostOf(u) === ip));
  if (owners.length === 1) return owners[0]?.name || owners[0]?.id;
  const specs = (dataOf(kubernetesOf(evidence)?.etcdPods) ?? []).filter((s) =>
    s.peerUrls.some((u) => hostOf(u) === ip),
  );
  return specs.length === 1 ? specs[0]?.memberName : undefined;
}

function describe(r: Refusal): string[] {
  const span = formatSpan(r.firstSeenAt, r.lastSeenAt);
  return [
    `${r.refuser}: ${r.count} × connection refused for an expired certificate${span ? `, ${span}` : ''}${r.peers.length ? `; peers: ${formatList(r.peers)}` : ''}${r.clients.length ? `; clients: ${formatList(r.clients)}` : ''}`,
    ...r.reasons.map((reason) => `reason: ${reason}`),
    ...(r.example ? [`e.g. ${r.example}`] : []),
  ];
}
