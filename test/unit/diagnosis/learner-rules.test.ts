import { describe, expect, it } from '@jest/globals';
import { diagnose } from '../../../src/diagnosis/diagnose.js';
import { rules } from '../../../src/diagnosis/rules/index.js';
import type { Evidence, MetricsData, StatusData } from '../../../src/probes/evidence.js';
import {
  clusterEvidence,
  failed,
  latency,
  member,
  metricsData,
  ok,
} from '../../support/evidence/evidence.js';

const now = Date.parse('2026-11-29T03:00:05Z');
const ctx = { now };

function status(id: string, overrides: Partial<StatusData> = {}) {
  return ok<StatusData>({
    memberId: id,
    clusterId: 'c1',
    version: '3.5.21',
    dbSizeBytes: 1_000_000,
    dbSizeInUseBytes: 900_000,
    leaderId: 'a1',
    raftTerm: 2,
    raftIndex: 5000,
    raftAppliedIndex: 5000,
    revision: 50,
    isLearner: false,
    errors: [],
    ...overrides,
  });
}

/** Three voters (leader etcd-1 at applied index 5000) and learner etcd-4 at `applied`, started `startedMinAgo`. */
function withLearner(
  applied: number,
  startedMinAgo: number,
  learnerMetrics: Partial<MetricsData> = {},
): Evidence {
  const base = clusterEvidence({
    'etcd-1': { status: status('a1') },
    'etcd-2': { status: status('a2') },
    'etcd-3': { status: status('a3') },
  });
  const started = (now - startedMinAgo * 60_000) / 1000;
  const learner = member({
    name: 'etcd-4',
    id: 'a4',
    status: status('a4', { isLearner: true, raftAppliedIndex: applied }),
    metrics: ok(
      metricsData({
        gauges: { ...metricsData().gauges, processStartTimeSeconds: started },
        ...learnerMetrics,
      }),
    ),
  });
  learner.target.isLearner = true;
  const list = base.memberList.ok ? base.memberList.data : [];
  return {
    ...base,
    members: [...base.members, learner],
    memberList: ok([
      ...list,
      {
        id: 'a4',
        name: 'etcd-4',
        peerUrls: ['http://127.0.0.1:2384'],
        clientUrls: [learner.target.endpoint],
        isLearner: true,
      },
    ]),
  };
}

const learnerFinding = (evidence: Evidence) =>
  diagnose(evidence, rules, ctx).findings.find((f) => f.cause === 'learner-not-promoted');

describe('learner-not-promoted', () => {
  it('a caught-up learner gets a Promote step with its button', () => {
    const finding = learnerFinding(withLearner(4950, 3));
    expect(finding).toMatchObject({ severity: 'info', members: ['etcd-4'] });
    expect(finding?.summary).toMatch(
      /etcd-4 is a learner that has caught up with the leader, running for 3 min/,
    );
    expect(finding?.steps).toContainEqual(
      expect.objectContaining({ action: 'promote-learner', args: { member: 'etcd-4' } }),
    );
    expect(finding?.evidence).toContain(
      'etcd-4 (learner): applied index 4950, leader etcd-1 5000 (50 behind; caught up within 100)',
    );
  });

  it('a learner catching up for a few minutes is info, with no Promote button', () => {
    const finding = learnerFinding(withLearner(1000, 2));
    expect(finding).toMatchObject({ severity: 'info' });
    expect(finding?.summary).toMatch(/etcd-4 is a learner catching up: 4000 entries behind the leader/);
    expect(finding?.steps.some((s) => s.action === 'promote-learner')).toBe(false);
  });

  it('behind for long, it says why: its disk and its peer link', () => {
    const leaderSees = ok(
      metricsData({
        peers: [
          {
            peerId: 'a4',
            rttP99Seconds: 0.4,
            rttSamples: 12,
            sentFailuresTotal: 30,
            sentFailuresInWindow: 7,
          },
        ],
      }),
    );
    const evidence = withLearner(1000, 25, { walFsync: latency(80, 60) });
    const leader = evidence.members[0];
    if (leader) leader.metrics = leaderSees;
    const finding = learnerFinding(evidence);
    expect(finding).toMatchObject({ severity: 'warning', members: ['etcd-4'] });
    expect(finding?.summary).toMatch(/etcd-4 is a learner still 4000 entries behind the leader after 25 min/);
    expect(finding?.evidence).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^its disk: wal fsync p99 80 ms \(etcd FAQ: < 10 ms\)/),
        'its peer link: etcd-1 -> etcd-4: 7 failed peer sends in the window',
        expect.stringMatching(/^its peer link: etcd-1 -> etcd-4: round trip p99 400 ms/),
      ]),
    );
  });

  it('behind for long with a fast disk and a clean link says to read its log', () => {
    const finding = learnerFinding(withLearner(1000, 25));
    expect(finding?.severity).toBe('warning');
    expect(finding?.summary).toMatch(/neither its disk nor its peer link looks slow; read its log/);
  });
});

describe('member-down offers the replacement', () => {
  const down = failed('unreachable', 'etcd-3 is unreachable (Status: connect ECONNREFUSED)');

  it('for one lost voter of three', () => {
    const evidence = clusterEvidence({
      'etcd-3': { status: down, health: down, metrics: down, clock: down },
    });
    const finding = diagnose(evidence, rules, ctx).findings.find((f) => f.cause === 'member-down');
    expect(finding?.steps).toContainEqual(
      expect.objectContaining({ action: 'replace-member', args: { member: 'etcd-3' } }),
    );
  });

  it('not while the cluster has a learner: the step stays advice', () => {
    const evidence = withLearner(4950, 3);
    const voter = evidence.members[2];
    if (voter) Object.assign(voter, { status: down, health: down, metrics: down, clock: down });
    const finding = diagnose(evidence, rules, ctx).findings.find((f) => f.cause === 'member-down');
    expect(finding?.members).toEqual(['etcd-3']);
    expect(finding?.steps.some((s) => s.action === 'replace-member')).toBe(false);
    expect(finding?.steps.map((s) => s.text)).toContain(
      'If the member is lost for good: remove it first, then add the replacement (etcd FAQ, runtime-configuration "Replace a failed machine")',
    );
  });
});
