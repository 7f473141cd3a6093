import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { faultsNow } from '../../support/evidence/findings.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { stringify } from 'yaml';
import { type EtcdLab, startEtcdLab } from '../../support/lab/etcd-lab.js';
import { allocateFreePorts } from '../../support/lab/free-ports.js';
import { createCertificateAuthority, issueCertificate } from '../../support/lab/tls-certs.js';
import type { DiagnosisReport } from '../../../src/contracts/report-json.js';
import { cliInProcess } from '../../support/process/cli-in-process.js';
import { cliProcess } from '../../support/process/cli-process.js';

interface AccessCase {
  cluster: string;
  kind: string;
  /** The one line the user sees, after `etcd-doctor could not check <cluster>: <member>: `. */
  line: RegExp;
}

/**
 * kubeadm's etcd layout for real: three members with TLS on client and peer URLs,
 * `--client-cert-auth`, /metrics only on the client URL, certificates made by openssl for this run
 * (EC P-256, SAN 127.0.0.1). etcd-doctor with the right files gets every probe over mTLS; every
 * way of getting its own access wrong gives status `unknown`, exit 3 and the fix in one line,
 * never a cluster failure.
 */
describe('a TLS cluster with --client-cert-auth', () => {
  let lab: EtcdLab;
  let plain: EtcdLab;
  let dir: string;
  let configFile: string;
  let closedPort: number;

  beforeAll(async () => {
    [lab, plain] = await Promise.all([startEtcdLab({ tls: true }), startEtcdLab({ size: 1 })]);
    dir = await mkdtemp(join(tmpdir(), 'etcd-doctor-tls-'));
    const tls = lab.tls;
    if (!tls) throw new Error('the TLS lab has no certificates');
    const foreignCa = await createCertificateAuthority(dir, 'someone-elses-ca');
    const foreign = await issueCertificate(foreignCa, { name: 'foreign-client', usage: 'client', ips: [] });
    const expired = await issueCertificate(tls.ca, {
      name: 'expired-client',
      usage: 'client',
      ips: [],
      notBefore: new Date('2024-01-01T00:00:00Z'),
      notAfter: new Date('2025-01-01T00:00:00Z'),
    });
    [closedPort = 1] = await allocateFreePorts(1, '127.0.0.1');
    const good = { caFile: tls.caFile, certFile: tls.certFile, keyFile: tls.keyFile };
    const cluster = (name: string, endpoints: string[], t: Record<string, string> | undefined) => ({
      name,
      etcd: { endpoints, ...(t ? { tls: t } : {}) },
    });
    const config = {
      clusters: [
        cluster('mtls', lab.endpoints, good),
        cluster('nocert', lab.endpoints, { caFile: tls.caFile }),
        cluster('foreign', lab.endpoints, { ...good, certFile: foreign.certFile, keyFile: foreign.keyFile }),
        cluster('expired', lab.endpoints, { ...good, certFile: expired.certFile, keyFile: expired.keyFile }),
        cluster('unknownca', lab.endpoints, { ...good, caFile: foreignCa.certFile }),
        cluster(
          'wrongname',
          lab.endpoints.map((e) => e.replace('127.0.0.1', 'localhost')),
          good,
        ),
        cluster(
          'plainhttp',
          lab.endpoints.map((e) => e.replace('https:', 'http:')),
          good,
        ),
        cluster(
          'tlstoplain',
          plain.endpoints.map((e) => e.replace('http:', 'https:')),
          good,
        ),
        // An empty label fails in getaddrinfo itself: no DNS query leaves the host.
        cluster('dns', ['https://etcd-1..lab:2379'], good),
        cluster('refused', [`https://127.0.0.1:${closedPort}`], good),
        cluster('hung', plain.endpoints, undefined),
      ],
      probes: { timeoutMs: 2000, metricsWindowMs: 500 },
    };
    configFile = join(dir, 'etcd-doctor.yaml');
    await writeFile(configFile, stringify(config));
  });
  afterAll(async () => {
    await Promise.all([lab?.destroy(), plain?.destroy()]);
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const json = async (depth: 'health' | 'diagnose', cluster: string) => {
    const res = await cliInProcess([depth, cluster, '--config', configFile, '--json']);
    return { code: res.code, report: JSON.parse(res.stdout) as DiagnosisReport };
  };

  it('with the right files: health and diagnose over mTLS, /metrics and clocks of every member, exit 0', async () => {
    const health = await json('health', 'mtls');
    expect(health.code).toBe(0);
    expect(health.report.status).toBe('healthy');
    expect(health.report.members.map((m) => m.name).sort()).toEqual(['etcd-1', 'etcd-2', 'etcd-3']);
    const diagnose = await json('diagnose', 'mtls');
    // The lab's data is on tmpfs, so no disk is slow: nothing above info, exit 0.
    expect(faultsNow(diagnose.report.findings)).toEqual([]);
    expect(diagnose.code).toBe(0);
    // First, so a failure names the probe that failed and its error.
    expect(diagnose.report.probes.filter((p) => !p.ok)).toEqual([]);
    for (const m of diagnose.report.members) {
      expect(m).toMatchObject({ reachable: true, access: null, isLearner: false });
      expect(m.walFsyncSamples).not.toBeNull();
      expect(m.clockOffsetMs).not.toBeNull();
    }
  });

  it('a real process prints nothing on stderr: no DEP0123 TLS ServerName warning', async () => {
    const ok = await cliProcess(['diagnose', 'mtls', '--config', configFile]);
    expect(ok.stderr).toBe('');
    // The lab's data is on tmpfs (no slow disk) and a loaded host is an info finding: HEALTHY, exit 0.
    expect(ok.stdout).toMatch(/^Diagnosis of mtls: HEALTHY/);
    expect(ok.stdout).not.toMatch(/no-access|NOT CHECKED/);
    expect(ok.code).toBe(0);
  });

  const cases: AccessCase[] = [
    {
      cluster: 'nocert',
      kind: 'client-cert-required',
      line: /: the server requires a client certificate \(TLS alert \d+, [a-z ]+\): set clusters\[1\]\.etcd\.tls\.certFile and keyFile/,
    },
    {
      cluster: 'foreign',
      kind: 'client-cert-rejected',
      line: /: the server rejected our client certificate \(TLS alert \d+, [a-z ]+; our client certificate is issued by someone-elses-ca, not by the CA in caFile \(etcd-lab-ca\)\): use a client certificate signed by the etcd CA \(its --trusted-ca-file\) in clusters\[2\]\.etcd\.tls\.certFile/,
    },
    {
      cluster: 'expired',
      kind: 'client-cert-rejected',
      line: /: the server rejected our client certificate \(TLS alert \d+, [a-z ]+; our client certificate expired on Jan {2}1 00:00:00 2025 GMT\): renew the client certificate in clusters\[3\]\.etcd\.tls\.certFile/,
    },
    {
      cluster: 'unknownca',
      kind: 'unknown-ca',
      line: /: its certificate is not signed by a CA we trust \(UNABLE_TO_VERIFY_LEAF_SIGNATURE, issued by etcd-lab-ca\): set clusters\[4\]\.etcd\.tls\.caFile to the CA that signed the etcd server certificate/,
    },
    {
      cluster: 'wrongname',
      kind: 'name-mismatch',
      line: /: its certificate is not for localhost \(IP Address:127\.0\.0\.1\): write the member with a name or IP its certificate lists in clusters\[5\]\.etcd\.endpoints\[\d\]/,
    },
    {
      cluster: 'plainhttp',
      kind: 'http-to-tls-port',
      line: /: it speaks TLS on that port, and we sent plain HTTP: write https:\/\/127\.0\.0\.1:\d+ in clusters\[6\]\.etcd\.endpoints\[\d\]/,
    },
    {
      cluster: 'tlstoplain',
      kind: 'tls-to-plain-port',
      line: /: it speaks plain HTTP on that port, and we sent TLS: write http:\/\/127\.0\.0\.1:\d+ in clusters\[7\]\.etcd\.endpoints\[0\]/,
    },
    {
      cluster: 'dns',
      kind: 'dns',
      line: /etcd-1\.\.lab:2379: its host name etcd-1\.\.lab does not resolve \(ENOTFOUND\): fix the host name in clusters\[8\]\.etcd\.endpoints\[0\]/,
    },
  ];

  it.each(cases)(
    '$cluster: status unknown, exit 3, every member not checked ($kind), the fix in one line',
    async (c) => {
      const text = await cliInProcess(['health', c.cluster, '--config', configFile]);
      expect(text.code).toBe(3);
      expect(text.stdout).toMatch(new RegExp(`^Health of ${c.cluster}: UNKNOWN`));
      const line = text.stdout
        .split('\n')
        .find((l) => l.includes(`etcd-doctor could not check ${c.cluster}: `));
      expect(line).toMatch(c.line);
      expect(text.stdout).not.toMatch(/quorum-lost|member-down|DOWN/);
      const { code, report } = await json('diagnose', c.cluster);
      expect(code).toBe(3);
      expect(report.status).toBe('unknown');
      expect(report.findings[0]).toMatchObject({ cause: 'no-access' });
      expect(report.findings.filter((f) => f.cause !== 'no-access' && f.cause !== 'observer-load')).toEqual(
        [],
      );
      for (const m of report.members) {
        expect(m.reachable).toBeNull();
        expect(m.access).toMatchObject({ cause: 'no-access', kind: c.kind });
      }
    },
  );

  it('refused: unknown, exit 3, and it says it cannot tell quorum loss from a network problem', async () => {
    const text = await cliInProcess(['health', 'refused', '--config', configFile]);
    expect(text.code).toBe(3);
    expect(text.stdout).toContain(
      'No etcd member of refused answers etcd-doctor (connection refused on its client URL). etcd-doctor cannot tell quorum loss from a network problem between itself and etcd',
    );
    const { report } = await json('health', 'refused');
    expect(report.members[0]).toMatchObject({ reachable: null, access: { kind: 'refused' } });
  });

  it('timeout (the only member hung): unknown, exit 3, no quorum-lost', async () => {
    plain.stop('etcd-1');
    try {
      const text = await cliInProcess(['health', 'hung', '--config', configFile]);
      expect(text.code).toBe(3);
      expect(text.stdout).toContain(
        'No etcd member of hung answers etcd-doctor (no answer on its client URL). etcd-doctor cannot tell quorum loss from a network problem between itself and etcd',
      );
      expect(text.stdout).toMatch(/accepts connections but does not answer/);
      expect(text.stdout).not.toMatch(/quorum-lost/);
    } finally {
      plain.cont('etcd-1');
    }
  });
});
