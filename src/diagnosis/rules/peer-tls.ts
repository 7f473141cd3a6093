import type { Evidence } from '../../probes/evidence.js';
import { formatList } from '../../format.js';
import type { Finding, Severity } from '../finding.js';
import type { Rule } from '../rule.js';
import { describeSignal, etcdSignalByMember } from '../support/logs.js';
import { kubernetesOf, memberOfScan, scansOf } from '../support/kubernetes.js';
import { memberNameById } from '../support/members.js';
import { hostOfUrl } from '../../etcd/hosts.js';

/**
 * Peer connections refused for TLS: embed's `rejected connection from "<ip:port>"
 * (error "tls: …")` and peer dials failing on x509 (a name or IP missing from the certificate's
 * SAN, an unknown authority, an expired certificate). The members cannot form a quorum link, so
 * elections stall at a rising term: it explains churn and unreachable peers.
 */
export const peerTlsRule: Rule = {
  name: 'peer-tls',
  cause: 'peer-tls',
  needs: ['kubernetes'],
  rank: 18,
  explains: [
    'leader-churn',
    'peer-network',
    'member-down',
    'quorum-lost',
    'control-plane-restarts',
    'apiserver-latency',
  ],
  evaluate(evidence) {
    const refused = etcdSignalByMember(
      evidence,
      (s) => s.signals.tlsRejected ?? { count: 0, example: undefined },
    );
    const explain = [
      refused.length
        ? `TLS refusals in the etcd logs: ${refused.map((r) => `${r.member} ${r.count}`).join(', ')}`
        : 'no TLS refusals in the etcd logs',
    ];
    if (refused.length === 0) return { explain };
    const reasons = reasonsOf(evidence);
    const stuck = refused.some((r) => r.count >= 3);
    const severity: Severity = stuck ? 'critical' : 'warning';
    const culprits = culpritsOf(evidence);
    const members = culprits.length ? culprits : refused.map((r) => r.member);
    const others = refused.map((r) => r.member).filter((m) => !members.includes(m));
    const finding: Finding = {
      cause: 'peer-tls',
      severity,
      members,
      nodes: [],
      summary: culprits.length
        ? `${formatList(members)} ${members.length === 1 ? 'has its' : 'have their'} peer certificate refused (${reasons[0] ?? 'a certificate problem'}), so no peer link forms with ${formatList(others.length ? others : refused.map((r) => r.member))}`
        : `Members refuse each other's TLS connections (${reasons[0] ?? 'a certificate problem'}): ${formatList(members)} cannot keep a peer link`,
      evidence: [
        ...refused.map((r) => `${r.member}: ${describeSignal(r, 'TLS connection refused')}`),
        ...reasons.map((r) => `reason: ${r}`),
        ...refused.slice(0, 1).flatMap((r) => (r.example ? [`e.g. ${r.example}`] : [])),
      ],
      steps: [
        {
          text: "Reissue the peer certificates with every member's peer IP and DNS name in the SAN, signed by the CA in --peer-trusted-ca-file and not expired; check with `openssl x509 -in peer.crt -noout -text -dates` (etcd security guide)",
        },
      ],
      unknowns: [],
    };
    return { finding, explain };
  },
};

/**
 * The members whose certificate is refused: the peers whose connections others refused (their
 * `remote-addr` IP is the host of one member's peer URL), the peers whose certificate others' dials
 * could not verify (x509 on a dial to that peer), and the members that logged their own certificate
 * refused (`remote error: tls: bad certificate`). Empty when none of these names a member.
 */
function culpritsOf(evidence: Evidence): string[] {
  const peers = evidence.memberList.ok ? evidence.memberList.data : [];
  // An IP names a member only when one member's peer URL has it (a lab or a host of several members: none).
  const byIp = (ip: string) => {
    const owners = peers.filter((m) => m.peerUrls.some((u) => hostOfUrl(u) === ip));
    return owners.length === 1 ? memberName(owners[0]) : undefined;
  };
  const names = scansOf(kubernetesOf(evidence), 'etcd').flatMap((s) => {
    const stat = s.signals.tlsRejected;
    if (!stat || stat.count === 0) return [];
    const remote = (stat.from ?? []).map(byIp).filter((n): n is string => n !== undefined);
    const dialed = (stat.peers ?? []).map((id) => memberNameById(evidence, id));
    return [...remote, ...dialed, ...((stat.ownRefused ?? 0) > 0 ? [memberOfScan(evidence, s)] : [])];
  });
  return [...new Set(names)];
}

/** A member as the rules name it: its name, else its id (a member no log or list names). */
function memberName(m: { name: string; id: string } | undefined): string | undefined {
  return m ? m.name || m.id : undefined;
}

/** The distinct TLS errors the etcd logs gave, at most three. */
function reasonsOf(evidence: Evidence): string[] {
  const all = scansOf(kubernetesOf(evidence), 'etcd').flatMap((s) =>
    (s.signals.tlsRejected?.reasons ?? []).map((r) => `${r} (${memberOfScan(evidence, s)})`),
  );
  return [...new Set(all)].slice(0, 3);
}
