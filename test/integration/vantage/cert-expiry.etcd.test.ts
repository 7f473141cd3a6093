import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { configFileSchema } from '../../../src/config/schema.js';
import { createDoctor, type Doctor } from '../../../src/doctor.js';
import { renderText } from '../../../src/report/render-text.js';
import { type EtcdLab, startEtcdLab } from '../../support/lab/etcd-lab.js';
import { issueCertificate } from '../../support/lab/tls-certs.js';

/**
 * Certificates that expire soon, on a real kubeadm-like TLS lab: the members' server certificates
 * made by openssl to expire in 10 days, and a client certificate for etcd-doctor that expires in
 * 2 days. The dates come from the TLS connections the probes already make.
 */
describe('cert-expiry on a TLS cluster', () => {
  let lab: EtcdLab;
  let doctor: Doctor;

  beforeAll(async () => {
    lab = await startEtcdLab({ tls: true, serverCertDays: 10 });
    const tls = lab.tls;
    if (!tls) throw new Error('the TLS lab has no certificates');
    const shortLived = await issueCertificate(tls.ca, {
      name: 'etcd-doctor-short',
      usage: 'client',
      ips: [],
      notAfter: new Date(Date.now() + 2 * 86_400_000),
    });
    const good = { caFile: tls.caFile, certFile: tls.certFile, keyFile: tls.keyFile };
    const config = configFileSchema.parse({
      clusters: [
        { name: 'lab', etcd: { endpoints: lab.endpoints, tls: good } },
        {
          name: 'ours',
          etcd: {
            endpoints: lab.endpoints,
            tls: { ...good, certFile: shortLived.certFile, keyFile: shortLived.keyFile },
          },
        },
      ],
      probes: { timeoutMs: 3000, metricsWindowMs: 1000 },
    });
    doctor = createDoctor({ config, readFileBuffer: (p) => readFile(p) });
  });

  afterAll(async () => {
    await doctor?.close();
    await lab?.destroy();
  });

  it('names every member whose server certificate expires in 10 days, as a warning with the date', async () => {
    const report = await doctor.run('lab', 'diagnose');
    const finding = report.findings.find((f) => f.cause === 'cert-expiry');
    expect(finding).toMatchObject({ severity: 'warning', members: ['etcd-1', 'etcd-2', 'etcd-3'] });
    expect(finding?.summary).toMatch(
      /^etcd-1's server certificate, etcd-2's server certificate and etcd-3's server certificate expire, the first in 10 days \(\d{4}-\d\d-\d\d \d\d:\d\d UTC\): after that clients, the apiserver included, fail with `x509: certificate has expired`$/,
    );
    expect(finding?.evidence[0]).toMatch(
      /^etcd-1 \(https:\/\/127\.0\.0\.1:\d+\): server certificate CN=server, issued by etcd-lab-ca, valid until \S+ \((9\.9|10\.0) days\)$/,
    );
    expect(renderText(report)).toContain(
      'kubeadm certs renew etcd-server etcd-peer etcd-healthcheck-client apiserver-etcd-client',
    );
    // The cluster works: nothing else is wrong with it.
    expect(report.status).toBe('degraded');
  });

  it("says etcd-doctor's own client certificate expires in 2 days, critical, without blaming a member", async () => {
    const report = await doctor.run('ours', 'diagnose');
    const finding = report.findings.find((f) => f.cause === 'cert-expiry');
    expect(finding?.severity).toBe('critical');
    expect(finding?.evidence).toContainEqual(
      expect.stringMatching(
        /^etcd-doctor's client certificate \(etcd\.tls\.certFile, CN=etcd-doctor-short\), valid until \S+ \((1\.9|2\.0) days\)$/,
      ),
    );
    expect(finding?.steps.map((s) => s.text).join('\n')).toContain(
      'kubeadm certs renew etcd-healthcheck-client',
    );
  });

  it('a health check does not read certificates (it asks only Status and a read)', async () => {
    const report = await doctor.run('lab', 'health');
    expect(report.findings.map((f) => f.cause)).not.toContain('cert-expiry');
  });
});
