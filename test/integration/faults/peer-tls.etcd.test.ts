import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { cliInProcess } from '../../support/process/cli-in-process.js';
import { type EtcdLab, startEtcdLab } from '../../support/lab/etcd-lab.js';
import { issueCertificate } from '../../support/lab/tls-certs.js';

/** Refusals each healthy member must have logged before the logs are read (the rule's critical bound). */
const REFUSALS = 3;
const WAIT_MS = 30_000;

/**
 * Peer TLS refused, for real: a kubeadm-like TLS lab (openssl certificates, --peer-client-cert-auth)
 * whose etcd-3 is restarted with a peer certificate that names only `DNS:etcd-3.invalid`, no IP.
 * etcd-1 and etcd-2 refuse its connections (etcd's SAN check of a peer's client certificate
 * against its address) and cannot verify it when they dial it (x509). Their own logs, as etcd
 * wrote them, go through `etcd-doctor analyze`: peer-tls names etcd-3.
 */
describe('peer-tls from the logs real etcd members wrote', () => {
  let lab: EtcdLab;
  let dir: string;
  const bad = () => ({
    flag: join(dir, 'use-bad-peer-cert'),
    cert: join(dir, 'bad.crt'),
    key: join(dir, 'bad.key'),
  });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'etcd-doctor-peer-tls-'));
    const { flag, cert, key } = bad();
    // etcd-3 runs through sh, which execs etcd in place; once the flag file exists, with the bad
    // peer certificate appended (Go's flag package: the last value of a flag wins).
    const script = `if [ -f '${flag}' ]; then exec "$@" --peer-cert-file '${cert}' --peer-key-file '${key}'; fi; exec "$@"`;
    lab = await startEtcdLab({
      tls: true,
      wrap: (m) => (m === 'etcd-3' ? ['sh', '-c', script, 'sh'] : undefined),
    });
  });
  afterAll(async () => {
    await lab?.destroy();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('names etcd-3, the member whose peer certificate is refused, with the reason and one fix', async () => {
    const tls = lab.tls;
    if (!tls) throw new Error('the TLS lab has no certificates');
    const issued = await issueCertificate(tls.ca, {
      name: 'etcd-3-peer-dns-only',
      ips: [],
      dnsNames: ['etcd-3.invalid'],
      usage: 'both',
    });
    const { flag, cert, key } = bad();
    await Promise.all([copyFile(issued.certFile, cert), copyFile(issued.keyFile, key)]);
    await writeFile(flag, '');
    const before = ['etcd-1', 'etcd-2'].map((m) => refusals(lab.logs(m)));
    // Cut off from its peers, etcd-3 never serves /version (it waits to publish itself through raft):
    // the restart's own wait gives up after 20 s, while the member runs on. The logs are the signal.
    const restarted = lab.restart('etcd-3').then(
      () => 'serving',
      () => 'not serving',
    );
    // Bounded wait on what the members log: each healthy member refused etcd-3 a few times.
    const deadline = Date.now() + WAIT_MS;
    while (
      Date.now() < deadline &&
      ['etcd-1', 'etcd-2'].some((m, i) => refusals(lab.logs(m)) - (before[i] ?? 0) < REFUSALS)
    )
      await new Promise((r) => setTimeout(r, 250));
    expect(['etcd-1', 'etcd-2'].map((m, i) => refusals(lab.logs(m)) - (before[i] ?? 0) >= REFUSALS)).toEqual([
      true,
      true,
    ]);

    const files = await Promise.all(
      lab.members.map(async (m) => {
        const path = join(dir, `${m.name}.log`);
        await writeFile(path, lab.logs(m.name));
        return path;
      }),
    );
    const r = await cliInProcess(['analyze', ...files, '--json']);
    expect(await restarted).toBe('not serving');
    expect(r.stderr).toBe('');
    const report = JSON.parse(r.stdout) as {
      findings: Array<{
        cause: string;
        severity: string;
        members: string[];
        summary: string;
        remediation: string[];
        causedBy: string | null;
      }>;
    };
    expect(report.findings[0]).toMatchObject({
      cause: 'peer-tls',
      severity: 'critical',
      members: ['etcd-3'],
    });
    expect(report.findings[0]?.summary).toMatch(/^etcd-3 has its peer certificate refused \(/);
    expect(report.findings[0]?.summary).toMatch(/etcd-3\.invalid/);
    expect(report.findings[0]?.remediation).toHaveLength(1);
    // What else the partition shows is put down to it (or is the past), never a root cause of its own.
    const ownRootCauses = report.findings
      .slice(1)
      .filter((f) => f.causedBy !== 'peer-tls' && f.severity !== 'info')
      .map((f) => `${f.cause} [${f.severity}] ${f.members.join(',')}: ${f.summary}`);
    expect(ownRootCauses).toEqual([]);
  }, 90_000);
});

/** zap `rejected connection` lines whose error is a TLS one, in a member's log so far. */
function refusals(log: string): number {
  return log.split('\n').filter((l) => l.includes('"msg":"rejected connection') && l.includes('tls: '))
    .length;
}
