import { afterAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { diagnose } from '../../../src/diagnosis/diagnose.js';
import { rules } from '../../../src/diagnosis/rules/index.js';
import { readLastKnownStates } from '../../../src/history/last-known.js';
import { recoveryInputOf } from '../../../src/lifecycle/gather-recovery.js';
import { planRecovery } from '../../../src/lifecycle/recovery-plan.js';
import { recoveryLines } from '../../../src/lifecycle/render-recovery.js';
import type { Evidence, StatusData } from '../../../src/probes/evidence.js';
import { buildReport } from '../../../src/report/diagnosis-report.js';
import { createMinuteHistory } from '../../../src/state/minute-history.js';
import { summarizeCheck } from '../../../src/state/minute-sample.js';
import { clusterEvidence, failed, ok } from '../../support/evidence/evidence.js';
import { purgePrefix, REDIS_URL, testPrefix } from '../../support/redis/redis-prefix.js';

/*
 * Issue 40: the recovery plan gives a member that is down its last known state from the watch's
 * history. A watch check's minute sample (summarizeCheck, as run-watch-check.ts writes it) goes to a
 * real Redis; ten minutes later two members are down, and the plan read from that Redis names
 * where the watch last saw each: revision, raft term and raft index.
 */
const prefix = testPrefix('last-known');
const redis = new Redis(REDIS_URL);
afterAll(async () => {
  redis.disconnect();
  await purgePrefix(prefix);
});

const NOW = Date.now();
const EARLIER = NOW - 10 * 60_000;

function status(id: string, revision: number, term: number, raftIndex: number): StatusData {
  return {
    memberId: id,
    clusterId: 'c1',
    version: '3.5.30',
    dbSizeBytes: 2_000_000,
    dbSizeInUseBytes: 1_500_000,
    leaderId: 'a2',
    raftTerm: term,
    raftIndex,
    raftAppliedIndex: raftIndex,
    revision,
    isLearner: false,
    errors: [],
  };
}

const at = (evidence: Evidence, ms: number): Evidence => ({ ...evidence, cluster: 'prod', collectedAt: ms });
const reportOf = (evidence: Evidence) =>
  buildReport(evidence, diagnose(evidence, rules, { now: evidence.collectedAt }), {
    kind: 'diagnose',
    durationMs: 1,
  });

describe("recover: a down member's last known state from the watch's history", () => {
  it('reads the last revision, term and index the watch saw of each down member, from Redis, into the plan', async () => {
    const history = createMinuteHistory(redis, prefix, () => NOW);
    // The watch's check ten minutes ago: every member answered; etcd-2 (the leader) was ahead.
    const before = at(
      clusterEvidence({
        'etcd-1': { status: ok(status('a1', 4100, 5, 9000)) },
        'etcd-2': { status: ok(status('a2', 4105, 5, 9006)) },
        'etcd-3': { status: ok(status('a3', 4090, 5, 8990)) },
      }),
      EARLIER,
    );
    const sample = summarizeCheck(reportOf(before), before);
    expect(sample.m.map((m) => m[12])).toEqual([
      [4100, 5, 9000],
      [4105, 5, 9006],
      [4090, 5, 8990],
    ]);
    await history.record('prod', sample);

    // Now: etcd-2 and etcd-3 are down; etcd-1 answers Status but cannot serve reads.
    const down = failed('unreachable', 'connect ECONNREFUSED 127.0.0.1:23792');
    const now = at(
      clusterEvidence({
        'etcd-1': {
          status: ok({ ...status('a1', 4100, 6, 9001), leaderId: '0' }),
          health: failed('timeout', 'did not answer a linearizable read in 3000 ms'),
        },
        'etcd-2': { status: down, health: down },
        'etcd-3': { status: down, health: down },
      }),
      NOW,
    );
    const lastKnown = await readLastKnownStates(
      createMinuteHistory(redis, prefix, () => NOW),
      'prod',
      NOW,
    );
    expect(lastKnown.get('etcd-2')).toEqual({ at: EARLIER, revision: 4105, term: 5, raftIndex: 9006 });

    const plan = planRecovery(recoveryInputOf('prod', reportOf(now), now, NOW, lastKnown));
    expect(plan.restoreFrom).toMatchObject({ member: 'etcd-1', source: 'member', revision: 4100 });
    const etcd2 = plan.candidates.find((c) => c.member === 'etcd-2');
    expect(etcd2).toMatchObject({
      source: 'down',
      revision: null,
      lastSeen: { at: new Date(EARLIER).toISOString(), revision: 4105, term: 5, raftIndex: 9006 },
    });
    expect(etcd2?.lastSeen?.ageMinutes).toBeCloseTo(10, 5);
    expect(etcd2?.note).toBe(
      `does not answer; the watch last saw it 10 min ago (${new Date(EARLIER).toISOString()}) at revision 4105, raft term 5, index 9006`,
    );
    expect(plan.dataAtRisk).toContain('etcd-2 was last seen at revision 4105, 5 ahead of etcd-1');
    expect(plan.dataAtRisk).toContain('etcd-3 was last seen at revision 4090, not ahead of etcd-1');
    expect(recoveryLines(plan).join('\n')).toContain(
      'etcd-3 (down): does not answer; the watch last saw it 10 min ago',
    );
  });

  it('a member the watch never saw answer keeps the plain note', async () => {
    const lastKnown = await readLastKnownStates(
      createMinuteHistory(redis, prefix, () => NOW),
      'other',
      NOW,
    );
    expect(lastKnown.size).toBe(0);
  });
});
