import { describe, expect, it } from '@jest/globals';
import { diagnose } from '../../../src/diagnosis/diagnose.js';
import { rules } from '../../../src/diagnosis/rules/index.js';
import { failed } from '../../support/evidence/evidence.js';
import { etcdPart, KUBEADM_MEMBERS, withKubernetes, useScenario } from '../../support/kube/kube-evidence.js';

describe('incident (h): etcd data on tmpfs, then a reboot', () => {
  const run = useScenario('tmpfs');

  it('sees the memory-backed emptyDir, the reboot and the empty WAL', () => {
    const k = run.kubernetes;
    const spec = k.etcdPods.ok ? k.etcdPods.data.find((s) => s.pod === 'etcd-master-2') : undefined;
    expect(spec?.dataVolume).toEqual({ kind: 'emptyDir', volume: 'etcd-data', medium: 'Memory' });
    const events = k.events.ok ? k.events.data : [];
    expect(events.find((e) => e.reason === 'Rebooted')).toMatchObject({
      object: { kind: 'Node', name: 'master-2' },
    });
    const previous = k.logs.ok
      ? k.logs.data.scans.find((s) => s.pod === 'etcd-master-2' && s.previous)
      : undefined;
    expect(previous?.signals.startingMember.count).toBe(1);
    expect(previous?.signals.restartingMember.count).toBe(0);
    expect(previous?.signals.tocommitOutOfRange.count).toBe(2);
  });

  it('names non-durable storage on master-2 as the cause of the member being down', () => {
    const down = failed(
      'unreachable',
      'master-2 (https://127.20.0.12:2379) is unreachable (Status: connect ECONNREFUSED)',
    );
    const evidence = withKubernetes(
      etcdPart(KUBEADM_MEMBERS, { 'master-2': { status: down, health: down, metrics: down, clock: down } }),
      run.kubernetes,
    );
    const result = diagnose(evidence, rules, { now: run.now });
    const [first] = result.findings;
    expect(first).toMatchObject({
      cause: 'non-durable-storage',
      severity: 'critical',
      nodes: ['master-2'],
      members: ['master-2'],
    });
    expect(first?.summary).toBe(
      'etcd on master-2 lost its data: etcd-master-2 keeps it on emptyDir (medium: Memory), and the member came back empty',
    );
    expect(first?.evidence[0]).toBe(
      "etcd-master-2 keeps its data dir /var/lib/etcd on an emptyDir with medium: Memory (tmpfs): a reboot or power-off erases the member's data",
    );
    expect(
      first?.evidence.some(
        (e) => e.startsWith('etcd-master-2 panicked 2×: ') && e.includes('master-2 rebooted 9 min ago'),
      ),
    ).toBe(true);
    expect(result.findings.find((f) => f.cause === 'member-down')).toMatchObject({
      members: ['master-2'],
      causedBy: 'non-durable-storage',
    });
  });
});
