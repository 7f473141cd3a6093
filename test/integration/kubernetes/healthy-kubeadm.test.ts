import { readFile } from 'node:fs/promises';
import { describe, expect, it } from '@jest/globals';
import { loadKubernetesClients } from '../../../src/clients/kubernetes.js';
import { diagnose } from '../../../src/diagnosis/diagnose.js';
import { rules } from '../../../src/diagnosis/rules/index.js';
import { kubernetesProbeRecords } from '../../../src/probes/kubernetes/collect.js';
import { discoverEtcdEndpoints } from '../../../src/probes/kubernetes/discover-etcd-endpoints.js';
import { writeFakeKubeconfig } from '../../support/kube/fake-kubeconfig.js';
import { etcdPart, KUBEADM_MEMBERS, withKubernetes, useScenario } from '../../support/kube/kube-evidence.js';
import { kubernetesRules } from '../../support/kube/kube-rules.js';

describe('healthy kubeadm 1.29 through the real client', () => {
  const run = useScenario('kubeadm-1.29-healthy');

  it('reads the control plane of a kubeadm cluster', () => {
    const k = run.kubernetes;
    expect(k.distribution).toBe('kubeadm');
    expect(kubernetesProbeRecords(k).filter((r) => !r.ok)).toEqual([]);
    if (!k.pods.ok || !k.nodes.ok || !k.leases.ok) throw new Error('pods, nodes and leases must arrive');
    // tier=control-plane leaves kube-proxy and coredns out.
    expect(k.pods.data.map((p) => p.name)).toHaveLength(12);
    expect(k.pods.data.every((p) => p.mirror && p.ready && p.main?.state === 'running')).toBe(true);
    expect(k.pods.data.find((p) => p.name === 'etcd-master-2')).toMatchObject({
      component: 'etcd',
      node: 'master-2',
      main: { restartCount: 1, lastTermination: { reason: 'Completed', exitCode: 0 } },
    });
    expect(k.nodes.data.map((n) => [n.name, n.internalIp, n.conditions.Ready?.status])).toEqual([
      ['master-1', '127.20.0.11', 'True'],
      ['master-2', '127.20.0.12', 'True'],
      ['master-3', '127.20.0.13', 'True'],
    ]);
    expect(k.nodes.data[0]?.bootId).toMatch(/^[0-9a-f-]{36}$/);
    expect(
      k.leases.data.map((l) => [
        l.namespace,
        l.name,
        l.holderNode,
        l.leaseDurationSeconds,
        l.leaseTransitions,
      ]),
    ).toEqual([
      ['kube-system', 'kube-controller-manager', 'master-1', 15, 3],
      ['kube-system', 'kube-scheduler', 'master-2', 15, 2],
    ]);
    expect(run.now - (k.leases.data[0]?.renewTime ?? 0)).toBeLessThan(2000);
  });

  it('reads the etcd pod specs: hostPath data dir, member name and client URLs', () => {
    const specs = run.kubernetes.etcdPods.ok ? run.kubernetes.etcdPods.data : [];
    expect(specs.map((s) => [s.pod, s.memberName, s.node, s.dataVolume])).toEqual([
      [
        'etcd-master-1',
        'master-1',
        'master-1',
        { kind: 'hostPath', volume: 'etcd-data', path: '/var/lib/etcd' },
      ],
      [
        'etcd-master-2',
        'master-2',
        'master-2',
        { kind: 'hostPath', volume: 'etcd-data', path: '/var/lib/etcd' },
      ],
      [
        'etcd-master-3',
        'master-3',
        'master-3',
        { kind: 'hostPath', volume: 'etcd-data', path: '/var/lib/etcd' },
      ],
    ]);
    expect(specs[0]).toMatchObject({
      unsafeNoFsync: false,
      advertiseClientUrls: ['https://127.20.0.11:2379'],
      listenClientUrls: ['https://127.0.0.1:2379', 'https://127.20.0.11:2379'],
      listenMetricsUrls: ['http://127.0.0.1:2381'],
      peerUrls: ['https://127.20.0.11:2380'],
    });
  });

  it('finds every mirror pod, a passing readyz and a fast apiserver', () => {
    const k = run.kubernetes;
    const staticPods = k.staticPods.ok ? k.staticPods.data : undefined;
    expect(staticPods?.expected).toHaveLength(12);
    expect(staticPods?.expected.every((e) => e.present)).toBe(true);
    if (!k.apiserver.ok) throw new Error(k.apiserver.failure.message);
    const { readyz, latency, etcdRequests } = k.apiserver.data;
    expect(readyz.ok && readyz.data.checks.filter((c) => c.name.startsWith('etcd'))).toEqual([
      { name: 'etcd', ok: true },
      { name: 'etcd-readiness', ok: true },
    ]);
    expect(latency.ok && latency.data.gitVersion).toBe('v1.29.4');
    expect(etcdRequests.ok && etcdRequests.data.p99Seconds).toBeLessThan(0.1);
    // The only Warning event is two weeks old: outside the window.
    expect(k.events.ok && k.events.data).toEqual([]);
  });

  it('scans every control-plane log with bounds, and the previous log where a container restarted', () => {
    const logs = run.kubernetes.logs.ok ? run.kubernetes.logs.data : undefined;
    expect(logs?.scans).toHaveLength(13);
    expect(logs?.scans.filter((s) => s.previous).map((s) => s.pod)).toEqual(['etcd-master-2']);
    expect(logs?.unread).toEqual([]);
    const requests = run.fake.requests('pods/log');
    expect(requests).toHaveLength(13);
    expect(requests[0]?.query).toMatchObject({
      tailLines: '2000',
      sinceSeconds: '21600',
      limitBytes: '524288',
    });
    expect(
      logs?.scans.every(
        (s) => s.signals.requestTimedOut.count === 0 && s.signals.leaderElectionLost.count === 0,
      ),
    ).toBe(true);
  });

  it('finds nothing wrong when etcd is healthy too', () => {
    const evidence = withKubernetes(etcdPart(KUBEADM_MEMBERS), run.kubernetes);
    const result = diagnose(evidence, rules, { now: run.now });
    expect(result.findings).toEqual([]);
    expect(result.status).toBe('healthy');
    const traces = result.trace.filter((t) => kubernetesRules.some((r) => r.name === t.rule));
    expect(traces.every((t) => !t.skipped && !t.fired)).toBe(true);
  });

  it('discovers the etcd client URLs from the etcd pods', async () => {
    const kubeconfig = await writeFakeKubeconfig(run.fake.url, { token: run.fake.token, context: 'ops' });
    const clients = await loadKubernetesClients(
      { kubeconfig, context: 'ops' },
      { readFile: (p) => readFile(p, 'utf8') },
    );
    await expect(discoverEtcdEndpoints(clients, { timeoutMs: 2000 })).resolves.toEqual([
      'https://127.20.0.11:2379',
      'https://127.20.0.12:2379',
      'https://127.20.0.13:2379',
    ]);
  });

  it('refuses a context the kubeconfig does not have, naming the ones it has', async () => {
    const kubeconfig = await writeFakeKubeconfig(run.fake.url, { token: run.fake.token, context: 'ops' });
    await expect(
      loadKubernetesClients({ kubeconfig, context: 'prod' }, { readFile: (p) => readFile(p, 'utf8') }),
    ).rejects.toMatchObject({
      code: 'config_invalid',
      message: expect.stringContaining('kubernetes.context: "prod" is not in'),
    });
  });
});
