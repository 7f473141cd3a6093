import { describe, expect, it } from '@jest/globals';
import type { V1Pod, V1Volume } from '@kubernetes/client-node';
import { parseEtcdPodSpec } from '../../../../src/probes/kubernetes/etcd-pod-spec.js';

function pod(
  command: string[],
  volumes: V1Volume[],
  env: Array<{ name: string; value: string }> = [],
): V1Pod {
  return {
    metadata: { name: 'etcd-master-9', namespace: 'kube-system' },
    spec: {
      nodeName: 'master-9',
      containers: [
        {
          name: 'etcd',
          image: 'registry.k8s.io/etcd:3.5.12-0',
          command,
          env,
          volumeMounts: [{ name: 'etcd-data', mountPath: '/var/lib/etcd' }],
        },
      ],
      volumes,
    },
  };
}

describe('parseEtcdPodSpec', () => {
  it('reads space-separated flags, --unsafe-no-fsync and an emptyDir on disk', () => {
    const spec = parseEtcdPodSpec(
      pod(
        [
          'etcd',
          '--name',
          'master-9',
          '--data-dir',
          '/var/lib/etcd/member-data',
          '--unsafe-no-fsync',
          '--heartbeat-interval=250',
          '--election-timeout=2500',
        ],
        [{ name: 'etcd-data', emptyDir: {} }],
      ),
    );
    expect(spec).toMatchObject({
      memberName: 'master-9',
      dataDir: '/var/lib/etcd/member-data',
      dataVolume: { kind: 'emptyDir', volume: 'etcd-data', medium: undefined },
      unsafeNoFsync: true,
      heartbeatIntervalMs: 250,
      electionTimeoutMs: 2500,
    });
  });

  it('takes ETCD_* env vars, which command-line flags override', () => {
    const spec = parseEtcdPodSpec(
      pod(
        ['etcd', '--quota-backend-bytes=4294967296'],
        [{ name: 'etcd-data', hostPath: { path: '/mnt/nvme/etcd' } }],
        [
          { name: 'ETCD_NAME', value: 'from-env' },
          { name: 'ETCD_DATA_DIR', value: '/var/lib/etcd' },
          { name: 'ETCD_QUOTA_BACKEND_BYTES', value: '2147483648' },
          { name: 'ETCD_UNSAFE_NO_FSYNC', value: 'true' },
        ],
      ),
    );
    expect(spec).toMatchObject({
      memberName: 'from-env',
      quotaBackendBytes: 4294967296,
      unsafeNoFsync: true,
      dataVolume: { kind: 'hostPath', path: '/mnt/nvme/etcd' },
    });
  });

  it('says when the data dir is on no volume at all', () => {
    const spec = parseEtcdPodSpec(pod(['etcd', '--name=master-9', '--data-dir=/data'], []));
    expect(spec.dataVolume).toEqual({ kind: 'none' });
  });
});
