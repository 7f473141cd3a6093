import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCertificateAuthority, issueCertificate } from '../lab/tls-certs.js';

/**
 * Certificates for a TLS Redis (openssl, made per run): one CA, a server certificate for 127.0.0.1
 * that every redis-server and sentinel presents and also uses as a client (replication, the cluster
 * bus, sentinels asking each other), and etcd-doctor's client certificate. Redis asks clients for a
 * certificate by default (`tls-auth-clients yes`). Never shipped: tests only.
 */
export interface RedisPki {
  readonly caFile: string;
  readonly serverCertFile: string;
  readonly serverKeyFile: string;
  readonly clientCertFile: string;
  readonly clientKeyFile: string;
  /** Another CA's certificate: a client that trusts only it must refuse the servers. */
  readonly strangerCaFile: string;
  /** redis-server's TLS arguments (with `--port 0`: no plain-text port at all). */
  serverArgs(): string[];
  /** The same as lines of a sentinel's config file. */
  sentinelConf(): string[];
  /** redis-cli's TLS arguments, as etcd-doctor's client. */
  cliArgs(): string[];
  destroy(): Promise<void>;
}

export async function createRedisPki(): Promise<RedisPki> {
  const dir = await mkdtemp(join(tmpdir(), 'etcd-doctor-redis-tls-'));
  const ca = await createCertificateAuthority(dir, 'redis-ca');
  const stranger = await createCertificateAuthority(dir, 'stranger-ca');
  const server = await issueCertificate(ca, { name: 'redis-server', usage: 'both' });
  const client = await issueCertificate(ca, { name: 'etcd-doctor', usage: 'client', ips: [] });
  const files = ['--tls-cert-file', server.certFile, '--tls-key-file', server.keyFile];
  return {
    caFile: ca.certFile,
    serverCertFile: server.certFile,
    serverKeyFile: server.keyFile,
    clientCertFile: client.certFile,
    clientKeyFile: client.keyFile,
    strangerCaFile: stranger.certFile,
    serverArgs: () => [...files, '--tls-ca-cert-file', ca.certFile, '--tls-replication', 'yes'],
    sentinelConf: () => [
      `tls-cert-file ${server.certFile}`,
      `tls-key-file ${server.keyFile}`,
      `tls-ca-cert-file ${ca.certFile}`,
      'tls-replication yes',
    ],
    cliArgs: () => ['--tls', '--cacert', ca.certFile, '--cert', client.certFile, '--key', client.keyFile],
    destroy: () => rm(dir, { recursive: true, force: true }),
  };
}
