import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { TlsMaterial } from '../../../src/clients/grpc-tls.js';
import { type CertificateAuthority, createCertificateAuthority, issueCertificate } from './tls-certs.js';

/** What a TLS lab gives its tests: the CA (to sign more certificates) and a client certificate the members accept. */
export interface LabTls {
  readonly ca: CertificateAuthority;
  readonly caFile: string;
  readonly certFile: string;
  readonly keyFile: string;
}

/** The lab's whole PKI: kubeadm's layout (one CA, server, peer and client certificates). */
export interface LabPki extends LabTls {
  serverCertFile: string;
  serverKeyFile: string;
  peerCertFile: string;
  peerKeyFile: string;
  /** The client certificate as buffers, for the lab's own clients. */
  material: TlsMaterial;
}

/**
 * A CA and the member, peer and client certificates, all for `host`, in `dir/pki`; the members'
 * server certificates valid for `serverCertDays` (default: issueCertificate's year).
 */
export async function createLabPki(dir: string, host: string, serverCertDays?: number): Promise<LabPki> {
  const ca = await createCertificateAuthority(join(dir, 'pki'), 'etcd-lab-ca');
  const serverNotAfter =
    serverCertDays === undefined ? {} : { notAfter: new Date(Date.now() + serverCertDays * 86_400_000) };
  const [server, peer, client] = await Promise.all([
    issueCertificate(ca, { name: 'server', ips: [host], usage: 'both', ...serverNotAfter }),
    issueCertificate(ca, { name: 'peer', ips: [host], usage: 'both' }),
    issueCertificate(ca, { name: 'etcd-doctor-client', ips: [], usage: 'client' }),
  ]);
  const [rootCertificate, certChain, privateKey] = await Promise.all(
    [ca.certFile, client.certFile, client.keyFile].map((f) => readFile(f)),
  );
  return {
    ca,
    caFile: ca.certFile,
    certFile: client.certFile,
    keyFile: client.keyFile,
    serverCertFile: server.certFile,
    serverKeyFile: server.keyFile,
    peerCertFile: peer.certFile,
    peerKeyFile: peer.keyFile,
    material: {
      ...(rootCertificate ? { rootCertificate } : {}),
      ...(certChain ? { certChain } : {}),
      ...(privateKey ? { privateKey } : {}),
    },
  };
}

/** kubeadm's etcd flags: TLS with client-certificate auth on the client and the peer URLs. */
export function tlsMemberArgs(pki: LabPki): string[] {
  return [
    ...['--cert-file', pki.serverCertFile, '--key-file', pki.serverKeyFile],
    ...['--trusted-ca-file', pki.caFile, '--client-cert-auth'],
    ...['--peer-cert-file', pki.peerCertFile, '--peer-key-file', pki.peerKeyFile],
    ...['--peer-trusted-ca-file', pki.caFile, '--peer-client-cert-auth'],
  ];
}

/** etcdctl's TLS flags for the lab's client certificate. */
export function tlsEtcdctlArgs(pki: LabPki | undefined): string[] {
  if (!pki) return [];
  return [`--cacert=${pki.caFile}`, `--cert=${pki.certFile}`, `--key=${pki.keyFile}`];
}

/** Only what tests may see: the CA and the client certificate files. */
export function publicTls(pki: LabPki | undefined): LabTls | undefined {
  if (!pki) return undefined;
  return { ca: pki.ca, caFile: pki.caFile, certFile: pki.certFile, keyFile: pki.keyFile };
}
