import type { EtcdTlsFiles } from '../clients/etcd-clients.js';

/** Why etcd-doctor could not talk to a member, as found by the access check. */
export type AccessProblemKind =
  | 'client-cert-required'
  | 'client-cert-rejected'
  | 'unknown-ca'
  | 'server-cert-expired'
  | 'server-cert-not-yet-valid'
  | 'name-mismatch'
  | 'http-to-tls-port'
  | 'tls-to-plain-port'
  | 'dns'
  | 'not-etcd'
  | 'refused'
  | 'connect-timeout'
  | 'no-route'
  | 'no-answer'
  | 'reset';

/**
 * Problems of etcd-doctor's own configuration or credentials: the member may be perfectly fine,
 * we just cannot check it. The rest (refused, timed out, reset) can be the member or the path.
 */
const OURS: ReadonlySet<AccessProblemKind> = new Set<AccessProblemKind>([
  'client-cert-required',
  'client-cert-rejected',
  'unknown-ca',
  'server-cert-expired',
  'server-cert-not-yet-valid',
  'name-mismatch',
  'http-to-tls-port',
  'tls-to-plain-port',
  'dns',
  'not-etcd',
]);

export interface AccessProblem {
  kind: AccessProblemKind;
  /** Our own configuration or credentials: the member is unknown, not down. */
  ours: boolean;
  /** What happened, in words: `the server requires a client certificate`. */
  reason: string;
  /** What to do, in one line: `set clusters[0].etcd.tls.certFile and keyFile`. */
  fix: string;
}

export interface ProblemContext {
  etcdPath: string;
  endpointIndex: number | undefined;
  endpoint: string;
  host: string;
  port: number;
  detail: string;
  tls: EtcdTlsFiles | undefined;
}

export function accessProblem(kind: AccessProblemKind, c: ProblemContext): AccessProblem {
  const [reason, fix] = WORDS[kind](c);
  return { kind, ours: OURS.has(kind), reason, fix };
}

/** `clusters[0].etcd.endpoints[1]`, or the advertised URL for a member found in the member list. */
function endpointField(c: ProblemContext): string {
  return c.endpointIndex === undefined
    ? `the client URL this member advertises (--advertise-client-urls), or list it in ${c.etcdPath}.endpoints`
    : `${c.etcdPath}.endpoints[${c.endpointIndex}]`;
}

function otherScheme(c: ProblemContext, scheme: 'http' | 'https'): string {
  return c.endpoint.replace(/^https?:/i, `${scheme}:`);
}

const WORDS: Record<AccessProblemKind, (c: ProblemContext) => [reason: string, fix: string]> = {
  'client-cert-required': (c) => [
    `the server requires a client certificate (${c.detail})`,
    `set ${c.etcdPath}.tls.certFile and keyFile (kubeadm: /etc/kubernetes/pki/etcd/healthcheck-client.crt and .key)`,
  ],
  'client-cert-rejected': (c) => [
    `the server rejected our client certificate (${c.detail})`,
    /expired|not valid until/.test(c.detail)
      ? `renew the client certificate in ${c.etcdPath}.tls.certFile (kubeadm: kubeadm certs renew etcd-healthcheck-client)`
      : `use a client certificate signed by the etcd CA (its --trusted-ca-file) in ${c.etcdPath}.tls.certFile`,
  ],
  'unknown-ca': (c) => [
    `its certificate is not signed by a CA we trust (${c.detail})`,
    c.tls?.rootCertificate
      ? `set ${c.etcdPath}.tls.caFile to the CA that signed the etcd server certificate (kubeadm: /etc/kubernetes/pki/etcd/ca.crt)`
      : `set ${c.etcdPath}.tls.caFile to the etcd CA (kubeadm: /etc/kubernetes/pki/etcd/ca.crt)`,
  ],
  'server-cert-expired': (c) => [
    `its server certificate expired (notAfter ${c.detail})`,
    'renew the etcd server certificate (kubeadm certs renew etcd-server), then restart that etcd member',
  ],
  'server-cert-not-yet-valid': (c) => [
    `its server certificate is not valid yet (notBefore ${c.detail}): a clock is off on one side`,
    "check the clock of etcd-doctor's host and of the member (chronyc tracking)",
  ],
  'name-mismatch': (c) => [
    `its certificate is not for ${c.host} (${c.detail})`,
    `write the member with a name or IP its certificate lists in ${endpointField(c)}`,
  ],
  'http-to-tls-port': (c) => [
    'it speaks TLS on that port, and we sent plain HTTP',
    `write ${otherScheme(c, 'https')} in ${endpointField(c)}`,
  ],
  'tls-to-plain-port': (c) => [
    'it speaks plain HTTP on that port, and we sent TLS',
    `write ${otherScheme(c, 'http')} in ${endpointField(c)}`,
  ],
  dns: (c) => [
    `its host name ${c.host} does not resolve (${c.detail})`,
    `fix the host name in ${endpointField(c)}`,
  ],
  'not-etcd': (c) => [
    `${c.host}:${c.port} answers, but it is not etcd (${c.detail})`,
    `point ${endpointField(c)} at etcd's client URL (port 2379 by default)`,
  ],
  refused: (c) => [
    `the connection to ${c.host}:${c.port} was refused`,
    'the member is down, the port is wrong, or a firewall between etcd-doctor and etcd rejects it',
  ],
  'connect-timeout': (c) => [
    `no TCP connection to ${c.host}:${c.port} could be made (${c.detail})`,
    'the host is down, or a firewall between etcd-doctor and etcd drops the packets',
  ],
  'no-route': (c) => [
    `there is no network route to ${c.host}:${c.port} (${c.detail})`,
    "check the network path from etcd-doctor's host to the member",
  ],
  'no-answer': (c) => [
    `${c.host}:${c.port} accepts connections but does not answer`,
    'the etcd process is hung (stopped, or stuck in I/O): check it on its node',
  ],
  reset: (c) => [
    `${c.host}:${c.port} closed the connection without an answer (${c.detail})`,
    'check what listens there and its logs',
  ],
};
