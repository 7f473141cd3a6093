import { X509Certificate } from 'node:crypto';
import type { EtcdTlsFiles } from '../clients/etcd-clients.js';
import { issuerCn } from './access-check.js';
import type { OwnCertificate } from './evidence.js';

/** The dates of the client certificate and CA etcd-doctor uses for the cluster; unreadable ones are left out. */
export function ownCertificates(tls: EtcdTlsFiles): OwnCertificate[] {
  const read = (role: OwnCertificate['role'], pem: Buffer | undefined): OwnCertificate[] => {
    if (!pem) return [];
    try {
      const cert = new X509Certificate(pem);
      const subject = issuerCn(cert, 'subject');
      return [{ role, subject, validTo: new Date(Date.parse(cert.validTo)).toISOString() }];
    } catch {
      return [];
    }
  };
  return [...read('client', tls.certChain), ...read('ca', tls.rootCertificate)];
}
