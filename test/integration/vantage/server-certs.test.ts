import { mkdtemp, readFile, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type Server } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createCertificateAuthority, issueCertificate } from '../../support/lab/tls-certs.js';
import { checkAccess } from '../../../src/probes/access-check.js';

/** A TLS server on 127.0.0.1 that answers GET /version like etcd, with the given certificate. */
async function versionServer(certFile: string, keyFile: string): Promise<{ server: Server; url: string }> {
  const server = createServer({ cert: await readFile(certFile), key: await readFile(keyFile) }, (socket) => {
    socket.once('data', () =>
      socket.end(
        'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n{"etcdserver":"3.5.16","etcdcluster":"3.5.0"}',
      ),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `https://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/**
 * The server side of certificate trouble, against real TLS servers with openssl-made certificates:
 * an expired server certificate, one not valid yet, and a good one (no problem). The client side
 * (client certificates, scheme mix-ups, names) is proven against real etcd in
 * test/integration/vantage/tls-access.etcd.test.ts.
 */
describe('checkAccess: server certificates', () => {
  let dir: string;
  let ca: Buffer;
  const servers: Server[] = [];
  const urls: Record<'good' | 'expired' | 'future', string> = { good: '', expired: '', future: '' };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'access-check-'));
    const authority = await createCertificateAuthority(dir, 'unit-ca');
    ca = await readFile(authority.certFile);
    const specs = {
      good: {},
      expired: { notBefore: new Date('2024-01-01T00:00:00Z'), notAfter: new Date('2025-01-01T00:00:00Z') },
      future: { notBefore: new Date('2099-01-01T00:00:00Z'), notAfter: new Date('2099-02-01T00:00:00Z') },
    };
    for (const [name, validity] of Object.entries(specs) as Array<[keyof typeof urls, object]>) {
      const cert = await issueCertificate(authority, { name, usage: 'server', ...validity });
      const { server, url } = await versionServer(cert.certFile, cert.keyFile);
      servers.push(server);
      urls[name] = url;
    }
  });
  afterAll(async () => {
    for (const s of servers) s.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const check = (endpoint: string) =>
    checkAccess({
      endpoint,
      tls: { rootCertificate: ca },
      timeoutMs: 1500,
      where: { etcdPath: 'clusters[0].etcd', endpointIndex: 0 },
    });

  it('a good certificate: no problem', async () => {
    expect(await check(urls.good)).toBeUndefined();
  });

  it('an expired server certificate: ours to fix, with its notAfter', async () => {
    expect(await check(urls.expired)).toEqual({
      kind: 'server-cert-expired',
      ours: true,
      reason: 'its server certificate expired (notAfter Jan  1 00:00:00 2025 GMT)',
      fix: 'renew the etcd server certificate (kubeadm certs renew etcd-server), then restart that etcd member',
    });
  });

  it('a server certificate not valid yet: a clock is off', async () => {
    expect(await check(urls.future)).toMatchObject({
      kind: 'server-cert-not-yet-valid',
      reason:
        'its server certificate is not valid yet (notBefore Jan  1 00:00:00 2099 GMT): a clock is off on one side',
    });
  });
});
