import { describe, expect, it } from '@jest/globals';
import { configFileSchema } from '../../../src/config/schema.js';
import { actions } from '../../../src/remediation/actions/index.js';
import { DEFAULT_REMEDIATION_SETTINGS } from '../../../src/remediation/settings.js';
import type { ClusterState, MemberState } from '../../../src/remediation/actions/cluster-state.js';
import { initialClusterOf, joinInstructions } from '../../../src/remediation/actions/join-instructions.js';
import {
  memberListLine,
  promoteRefusal,
  replaceRefusal,
} from '../../../src/remediation/actions/member-change.js';

const member = (name: string, extra: Partial<MemberState> = {}): MemberState => ({
  name,
  endpoint: `http://127.0.0.1:2379/${name}`,
  id: `a${name.slice(-1)}`,
  isLearner: false,
  peerUrls: [`http://127.0.0.1:2380/${name}`],
  started: true,
  reachable: true,
  isLeader: false,
  dbSizeBytes: 1,
  dbSizeInUseBytes: undefined,
  revision: 1,
  appliedIndex: 1000,
  errors: [],
  problem: undefined,
  ...extra,
});
const down = { reachable: false, problem: 'did not answer Status: connect ECONNREFUSED' };
const leader = { isLeader: true };
/** As readClusterState counts: voting members only, learners excluded. */
const state = (members: MemberState[], listed = true): ClusterState => {
  const voting = members.filter((m) => !m.isLearner);
  return {
    members,
    quorum: Math.floor(voting.length / 2) + 1,
    healthyVoting: voting.filter((m) => m.reachable && !m.problem).length,
    listed,
  };
};

describe('replace-member guard', () => {
  it('lets a lost voter of three be replaced while the other two are healthy', () => {
    const s = state([member('etcd-1', leader), member('etcd-2'), member('etcd-3', down)]);
    expect(replaceRefusal(s, 'etcd-3')).toBeUndefined();
  });

  it('refuses a member that answers: it is not lost', () => {
    const s = state([member('etcd-1', leader), member('etcd-2'), member('etcd-3')]);
    expect(replaceRefusal(s, 'etcd-3')).toMatch(/it answers Status, so it is not lost/);
  });

  it('refuses when removing it would leave fewer healthy voters than quorum of the new size', () => {
    const s = state([member('etcd-1', leader), member('etcd-2', down), member('etcd-3', down)]);
    expect(replaceRefusal(s, 'etcd-3')).toBe(
      'refusing to replace etcd-3: removing it would leave 1 healthy voting member(s) of 2, below quorum 2 (KB R2)',
    );
  });

  it('refuses when another member is down, even with quorum to spare (five members, two down)', () => {
    const s = state([
      member('etcd-1', leader),
      member('etcd-2'),
      member('etcd-3'),
      member('etcd-4', down),
      member('etcd-5', down),
    ]);
    expect(replaceRefusal(s, 'etcd-5')).toMatch(
      /^refusing to replace etcd-5: etcd-4 did not answer Status: connect ECONNREFUSED too; .*one member at a time/,
    );
  });

  it('refuses when the cluster has a learner already', () => {
    const s = state([
      member('etcd-1', leader),
      member('etcd-2'),
      member('etcd-3', down),
      member('etcd-4', { isLearner: true }),
    ]);
    expect(replaceRefusal(s, 'etcd-3')).toMatch(/the cluster has a learner already \(etcd-4\)/);
  });

  it('refuses an unknown name, and a member list nobody answered', () => {
    const s = state([member('etcd-1', leader), member('etcd-2'), member('etcd-3', down)]);
    expect(replaceRefusal(s, 'etcd-9')).toMatch(
      /matches no member of the member list \(etcd-1, etcd-2, etcd-3\)/,
    );
    const unlisted = state(
      [member('http://a', down), member('http://b', { problem: 'knows no leader' })],
      false,
    );
    expect(replaceRefusal(unlisted, 'etcd-1')).toMatch(
      /no member answered the member list \(1 of 2 answered Status\), so quorum cannot be shown to hold/,
    );
  });
});

describe('promote-learner guard', () => {
  const learner = (extra: Partial<MemberState> = {}) => member('etcd-3', { isLearner: true, ...extra });

  it('promotes a caught-up learner of a healthy cluster', () => {
    const s = state([member('etcd-1', leader), member('etcd-2'), learner({ appliedIndex: 950 })]);
    expect(promoteRefusal(s, 'etcd-3')).toBeUndefined();
  });

  it('refuses a learner more than 100 entries behind, one that does not answer, and a voter', () => {
    const behind = state([member('etcd-1', leader), member('etcd-2'), learner({ appliedIndex: 899 })]);
    expect(promoteRefusal(behind, 'etcd-3')).toMatch(
      /it is 101 entries behind the leader \(caught up within 100\)/,
    );
    const gone = state([member('etcd-1', leader), member('etcd-2'), learner({ ...down })]);
    expect(promoteRefusal(gone, 'etcd-3')).toMatch(/refusing to promote etcd-3: it did not answer Status/);
    const voter = state([member('etcd-1', leader), member('etcd-2'), member('etcd-3')]);
    expect(promoteRefusal(voter, 'etcd-3')).toMatch(/etcd-3 is a voting member already/);
  });

  it('refuses when the healthy voters would not be a quorum of the larger cluster', () => {
    // Two voters, one down: with the learner, 2 of 3 healthy is quorum; a third voter down is not.
    const ok = state([member('etcd-1', leader), member('etcd-2', down), learner()]);
    expect(promoteRefusal(ok, 'etcd-3')).toBeUndefined();
    const lost = state([member('etcd-1', leader), member('etcd-2', down), member('etcd-4', down), learner()]);
    expect(promoteRefusal(lost, 'etcd-3')).toMatch(/2 of 4 voting members would be healthy, below quorum 3/);
  });
});

describe('the end of the thread and the start instructions', () => {
  it('lists every member with its role as it is now', () => {
    const s = state([
      member('etcd-1', leader),
      member('etcd-2'),
      member('8e9e05c52164694d', {
        isLearner: true,
        started: false,
        reachable: false,
        problem: 'has not started',
      }),
    ]);
    expect(memberListLine(s)).toBe(
      'member list now: etcd-1 (voter, leader), etcd-2 (voter), 8e9e05c52164694d (learner, not started)',
    );
  });

  it('builds --initial-cluster as etcdctl member add prints it, the new member under its name', () => {
    const members = [
      { ID: '1', name: 'etcd-1', peerURLs: ['https://10.0.0.1:2380'] },
      { ID: '2', name: '', peerURLs: ['https://10.0.0.2:2380'] },
    ];
    expect(initialClusterOf(members, { id: '2', name: 'etcd-2' })).toBe(
      'etcd-1=https://10.0.0.1:2380,etcd-2=https://10.0.0.2:2380',
    );
  });

  it('tells kubeadm users the static pod path and the join phase', () => {
    const spec = {
      name: 'master-2',
      id: '8e9e05c52164694d',
      peerUrls: ['https://10.0.0.2:2380'],
      initialCluster: 'master-1=https://10.0.0.1:2380,master-2=https://10.0.0.2:2380',
      promote: 'auto' as const,
    };
    const kubeadm = joinInstructions({ ...spec, distribution: 'kubeadm' }).join('\n');
    expect(kubeadm).toContain(
      '`--name master-2 --initial-advertise-peer-urls https://10.0.0.2:2380 --initial-cluster-state existing --initial-cluster master-1=https://10.0.0.1:2380,master-2=https://10.0.0.2:2380`',
    );
    expect(kubeadm).toContain('kubeadm join phase control-plane-join etcd');
    expect(kubeadm).toContain('/etc/kubernetes/manifests/etcd.yaml');
    expect(kubeadm).toMatch(/empty data dir/);
    const plain = joinInstructions({ ...spec, distribution: 'plain' }).join('\n');
    expect(plain).not.toContain('kubeadm');
  });
});

describe('where Replace is offered', () => {
  const cluster = (kubernetes?: Record<string, unknown>) =>
    configFileSchema.parse({
      clusters: [
        {
          name: 'prod',
          etcd: { endpoints: ['https://127.0.0.1:2379'] },
          ...(kubernetes ? { kubernetes } : {}),
        },
      ],
    }).clusters[0];

  it('not on a cluster configured as OpenShift: the operator replaces members, and the runbook says how', () => {
    const ocp = cluster({ kubeconfig: '/k', distribution: 'openshift' });
    if (!ocp) throw new Error('no cluster');
    expect(actions['replace-member'].unavailable(ocp, DEFAULT_REMEDIATION_SETTINGS)).toMatch(
      /^cluster prod runs OpenShift, whose etcd operator replaces members itself; follow its runbook .*replacing-unhealthy-etcd-member\.html/,
    );
    const plain = cluster();
    if (!plain) throw new Error('no cluster');
    expect(actions['replace-member'].unavailable(plain, DEFAULT_REMEDIATION_SETTINGS)).toBeUndefined();
    expect(actions['promote-learner'].unavailable(plain, DEFAULT_REMEDIATION_SETTINGS)).toBeUndefined();
  });
});
