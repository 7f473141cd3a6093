import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { configFileSchema } from '../../../src/config/schema.js';
import { createDoctor, type Doctor } from '../../../src/doctor.js';
import { type EtcdLab, startEtcdLab } from '../../support/lab/etcd-lab.js';
import { type FakeKubeApi, startFakeKubeApi } from '../../support/kube/fake-kube-api.js';
import { writeFakeKubeconfig } from '../../support/kube/fake-kubeconfig.js';
import { writeLoadStarted } from '../../support/lab/write-load.js';

/**
 * Incident (a)+(f) end to end: a real etcd member on a slow disk, and (through the fake apiserver)
 * kube-scheduler and kube-controller-manager restarting hundreds of times with `leaderelection
 * lost`. The thread must say the restarts are caused by the slow disk, not list two alerts.
 */
describe('real slow etcd member joined with control-plane restarts from the Kubernetes API', () => {
  let lab: EtcdLab;
  let fake: FakeKubeApi;
  let doctor: Doctor;

  beforeAll(async () => {
    lab = await startEtcdLab();
    fake = await startFakeKubeApi({ fixture: 'leaderelection-restarts' });
    const kubeconfig = await writeFakeKubeconfig(fake.url, { token: fake.token, context: 'prod' });
    const config = configFileSchema.parse({
      clusters: [
        {
          name: 'prod',
          etcd: { endpoints: lab.endpoints, metricsUrls: lab.metricsUrls },
          kubernetes: { kubeconfig, context: 'prod' },
        },
      ],
    });
    // The fixture was recorded at a fixed time; the rules read restarts and ages against it.
    const started = Date.now();
    const now = () => fake.fixture.recordedAtMs + (Date.now() - started);
    doctor = createDoctor({ config, readFileBuffer: (p) => readFile(p), now });
  });
  afterAll(async () => {
    await doctor?.close();
    await fake?.close();
    await lab?.destroy();
  });

  it('slow-disk on the slow member is findings[0]; control-plane-restarts is linked to it', async () => {
    const leader = await lab.leaderName();
    const victim = lab.members.map((m) => m.name).find((n) => n !== leader) ?? 'etcd-2';
    const slow = await lab.slowDisk(victim, 200_000);
    try {
      const load = await writeLoadStarted(lab, { ratePerSecond: 60, durationMs: 4500, valueBytes: 256 });
      const report = await doctor.run('prod', 'diagnose', { explain: true });
      await load.done;
      // On a miss, the log shows what slow-disk and slow-reads read in the window (CI3 and CI4 each
      // put slow-reads first once under load; the window's fsyncs are the suspect).
      if (report.findings[0]?.cause !== 'slow-disk')
        console.log(
          JSON.stringify(report.explain?.filter((t) => t.rule === 'slow-disk' || t.rule === 'slow-reads')),
        );
      expect(report.findings[0]).toMatchObject({ cause: 'slow-disk', members: [victim] });
      const restarts = report.findings.find((f) => f.cause === 'control-plane-restarts');
      expect(restarts).toMatchObject({ causedBy: 'slow-disk' });
      expect(restarts?.evidence.join('\n')).toMatch(/kube-scheduler-master-\d restarted \d{3} times/);
      expect(restarts?.evidence.join('\n')).toContain('leaderelection lost');
      expect(report.probes.map((p) => p.name)).toEqual(
        expect.arrayContaining(['k8s-pods', 'k8s-logs', 'k8s-leases']),
      );
      expect(fake.requests('pods').length).toBeGreaterThan(0);
    } finally {
      await slow.stop();
    }
  });
});
