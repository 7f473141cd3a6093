import { describe, expect, it } from '@jest/globals';
import { diagnose } from '../../../src/diagnosis/diagnose.js';
import { rules } from '../../../src/diagnosis/rules/index.js';
import { kubernetesProbeRecords } from '../../../src/probes/kubernetes/collect.js';
import {
  etcdPart,
  OPENSHIFT_MEMBERS,
  withKubernetes,
  useScenario,
} from '../../support/kube/kube-evidence.js';

describe('healthy OpenShift 4.14 through the real client', () => {
  const run = useScenario('openshift-4.14-healthy');

  it('recognises OpenShift from API discovery and lists one namespace per component', () => {
    const k = run.kubernetes;
    expect(k.distribution).toBe('openshift');
    expect(kubernetesProbeRecords(k).filter((r) => !r.ok)).toEqual([]);
    const pods = k.pods.ok ? k.pods.data : [];
    // Guard and installer pods in openshift-etcd are not etcd.
    expect(pods.map((p) => `${p.namespace}/${p.name}`).sort()).toEqual(
      ['master-0', 'master-1', 'master-2']
        .flatMap((n) => [
          `openshift-etcd/etcd-${n}`,
          `openshift-kube-apiserver/kube-apiserver-${n}`,
          `openshift-kube-controller-manager/kube-controller-manager-${n}`,
          `openshift-kube-scheduler/openshift-kube-scheduler-${n}`,
        ])
        .sort(),
    );
    const scheduler = pods.find((p) => p.name === 'openshift-kube-scheduler-master-0');
    expect(scheduler).toMatchObject({ component: 'kube-scheduler', main: { name: 'kube-scheduler' } });
    expect(scheduler?.containers.map((c) => c.name)).toEqual([
      'kube-scheduler',
      'kube-scheduler-cert-syncer',
      'kube-scheduler-recovery-controller',
    ]);
  });

  it('reads the scheduler lease from openshift-kube-scheduler and KCM from kube-system', () => {
    const leases = run.kubernetes.leases.ok ? run.kubernetes.leases.data : [];
    expect(leases.map((l) => [`${l.namespace}/${l.name}`, l.holderNode, l.leaseDurationSeconds])).toEqual([
      ['kube-system/kube-controller-manager', 'master-1', 137],
      ['openshift-kube-scheduler/kube-scheduler', 'master-0', 137],
    ]);
  });

  it('reads etcd flags from the operator script and its env: name, tuning, quota, URLs', () => {
    const specs = run.kubernetes.etcdPods.ok ? run.kubernetes.etcdPods.data : [];
    expect(specs.map((s) => [s.pod, s.memberName, s.node])).toEqual([
      ['etcd-master-0', 'master-0', 'master-0'],
      ['etcd-master-1', 'master-1', 'master-1'],
      ['etcd-master-2', 'master-2', 'master-2'],
    ]);
    expect(specs[1]).toMatchObject({
      dataDir: '/var/lib/etcd',
      dataVolume: { kind: 'hostPath', volume: 'data-dir', path: '/var/lib/etcd' },
      heartbeatIntervalMs: 100,
      electionTimeoutMs: 1000,
      quotaBackendBytes: 8589934592,
      unsafeNoFsync: false,
      advertiseClientUrls: ['https://127.20.1.11:2379'],
      peerUrls: ['https://127.20.1.11:2380'],
      listenMetricsUrls: ['https://0.0.0.0:9978'],
    });
  });

  it('expects openshift-kube-scheduler-<node> mirror pods and reads the etcd operator conditions', () => {
    const data = run.kubernetes.staticPods.ok ? run.kubernetes.staticPods.data : undefined;
    expect(
      data?.expected
        .filter((e) => e.component === 'kube-scheduler')
        .map((e) => `${e.namespace}/${e.podName}`),
    ).toEqual([
      'openshift-kube-scheduler/openshift-kube-scheduler-master-0',
      'openshift-kube-scheduler/openshift-kube-scheduler-master-1',
      'openshift-kube-scheduler/openshift-kube-scheduler-master-2',
    ]);
    expect(data?.expected.every((e) => e.present)).toBe(true);
    expect(data?.missingStaticPodEvents).toEqual([]);
    const op = data?.etcdOperator;
    expect(op?.ok && op.data.conditions.find((c) => c.type === 'EtcdMembersAvailable')).toMatchObject({
      status: 'True',
      reason: 'EtcdQuorate',
      message: '3 members are available',
    });
  });

  it('finds nothing wrong', () => {
    const result = diagnose(withKubernetes(etcdPart(OPENSHIFT_MEMBERS), run.kubernetes), rules, {
      now: run.now,
    });
    expect(result.findings).toEqual([]);
    expect(result.status).toBe('healthy');
  });
});
