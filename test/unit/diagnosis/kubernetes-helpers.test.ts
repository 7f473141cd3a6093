import { rules } from '../../../src/diagnosis/rules/index.js';
import { describe, expect, it } from '@jest/globals';
import { diagnose } from '../../../src/diagnosis/diagnose.js';
import { nodesOfMembers } from '../../../src/diagnosis/support/kubernetes.js';
import { nodePressureEvidence } from '../../../src/diagnosis/support/node-pressure.js';
import type { Outcome } from '../../../src/probes/outcome.js';
import type {
  ControlPlaneNode,
  EtcdPodSpec,
  KubernetesEvidence,
} from '../../../src/probes/kubernetes/evidence.js';
import { latency, metricsData, clusterEvidence, ok } from '../../support/evidence/evidence.js';
import { kubernetesRules } from '../../support/kube/kube-rules.js';

const now = Date.parse('2026-11-29T03:00:00Z');
const none: Outcome<never> = { ok: false, failure: { kind: 'skipped', message: 'not asked' }, durationMs: 0 };

function etcdSpec(member: string, node: string, overrides: Partial<EtcdPodSpec> = {}): EtcdPodSpec {
  return {
    pod: `etcd-${node}`,
    namespace: 'kube-system',
    node,
    memberName: member,
    image: undefined,
    dataDir: '/var/lib/etcd',
    dataVolume: { kind: 'hostPath', volume: 'etcd-data', path: '/var/lib/etcd' },
    unsafeNoFsync: false,
    heartbeatIntervalMs: undefined,
    electionTimeoutMs: undefined,
    quotaBackendBytes: undefined,
    listenClientUrls: [],
    advertiseClientUrls: [],
    peerUrls: [],
    listenMetricsUrls: [],
    ...overrides,
  };
}

function node(name: string, diskPressureSince?: number): ControlPlaneNode {
  const ready = {
    status: 'True' as const,
    reason: 'KubeletReady',
    message: undefined,
    since: now - 86_400_000,
  };
  const disk = diskPressureSince
    ? {
        status: 'True' as const,
        reason: 'KubeletHasDiskPressure',
        message: 'kubelet has disk pressure',
        since: diskPressureSince,
      }
    : { status: 'False' as const, reason: 'KubeletHasNoDiskPressure', message: undefined, since: undefined };
  return {
    name,
    internalIp: undefined,
    conditions: { Ready: ready, DiskPressure: disk },
    bootId: undefined,
    kubeletVersion: undefined,
    unschedulable: false,
    createdAt: undefined,
  };
}

function kubernetes(parts: Partial<KubernetesEvidence>): KubernetesEvidence {
  return {
    distribution: 'kubeadm',
    server: 'https://127.0.0.1:6443',
    collectedAt: now,
    pods: none,
    logs: none,
    leases: none,
    nodes: none,
    staticPods: none,
    etcdPods: none,
    apiserver: none,
    events: none,
    ...parts,
  };
}

describe('helpers for the etcd rules', () => {
  const evidence = {
    ...clusterEvidence(),
    collectedAt: now,
    kubernetes: ok(
      kubernetes({
        nodes: ok([node('cp-a'), node('cp-b', now - 14 * 60_000), node('cp-c')]),
        etcdPods: ok([etcdSpec('etcd-1', 'cp-a'), etcdSpec('etcd-2', 'cp-b'), etcdSpec('etcd-3', 'cp-c')]),
      }),
    ),
  };

  it('maps etcd members to their nodes through the etcd pods', () => {
    expect(nodesOfMembers(evidence, ['etcd-2', 'etcd-3'])).toEqual(['cp-b', 'cp-c']);
  });

  it('gives node pressure lines for the slow member only', () => {
    expect(nodePressureEvidence(evidence, ['DiskPressure'], ['etcd-2'])).toEqual([
      'cp-b (etcd member etcd-2): DiskPressure for 14 min (KubeletHasDiskPressure: kubelet has disk pressure)',
    ]);
    expect(nodePressureEvidence(evidence, ['DiskPressure'], ['etcd-1'])).toEqual([]);
    expect(nodePressureEvidence(evidence, ['MemoryPressure', 'PIDPressure'])).toEqual([]);
  });

  it('feeds slow-disk: the finding names the node and carries its DiskPressure', () => {
    const slow = ok(metricsData({ walFsync: latency(212, 201), backendCommit: latency(420, 400) }));
    const withSlow = { ...evidence, members: clusterEvidence({ 'etcd-2': { metrics: slow } }).members };
    const result = diagnose(withSlow, rules, { now });
    expect(result.findings[0]).toMatchObject({ cause: 'slow-disk', members: ['etcd-2'], nodes: ['cp-b'] });
    expect(result.findings[0]?.evidence).toContain(
      'cp-b (etcd member etcd-2): DiskPressure for 14 min (KubeletHasDiskPressure: kubelet has disk pressure)',
    );
  });
});

describe('non-durable-storage from the pod spec alone', () => {
  it('calls --unsafe-no-fsync critical and names the member and node', () => {
    const evidence = {
      ...clusterEvidence(),
      kubernetes: ok(
        kubernetes({
          etcdPods: ok([
            etcdSpec('etcd-1', 'cp-a'),
            etcdSpec('etcd-2', 'cp-b', { unsafeNoFsync: true }),
            etcdSpec('etcd-3', 'cp-c'),
          ]),
        }),
      ),
    };
    const result = diagnose(evidence, kubernetesRules, { now });
    expect(result.findings).toHaveLength(1);
    expect(result.findings[0]).toMatchObject({
      cause: 'non-durable-storage',
      severity: 'critical',
      members: ['etcd-2'],
      nodes: ['cp-b'],
    });
    expect(result.findings[0]?.evidence).toEqual([
      'etcd-cp-b runs with --unsafe-no-fsync: "Disables fsync, unsafe, will cause data loss." (etcd configuration docs)',
    ]);
  });
});
