import type { EtcdLab } from '../lab/etcd-lab.js';
import type { FakeKubeApi } from './fake-kube-api.js';
import type { KubeObject } from './kube-fixtures.js';

/**
 * Points the fake apiserver's kubeadm etcd pods at a real lab: etcd-master-N runs lab member
 * etcd-N (`--name`, client and peer URLs), so what the Kubernetes API says about a pod is about
 * that lab member. Returns the etcd pods, in member order.
 */
export function bindEtcdPodsToLab(fake: FakeKubeApi, lab: EtcdLab): KubeObject[] {
  const pods = fake.fixture.objects.pods
    .filter((p) => p.metadata.namespace === 'kube-system' && p.metadata.name.startsWith('etcd-'))
    .sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
  pods.forEach((pod, i) => {
    const member = lab.members[i];
    const container = (pod.spec as { containers?: Array<{ name: string; command?: string[] }> })
      .containers?.[0];
    if (!member || !container?.command) return;
    const flags: Record<string, string> = {
      '--name': member.name,
      '--advertise-client-urls': member.clientUrl,
      '--listen-client-urls': member.clientUrl,
      '--initial-advertise-peer-urls': member.peerUrl,
      '--listen-peer-urls': member.peerUrl,
    };
    container.command = container.command.map((arg) => {
      const [flag] = arg.split('=');
      return flag && flags[flag] !== undefined ? `${flag}=${flags[flag]}` : arg;
    });
  });
  return pods;
}

/** A zap JSON line as etcd 3.4 and 3.5 write it (`--logger zap`). */
export function zapLine(tsMs: number, level: string, msg: string, fields: Record<string, unknown>): string {
  return JSON.stringify({
    level,
    ts: new Date(tsMs).toISOString(),
    caller: 'rafthttp/probing_status.go:82',
    msg,
    ...fields,
  });
}
