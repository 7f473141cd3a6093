import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import { DEFAULT_REMEDIATION_SETTINGS } from '../../../src/remediation/settings.js';
import { cliInProcess } from '../../support/process/cli-in-process.js';
import { type FakeKubeApi, type ForbidRule, startFakeKubeApi } from '../../support/kube/fake-kube-api.js';
import { writeFakeKubeconfig } from '../../support/kube/fake-kubeconfig.js';
import { loadKubeFixture } from '../../support/kube/kube-fixtures.js';

/**
 * `etcd-doctor preflight <cluster>` against the local Kubernetes API fake, with the real client:
 * it refuses, in one line, a cluster where components/remediation's admission policies would be
 * inert (Kubernetes < 1.30, an identity they do not match) or would deny the configured images.
 */
const WORKER = 'system:serviceaccount:etcd-doctor:etcd-doctor-worker';
const FIO = `registry.example/fio:3.35@sha256:${'ab'.repeat(32)}`;

interface Setup {
  version?: string;
  user?: string;
  params?: Record<string, string>;
  forbid?: ForbidRule[];
  clusterRemediation?: string;
}

let fake: FakeKubeApi | undefined;
afterEach(async () => fake?.close());

async function preflight(s: Setup) {
  const base = loadKubeFixture('kubeadm-1.29-healthy');
  const version = s.version ?? '1.31';
  const files: Record<string, string> = {
    'version.json': JSON.stringify({ major: '1', minor: version.split('.')[1], gitVersion: `v${version}.2` }),
    ...(s.params
      ? {
          'configmaps/kube-system/etcd-doctor-remediation.json': JSON.stringify({
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: 'etcd-doctor-remediation', namespace: 'kube-system' },
            data: s.params,
          }),
        }
      : {}),
  };
  const fixture = { ...base, readText: (p: string) => files[p] ?? base.readText(p) };
  await fake?.close(); // a test may run the command twice
  fake = await startFakeKubeApi({ fixture, user: s.user ?? WORKER, forbid: s.forbid ?? [] });
  const dir = await mkdtemp(join(tmpdir(), 'etcd-doctor-preflight-'));
  const kubeconfig = await writeFakeKubeconfig(fake.url, { token: fake.token, context: 'prod', dir });
  const config = join(dir, 'etcd-doctor.yaml');
  await writeFile(
    config,
    `clusters:\n  - name: prod\n    etcd: { endpoints: [https://127.0.0.1:2379] }\n    kubernetes: { kubeconfig: ${kubeconfig}, context: prod }\n${s.clusterRemediation ?? ''}`,
  );
  return cliInProcess(['preflight', 'prod', '--config', config]);
}

const shipped = { helperImage: DEFAULT_REMEDIATION_SETTINGS.helperImage, diskBenchmarkImage: '' };

describe('etcd-doctor preflight', () => {
  it('refuses Kubernetes 1.29, where the policies cannot be applied but the Role can', async () => {
    const r = await preflight({ version: '1.29', params: shipped });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^etcd-doctor: refusing: cluster prod: it runs Kubernetes v1\.29\.2, and the admission policies of components\/remediation need 1\.30 or newer .*do not apply components\/remediation to this cluster$/,
    );
    expect(r.stderr.split('\n')).toHaveLength(1);
  });

  it('refuses a worker identity the policies do not match (an admin kubeconfig)', async () => {
    const r = await preflight({ user: 'kubernetes-admin', params: shipped });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /cluster prod: the worker acts as "kubernetes-admin" there, and the admission policies .* apply only to a service account named etcd-doctor-worker/,
    );
  });

  it('passes before the component is applied, and names the subjects to edit in another namespace', async () => {
    const r = await preflight({
      user: 'system:serviceaccount:ops:etcd-doctor-worker',
      forbid: [{ resource: 'configmaps' }],
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /would be enforced \(Kubernetes v1\.31\.2, the worker acts as system:serviceaccount:ops:etcd-doctor-worker\)/,
    );
    expect(r.stdout).toMatch(/is not applied yet/);
    expect(r.stdout).toMatch(
      /set the namespace of the subjects of its RoleBinding and ClusterRoleBinding to ops/,
    );
  });

  it('passes when applied with the images the clusters file runs', async () => {
    const r = await preflight({ params: shipped });
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toMatch(/is applied, and its admitted images match the clusters file/);
  });

  it('refuses parameters that would deny the configured helper or benchmark image', async () => {
    const other = `registry.example/busybox:1@sha256:${'cd'.repeat(32)}`;
    const helper = await preflight({ params: { ...shipped, helperImage: other } });
    expect(helper.code).toBe(1);
    expect(helper.stderr).toMatch(
      new RegExp(
        `admit the helper image "${other}" .* but the clusters file runs "${DEFAULT_REMEDIATION_SETTINGS.helperImage}"`,
      ),
    );
    const bench = await preflight({
      params: shipped,
      clusterRemediation: `    remediation: { diskBenchmarkImage: "${FIO}" }\n`,
    });
    expect(bench.code).toBe(1);
    expect(bench.stderr).toMatch(/admit the benchmark image "" .*remediation\.diskBenchmarkImage/);
  });

  it('refuses when the component is applied but its ConfigMap is gone (every helper would be denied)', async () => {
    const r = await preflight({});
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/ConfigMap kube-system\/etcd-doctor-remediation is missing/);
  });
});
