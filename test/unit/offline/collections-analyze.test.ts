import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { analyzePaths } from '../../../src/offline/analyze.js';
import {
  clusterInfoDumpFiles,
  clusterInfoDumpStdout,
  mustGatherFiles,
  writeTarball,
  writeTree,
} from '../../support/offline/offline-fixtures.js';

/**
 * The readers and the offline analysis together: each Kubernetes scenario collected as a
 * must-gather tarball, a cluster-info dump tree and its stdout, and `analyze` naming the cause a
 * live diagnosis names (the must-gather's etcd_info also names the member).
 */
let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'etcd-doctor-collections-'));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

async function layouts(scenario: string): Promise<Record<string, string>> {
  const stdout = join(tmp, `${scenario}-dump.txt`);
  await writeFile(stdout, clusterInfoDumpStdout(scenario));
  return {
    'must-gather .tar.gz': await writeTarball(join(tmp, `${scenario}.tar.gz`), mustGatherFiles(scenario)),
    'cluster-info dump directory': await writeTree(
      join(tmp, `${scenario}-dump`),
      clusterInfoDumpFiles(scenario),
    ),
    'cluster-info dump stdout': stdout,
  };
}

describe.each([
  ['tmpfs', 'non-durable-storage', 'master-2'],
  ['missing-static-pods', 'static-pod-missing', 'master-1'],
  ['leaderelection-restarts', 'slow-disk', 'master-2'],
])('%s', (scenario, cause, member) => {
  test(`every layout names ${cause} first; the must-gather names ${member}`, async () => {
    for (const [layout, path] of Object.entries(await layouts(scenario))) {
      const report = await analyzePaths([path]);
      expect({ layout, kind: report.source[0]?.kind, cause: report.findings[0]?.cause }).toEqual({
        layout,
        kind: layout.startsWith('must-gather') ? 'must-gather' : 'cluster-info-dump',
        cause,
      });
      if (layout.startsWith('must-gather')) expect(report.findings[0]?.members).toEqual([member]);
    }
  });
});

test('a healthy must-gather is healthy, and its clock-shifted twin names the member', async () => {
  for (const scenario of ['openshift-4.14-healthy', 'kubeadm-1.29-healthy']) {
    const report = await analyzePaths([
      await writeTarball(join(tmp, `${scenario}.tar.gz`), mustGatherFiles(scenario)),
    ]);
    // OpenShift 4.14 ships an etcd 3.5 with fixes since (known-bug): a true statement about the
    // release, never a fault, so the status stays healthy and no other cause is found.
    const faults = report.findings.filter((f) => f.cause !== 'known-bug').map((f) => f.cause);
    expect({ scenario, status: report.status, findings: faults }).toEqual({
      scenario,
      status: 'healthy',
      findings: [],
    });
  }
  const drift = await analyzePaths([
    await writeTarball(join(tmp, 'etcd-logs.tar.gz'), mustGatherFiles('etcd-logs')),
  ]);
  expect(drift.findings.find((f) => f.cause === 'clock-skew')?.members).toEqual(['master-2']);
  expect(drift.findings.find((f) => f.cause === 'peer-network')?.members).toEqual(['master-3']);
});
