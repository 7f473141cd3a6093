import { readFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from '@jest/globals';
import { configFileSchema } from '../../../src/config/schema.js';
import { createDoctor } from '../../../src/doctor.js';
import { EtcdDoctorError } from '../../../src/errors.js';
import { type FakeKubeApi, startFakeKubeApi } from '../../support/kube/fake-kube-api.js';
import { writeFakeKubeconfig } from '../../support/kube/fake-kubeconfig.js';

/** A cluster configured with `kubernetes` only: etcd's client URLs come from the etcd pods' flags. */
describe('etcd endpoint discovery through the Kubernetes API', () => {
  let fake: FakeKubeApi | undefined;
  afterEach(async () => fake?.close());

  async function doctorFor(forbid: Array<{ resource: string }> = []) {
    fake = await startFakeKubeApi({ fixture: 'kubeadm-1.29-healthy', forbid });
    const kubeconfig = await writeFakeKubeconfig(fake.url, { token: fake.token, context: 'prod' });
    const config = configFileSchema.parse({
      clusters: [{ name: 'prod', kubernetes: { kubeconfig, context: 'prod' } }],
      probes: { timeoutMs: 1000, metricsWindowMs: 0 },
    });
    return createDoctor({ config, readFileBuffer: (p) => readFile(p) });
  }

  it('probes the members the etcd pods advertise', async () => {
    const doctor = await doctorFor();
    try {
      const report = await doctor.run('prod', 'health');
      expect(report.members.map((m) => m.endpoint).sort()).toEqual([
        'https://127.20.0.11:2379',
        'https://127.20.0.12:2379',
        'https://127.20.0.13:2379',
      ]);
      // Nothing listens on those loopback addresses here: every member is reported, none hides,
      // and since the apiserver still reaches etcd, none is called down.
      expect(report.members.every((m) => m.reachable === null)).toBe(true);
      expect(report.status).toBe('unknown');
      expect(report.findings[0]?.cause).toBe('unreachable-from-here');
      expect(report.findings[0]?.summary).toMatch(/but the apiserver still reaches etcd/);
    } finally {
      await doctor.close();
    }
  });

  it('says why discovery failed when pods cannot be listed', async () => {
    const doctor = await doctorFor([{ resource: 'pods' }]);
    try {
      const err = await doctor.run('prod', 'health').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(EtcdDoctorError);
      expect((err as Error).message).toMatch(
        /^cluster prod lists no etcd\.endpoints and they could not be discovered through Kubernetes: .*forbidden to list pods.*\(needs RBAC: list pods\)/,
      );
    } finally {
      await doctor.close();
    }
  });

  it('a cluster with neither endpoints nor kubernetes is a config error naming the field', () => {
    const parsed = configFileSchema.safeParse({ clusters: [{ name: 'x' }] });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.path).toEqual(['clusters', 0, 'etcd', 'endpoints']);
  });
});
