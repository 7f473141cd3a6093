import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { configFileSchema } from '../../../src/config/schema.js';
import { createDoctor, type Doctor } from '../../../src/doctor.js';
import { type EtcdLab, startEtcdLab } from '../../support/lab/etcd-lab.js';

/**
 * A second, single-member etcd (another cluster, its own cluster ID) listed among the endpoints of
 * a real 3-member lab, as when a member was re-created with `--initial-cluster-state new` or a URL
 * in the config points at the wrong cluster: Status names its cluster ID, and the member list of the
 * real cluster does not hold it.
 */
describe('cluster-mismatch, live: a member of another cluster among the endpoints', () => {
  let main: EtcdLab;
  let other: EtcdLab;
  let doctor: Doctor;
  beforeAll(async () => {
    [main, other] = await Promise.all([startEtcdLab(), startEtcdLab({ size: 1 })]);
    const config = configFileSchema.parse({
      clusters: [
        {
          name: 'lab',
          etcd: {
            endpoints: [...main.endpoints, ...other.endpoints],
            metricsUrls: [...main.metricsUrls, ...other.metricsUrls],
          },
        },
      ],
      probes: { timeoutMs: 3000, metricsWindowMs: 3000 },
    });
    doctor = createDoctor({ config, readFileBuffer: (p) => readFile(p) });
  });
  afterAll(async () => {
    await doctor?.close();
    await Promise.all([main?.destroy(), other?.destroy()]);
  });

  it('names the endpoint that answers for another cluster, with the fix in one line', async () => {
    const report = await doctor.run('lab', 'diagnose');
    const stranger = other.endpoints[0]?.replace(/^https?:\/\//, '') ?? '';
    expect(report.status).toBe('critical');
    expect(report.findings[0]).toMatchObject({
      cause: 'cluster-mismatch',
      severity: 'critical',
      members: [stranger],
    });
    expect(report.findings[0]?.summary).toMatch(
      new RegExp(
        `^${stranger} answers for another cluster \\(cluster ID [0-9a-f]+\\) and is not in this cluster's member list$`,
      ),
    );
    expect(report.findings[0]?.evidence[0]).toMatch(
      new RegExp(`^cluster IDs from Status: etcd-1, etcd-2 and etcd-3 [0-9a-f]+; ${stranger} [0-9a-f]+$`),
    );
    expect(report.findings[0]?.remediation).toHaveLength(1);
    expect(report.findings[0]?.remediation[0]).toMatch(/^Take .* out of this cluster's endpoints/);
    // The three real members answer and are not called down; the stranger is not "down" either.
    expect(report.members.filter((m) => m.reachable).map((m) => m.name)).toEqual(
      expect.arrayContaining(['etcd-1', 'etcd-2', 'etcd-3', stranger]),
    );
    expect(report.findings.map((f) => f.cause)).not.toContain('member-down');
    expect(report.findings.map((f) => f.cause)).not.toContain('quorum-lost');
  });

  it('without the stranger the same cluster is not a mismatch', async () => {
    const config = configFileSchema.parse({
      clusters: [{ name: 'lab', etcd: { endpoints: main.endpoints, metricsUrls: main.metricsUrls } }],
      probes: { timeoutMs: 3000, metricsWindowMs: 3000 },
    });
    const alone = createDoctor({ config, readFileBuffer: (p) => readFile(p) });
    try {
      const report = await alone.run('lab', 'diagnose');
      expect(report.findings.map((f) => f.cause)).not.toContain('cluster-mismatch');
    } finally {
      await alone.close();
    }
  });
});
