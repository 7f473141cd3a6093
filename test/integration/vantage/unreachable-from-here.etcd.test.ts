import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { stringify } from 'yaml';
import { configFileSchema } from '../../../src/config/schema.js';
import { createDoctor, type Doctor } from '../../../src/doctor.js';
import { type EtcdLab, startEtcdLab } from '../../support/lab/etcd-lab.js';
import type { DiagnosisReport } from '../../../src/contracts/report-json.js';
import { cliInProcess } from '../../support/process/cli-in-process.js';
import { type FakeKubeApi, startFakeKubeApi } from '../../support/kube/fake-kube-api.js';
import { writeFakeKubeconfig } from '../../support/kube/fake-kubeconfig.js';

/** Steps that tell the user to restore from a snapshot (a warning not to is fine). */
function restoreAdvice(report: DiagnosisReport): string[] {
  return report.findings
    .flatMap((f) => f.remediation)
    .filter((text) => /restore/i.test(text) && !/^Do not restore/.test(text));
}

/**
 * Every client URL refuses etcd-doctor (the members are killed for real), while the cluster's
 * apiserver (the local fake) says `[+]etcd ok` and reads through it work: at 3 a.m. that must not
 * read as quorum loss with restore advice. When the apiserver says `[-]etcd failed` and its reads
 * fail too, quorum loss is back on the table. Without Kubernetes, etcd-doctor says it cannot tell.
 */
describe('no member answers etcd-doctor: a second vantage point decides', () => {
  let lab: EtcdLab;
  let fake: FakeKubeApi;
  let doctor: Doctor;
  let dir: string;
  let configFile: string;

  beforeAll(async () => {
    lab = await startEtcdLab();
    fake = await startFakeKubeApi({ fixture: 'kubeadm-1.29-healthy' });
    dir = await mkdtemp(join(tmpdir(), 'etcd-doctor-vantage-'));
    const kubeconfig = await writeFakeKubeconfig(fake.url, { token: fake.token, context: 'prod', dir });
    const config = {
      clusters: [
        { name: 'prod', etcd: { endpoints: lab.endpoints }, kubernetes: { kubeconfig, context: 'prod' } },
        { name: 'bare', etcd: { endpoints: lab.endpoints } },
      ],
      probes: { timeoutMs: 2000, metricsWindowMs: 300 },
    };
    configFile = join(dir, 'etcd-doctor.yaml');
    await writeFile(configFile, stringify(config));
    const started = Date.now();
    const now = () => fake.fixture.recordedAtMs + (Date.now() - started);
    doctor = createDoctor({
      config: configFileSchema.parse(config),
      readFileBuffer: (p) => readFile(p),
      now,
    });
    for (const m of lab.members) await lab.kill(m.name);
  });
  afterAll(async () => {
    await doctor?.close();
    await fake?.close();
    await lab?.destroy();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('the apiserver reaches etcd: unreachable-from-here, status unknown, exit 3, no quorum-lost, no restore advice', async () => {
    const report = await doctor.run('prod', 'diagnose');
    expect(report.status).toBe('unknown');
    expect(report.findings[0]).toMatchObject({ cause: 'unreachable-from-here', severity: 'warning' });
    expect(report.findings[0]?.summary).toMatch(
      /^No etcd member of prod answers etcd-doctor \(connection refused on all 3 client URLs\), but the apiserver still reaches etcd/,
    );
    expect(report.findings[0]?.evidence).toEqual(
      expect.arrayContaining([
        "the apiserver's /readyz?verbose says [+]etcd ok",
        expect.stringMatching(
          /^a read through the apiserver \(GET namespace kube-system, served from etcd\) took/,
        ),
      ]),
    );
    expect(report.findings.map((f) => f.cause)).not.toContain('quorum-lost');
    expect(report.findings.filter((f) => f.severity === 'critical')).toEqual([]);
    expect(restoreAdvice(report)).toEqual([]);
    expect(report.members).toHaveLength(3);
    for (const m of report.members) {
      expect(m.reachable).toBeNull();
      expect(m.access).toMatchObject({ cause: 'unreachable-from-here', kind: 'refused' });
    }
    const cli = await cliInProcess(['health', 'prod', '--config', configFile]);
    expect(cli.code).toBe(3);
    expect(cli.stdout).toMatch(/^Health of prod: UNKNOWN/);
    expect(cli.stdout).not.toMatch(/quorum-lost|DOWN/);
  });

  it('the apiserver says [-]etcd failed and its reads fail: quorum-lost is back, without restore advice', async () => {
    fake.setEtcd('failed');
    try {
      const report = await doctor.run('prod', 'diagnose');
      expect(report.status).toBe('critical');
      expect(report.findings[0]).toMatchObject({ cause: 'quorum-lost', severity: 'critical' });
      expect(report.findings[0]?.evidence).toEqual(
        expect.arrayContaining([
          "the apiserver's /readyz?verbose says [-]etcd failed",
          expect.stringMatching(/^a read through the apiserver failed: .*etcdserver: request timed out/),
        ]),
      );
      expect(restoreAdvice(report)).toEqual([]);
      expect(report.members.every((m) => m.reachable === false)).toBe(true);
      const cli = await cliInProcess(['diagnose', 'prod', '--config', configFile]);
      expect(cli.code).toBe(1);
    } finally {
      fake.setEtcd('ok');
    }
  });

  it('without Kubernetes: etcd-doctor says it cannot tell quorum loss from a network problem, exit 3', async () => {
    const report = await doctor.run('bare', 'diagnose');
    expect(report.status).toBe('unknown');
    expect(report.findings.map((f) => f.cause)).toEqual(['unreachable-from-here']);
    expect(report.findings[0]?.summary).toBe(
      'No etcd member of bare answers etcd-doctor (connection refused on all 3 client URLs). etcd-doctor cannot tell quorum loss from a network problem between itself and etcd',
    );
    expect(report.findings[0]?.unknowns).toEqual([
      'whether etcd has quorum: no member answered, and no second vantage point (kubernetes) is configured',
    ]);
    expect(restoreAdvice(report)).toEqual([]);
    const cli = await cliInProcess(['diagnose', 'bare', '--config', configFile, '--json']);
    expect(cli.code).toBe(3);
    expect(JSON.parse(cli.stdout)).toMatchObject({ status: 'unknown' });
  });
});
