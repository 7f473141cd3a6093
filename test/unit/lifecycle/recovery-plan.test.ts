import { describe, expect, it } from '@jest/globals';
import { planRecovery, type RecoveryInput } from '../../../src/lifecycle/recovery-plan.js';

const status = (revision: number, raftIndex: number) => ({
  revision,
  raftIndex,
  term: 7,
  appliedIndex: raftIndex,
});

function input(over: Partial<RecoveryInput> = {}): RecoveryInput {
  return {
    cluster: 'prod',
    distribution: 'kubeadm',
    members: [
      {
        name: 'etcd-1',
        endpoint: 'https://10.0.0.1:2379',
        peerUrl: 'https://10.0.0.1:2380',
        dataDir: '/var/lib/etcd',
        status: status(900, 1200),
      },
      {
        name: 'etcd-2',
        endpoint: 'https://10.0.0.2:2379',
        peerUrl: 'https://10.0.0.2:2380',
        dataDir: '/var/lib/etcd',
        status: status(940, 1250),
      },
      {
        name: 'etcd-3',
        endpoint: 'https://10.0.0.3:2379',
        peerUrl: 'https://10.0.0.3:2380',
        dataDir: '/var/lib/etcd',
      },
    ],
    backup: { file: 'etcd-20261206.db', revision: 800, ageHours: 5 },
    ...over,
  };
}

describe('the recovery plan', () => {
  it('restores from the member with the highest revision, and says what each other choice loses', () => {
    const plan = planRecovery(input());
    expect(plan.restoreFrom).toEqual({
      member: 'etcd-2',
      source: 'member',
      revision: 940,
      raftIndex: 1250,
      term: 7,
    });
    expect(plan.candidates.map((c) => [c.member, c.behind])).toEqual([
      ['etcd-1', 40],
      ['etcd-2', 0],
      ['etcd-3', null],
      [null, 140],
    ]);
    expect(plan.dataAtRisk).toContain('etcd-1 is 40 revisions behind it (choosing it loses those).');
    expect(plan.dataAtRisk).toContain('The backup is 140 revisions behind it');
    expect(plan.dataAtRisk).toContain('etcd-3 does not answer');
  });

  it('kubeadm: the manifest moved out, a copy of the data dir, --force-new-cluster once, the others back as learners', () => {
    const steps = planRecovery(input()).steps;
    expect(steps[0]).toMatchObject({
      on: 'every member',
      command: 'mv /etc/kubernetes/manifests/etcd.yaml /etc/kubernetes/etcd.yaml.recovery',
    });
    expect(steps[1]).toMatchObject({
      on: 'etcd-2',
      command: 'cp -a /var/lib/etcd /var/lib/etcd.before-recovery',
    });
    expect(steps[2]?.command).toContain('--force-new-cluster');
    expect(steps.filter((s) => /^etcdctl .* member add /.test(s.command)).map((s) => s.command)).toEqual([
      'etcdctl --endpoints=https://10.0.0.2:2379 member add etcd-1 --learner --peer-urls=https://10.0.0.1:2380',
      'etcdctl --endpoints=https://10.0.0.2:2379 member add etcd-3 --learner --peer-urls=https://10.0.0.3:2380',
    ]);
  });

  it('OpenShift: its quorum restore on the chosen host, and where a missing manifest comes from', () => {
    const members = input().members.map((m) => ({ ...m, node: `master-${m.name.slice(-1)}` }));
    const steps = planRecovery(input({ distribution: 'openshift', members })).steps;
    expect(steps.find((s) => s.command.includes('quorum-restore.sh'))?.on).toBe('master-2');
    expect(
      steps.some((s) => s.command.includes('/etc/kubernetes/static-pod-resources/etcd-pod-*/etcd-pod.yaml')),
    ).toBe(true);
  });

  it('no member answers: etcdutl snapshot restore from the backup on every member', () => {
    const members = input().members.map(({ status: _s, ...m }) => m);
    const plan = planRecovery(input({ members }));
    expect(plan.restoreFrom).toMatchObject({
      member: null,
      source: 'backup',
      revision: 800,
      file: 'etcd-20261206.db',
    });
    expect(
      plan.steps
        .filter((s) => s.command.startsWith('etcdutl snapshot restore etcd-20261206.db'))
        .map((s) => s.on),
    ).toEqual(['etcd-1', 'etcd-2', 'etcd-3']);
  });

  it('nothing answers and no backup: nothing to restore from', () => {
    const members = input().members.map(({ status: _s, ...m }) => m);
    const { backup: _b, ...rest } = input({ members });
    const plan = planRecovery(rest);
    expect(plan.restoreFrom).toBeNull();
    expect(plan.steps).toEqual([]);
    expect(plan.dataAtRisk).toBe(
      'No member answers and no verified backup exists: there is nothing to restore from.',
    );
  });
});
