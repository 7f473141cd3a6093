import { describe, expect, it } from '@jest/globals';
import type { PlanSnapshot } from '../../../src/remediation/action.js';
import { describeDefrag, defragSummary } from '../../../src/remediation/actions/defragment.js';
import { defragGain, smallGain } from '../../../src/remediation/actions/defrag-gain.js';
import type { MemberState } from '../../../src/remediation/actions/cluster-state.js';
import { transfereeFor } from '../../../src/remediation/actions/move-leader.js';
import { DEFAULT_REMEDIATION_SETTINGS } from '../../../src/remediation/settings.js';

const MB = 1000 * 1000;
const snapshot = (members: PlanSnapshot['members'], leader: string): PlanSnapshot => ({
  cluster: 'prod',
  rootCause: 'db-fragmentation',
  leader,
  members,
  reportText: undefined,
  threadLink: undefined,
});

describe('what a defragmentation would free', () => {
  it('is small under 10 % or under 50 MB by default, and says which', () => {
    const t = { minFreeRatio: 0.1, minFreeBytes: 50 * MB };
    expect(smallGain(defragGain(1000 * MB, 940 * MB), t)).toBe(
      'would free only 60 MB of 1 GB (6 %): under 10 %',
    );
    expect(smallGain(defragGain(60 * MB, 20 * MB), t)).toBe(
      'would free only 40 MB of 60 MB (67 %): under 50 MB',
    );
    expect(smallGain(defragGain(600 * MB, 100 * MB), t)).toBeUndefined();
    expect(defragGain(600 * MB, undefined)).toBeUndefined();
  });

  it('the confirmation lists each member, skips the small one, and the leader moves first', () => {
    const lines = describeDefrag(
      snapshot(
        [
          { name: 'etcd-1', reachable: true, dbSizeBytes: 900 * MB, dbSizeInUseBytes: 300 * MB },
          { name: 'etcd-2', reachable: true, dbSizeBytes: 320 * MB, dbSizeInUseBytes: 300 * MB },
          { name: 'etcd-3', reachable: true, dbSizeBytes: 880 * MB, dbSizeInUseBytes: 300 * MB },
        ],
        'etcd-3',
      ),
      DEFAULT_REMEDIATION_SETTINGS,
    );
    expect(lines[0]).toBe(
      'What a defragmentation would free, at the diagnosis (a member is worth it with at least 10 % of the file and 50 MB): etcd-1: would free 600 MB of 900 MB (67 %); etcd-2: skipped, would free only 20 MB of 320 MB (6 %): under 10 % and under 50 MB; etcd-3 (leader): would free 580 MB of 880 MB (66 %).',
    );
    expect(lines[1]).toMatch(/^Defragment etcd-1, then leader etcd-3, one at a time/);
    expect(lines[2]).toMatch(
      /^Leader etcd-3 goes last: leadership first moves to a caught-up follower \(MoveLeader\)/,
    );
  });

  it('the summary says who was skipped and how the leader went', () => {
    const base = {
      ok: true,
      lines: [],
      order: ['etcd-1', 'etcd-2', 'etcd-3'],
      defragmented: ['etcd-1', 'etcd-3'],
    };
    expect(
      defragSummary(
        { ...base, skipped: ['etcd-2'], leaderMove: { moved: true, to: 'etcd-1', line: '', from: 'etcd-3' } },
        false,
      ),
    ).toBe(
      'defragmented etcd-1 and etcd-3 (leadership moved from etcd-3 to etcd-1 first); skipped etcd-2 (little to gain)',
    );
    expect(
      defragSummary(
        {
          ...base,
          skipped: [],
          leaderMove: {
            moved: false,
            why: 'no healthy follower has caught up with it',
            line: '',
            from: 'etcd-3',
          },
        },
        false,
      ),
    ).toBe(
      'defragmented etcd-1 and etcd-3 (etcd-3 as leader, last: no healthy follower has caught up with it)',
    );
  });
});

describe('who takes leadership before the leader is defragmented', () => {
  const m = (name: string, over: Partial<MemberState> = {}): MemberState => ({
    name,
    endpoint: `http://127.0.0.1:2379/${name}`,
    id: name.replace('etcd-', 'a'),
    isLearner: false,
    reachable: true,
    isLeader: false,
    dbSizeBytes: 1,
    dbSizeInUseBytes: 1,
    revision: 1,
    appliedIndex: 1000,
    errors: [],
    problem: undefined,
    ...over,
  });

  it('a healthy caught-up voter, the already defragmented first, then the least behind', () => {
    const leader = m('etcd-1', { isLeader: true, appliedIndex: 1000 });
    const members = [leader, m('etcd-2', { appliedIndex: 990 }), m('etcd-3', { appliedIndex: 950 })];
    expect(transfereeFor(leader, members)?.name).toBe('etcd-2');
    expect(transfereeFor(leader, members, ['etcd-3'])?.name).toBe('etcd-3');
  });

  it('nobody when the followers are behind by more than 100 entries, learners or unhealthy: the leader goes last', () => {
    const leader = m('etcd-1', { isLeader: true, appliedIndex: 5000 });
    expect(
      transfereeFor(leader, [
        leader,
        m('etcd-2', { appliedIndex: 4800 }),
        m('etcd-3', { isLearner: true, appliedIndex: 5000 }),
        m('etcd-4', { problem: 'knows no leader', appliedIndex: 5000 }),
        m('etcd-5', { errors: ['memberID:a5 alarm:CORRUPT'], appliedIndex: 5000 }),
      ]),
    ).toBeUndefined();
  });
});
