import { describe, expect, it } from '@jest/globals';
import {
  type ClusterState,
  type MemberState,
  quorumGuard,
} from '../../../src/remediation/actions/cluster-state.js';
import { defragOrder } from '../../../src/remediation/actions/etcd-members.js';
import { notReady } from '../../../src/remediation/actions/member-ready.js';
import { fioVerdict, parseFioOutput } from '../../../src/remediation/fio-result.js';
import {
  MUTATING_PLAN_MAX_MS,
  planExpiryMs,
  DEFAULT_REMEDIATION_SETTINGS,
} from '../../../src/remediation/settings.js';

const member = (name: string, extra: Partial<MemberState> = {}): MemberState => ({
  name,
  endpoint: `http://${name}:2379`,
  id: name,
  isLearner: false,
  reachable: true,
  isLeader: false,
  dbSizeBytes: 1,
  dbSizeInUseBytes: undefined,
  revision: 1,
  appliedIndex: 10,
  errors: [],
  problem: undefined,
  ...extra,
});
const state = (members: MemberState[]): ClusterState => {
  const voting = members.filter((m) => !m.isLearner);
  return {
    members,
    quorum: Math.floor(voting.length / 2) + 1,
    healthyVoting: voting.filter((m) => m.reachable && !m.problem).length,
  };
};

describe('quorum guard (KB R2/R3)', () => {
  it('allows 3 of 3 healthy; refuses 2 of 3 (no failure margin) and any unhealthy member', () => {
    expect(
      quorumGuard(state([member('a'), member('b', { isLeader: true }), member('c')]), 'defragment'),
    ).toBeUndefined();
    expect(
      quorumGuard(
        state([member('a'), member('b'), member('c', { reachable: false, problem: 'did not answer' })]),
        'defragment',
      ),
    ).toMatch(/quorum of 2 and 2 healthy members, which is not fault tolerant/);
    expect(
      quorumGuard(
        state([
          member('a'),
          member('b'),
          member('c'),
          member('d'),
          member('e', { reachable: false, problem: 'down' }),
        ]),
        'defragment',
      ),
    ).toMatch(/e down .*never on an unhealthy cluster/);
    // NOSPACE alone does not make a member unhealthy (etcd-defrag ignores it).
    expect(
      quorumGuard(
        state([member('a', { errors: ['memberID:1 alarm:NOSPACE'] }), member('b'), member('c')]),
        'x',
      ),
    ).toBeUndefined();
  });
  it('orders followers first and the leader last', () => {
    expect(
      defragOrder([member('a'), member('b', { isLeader: true }), member('c')]).map((m) => m.name),
    ).toEqual(['a', 'c', 'b']);
  });
  it('caps mutating buttons at 30 minutes whatever the config says', () => {
    const long = { ...DEFAULT_REMEDIATION_SETTINGS, planExpiryMs: 24 * 3_600_000 };
    expect(planExpiryMs(long, true)).toBe(MUTATING_PLAN_MAX_MS);
    expect(planExpiryMs(long, false)).toBe(24 * 3_600_000);
  });
});

describe('fio JSON', () => {
  it('reads fdatasync p99 and IOPS and judges them against 10 ms and 20 ms', () => {
    const log = `note\n${JSON.stringify({ jobs: [{ write: { iops: 812 }, sync: { lat_ns: { percentile: { '99.000000': 2_113_536 } } } }] })}`;
    const parsed = parseFioOutput(log);
    if (!parsed.ok) throw new Error(parsed.error);
    expect(parsed.result).toEqual({ fdatasyncP99Ms: 2.113536, writeIops: 812 });
    expect(fioVerdict(parsed.result)).toEqual({
      pass: true,
      lines: ['fdatasync p99 2.11 ms: good (etcd FAQ: < 10 ms)', expect.stringMatching(/IOPS 812/)],
    });
    expect(fioVerdict({ fdatasyncP99Ms: 291, writeIops: 30 }).lines[0]).toMatch(
      /too slow .*which it fails too/,
    );
    expect(parseFioOutput('fio: pid=0, err=13/file:filesetup.c').ok).toBe(false);
  });
});

describe('readiness of a defragmented member', () => {
  const leader = member('b', { isLeader: true, appliedIndex: 5000 });
  it('is ready when it answers, a leader is known and it is within 100 entries of the leader', () => {
    expect(
      notReady(member('a', { appliedIndex: 4950 }), [member('a', { appliedIndex: 4950 }), leader]),
    ).toBeUndefined();
  });
  it('is not ready while it lags, answers nothing, or no member knows a leader', () => {
    const lagging = member('a', { appliedIndex: 4000 });
    expect(notReady(lagging, [lagging, leader])).toMatch(/1000 entries behind the leader/);
    const gone = member('a', { reachable: false, problem: 'did not answer Status' });
    expect(notReady(gone, [gone, leader])).toMatch(/did not answer/);
    expect(notReady(member('a'), [member('a'), member('b')])).toMatch(/no member knows a leader/);
  });
});
