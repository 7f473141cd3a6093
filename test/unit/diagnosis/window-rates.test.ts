import { describe, expect, it } from '@jest/globals';
import { diagnose } from '../../../src/diagnosis/diagnose.js';
import { rules } from '../../../src/diagnosis/rules/index.js';
import {
  eventsNeeded,
  LATE_HEARTBEAT_RATE,
  LEADER_CHANGE_RATE,
  PEER_SEND_FAILURE_RATE,
} from '../../../src/diagnosis/support/window-rate.js';
import type { MetricsData } from '../../../src/probes/evidence.js';
import { clusterEvidence, latency, metricsData, ok } from '../../support/evidence/evidence.js';

/**
 * Events counted in a /metrics window mean trouble at a rate, not at a count: the 3-second probe
 * keeps its verdicts (one event is a signal), the watch's 60-second window needs its share.
 */

const ctx = { now: Date.parse('2026-11-29T03:00:05Z') };

/** A member's window of `windowSeconds` with these counter increases, its disk fast. */
function windowOf(windowSeconds: number, deltas: Partial<MetricsData['deltas']>): MetricsData {
  const base = metricsData();
  return metricsData({
    windowSeconds,
    walFsync: { ...latency(2, 1), windowSeconds },
    backendCommit: { ...latency(4, 2), windowSeconds },
    deltas: { ...base.deltas, ...deltas },
  });
}

function causesOf(windowSeconds: number, deltas: Partial<MetricsData['deltas']>, who = 'etcd-1' as const) {
  const evidence = clusterEvidence({ [who]: { metrics: ok(windowOf(windowSeconds, deltas)) } });
  return diagnose(evidence, rules, ctx).findings.map((f) => [f.cause, f.severity, f.members]);
}

describe('window rates', () => {
  it('need one event in any window shorter than 1/rate, and their share of a longer one', () => {
    for (const w of [0.5, 3, 3.4, 5, 7.9]) expect(eventsNeeded(LATE_HEARTBEAT_RATE, w)).toBe(1);
    expect(eventsNeeded(LATE_HEARTBEAT_RATE, 60)).toBe(15);
    // etcdHighNumberOfLeaderChanges: 4 in 15 min; a 60 s window still needs one.
    expect(eventsNeeded(LEADER_CHANGE_RATE, 60)).toBe(1);
    expect(eventsNeeded(LEADER_CHANGE_RATE, 900)).toBe(4);
    // etcdMembersDown: 0.01 failed sends a second.
    expect(eventsNeeded(PEER_SEND_FAILURE_RATE, 60)).toBe(1);
    expect(eventsNeeded(PEER_SEND_FAILURE_RATE, 300)).toBe(3);
  });

  // Minimum evidence: without a measured stall, one event is not a cause.
  it('late heartbeats: one in the 3 s probe is not cpu-starvation, three are; a handful in 60 s is not', () => {
    expect(causesOf(3, { heartbeatSendFailures: 1 })).toEqual([]);
    expect(causesOf(3, { heartbeatSendFailures: 2 })).toEqual([]);
    expect(causesOf(3, { heartbeatSendFailures: 3 })).toEqual([['cpu-starvation', 'warning', ['etcd-1']]]);
    expect(causesOf(5, { heartbeatSendFailures: 3 })).toEqual([['cpu-starvation', 'warning', ['etcd-1']]]);
    // Measured under load on a healthy lab: bursts of up to 14 in 12 s, then quiet.
    expect(causesOf(60, { heartbeatSendFailures: 14 })).toEqual([]);
    expect(causesOf(60, { heartbeatSendFailures: 15 })).toEqual([['cpu-starvation', 'warning', ['etcd-1']]]);
  });

  it('slow applies: one in 3 s (the slow-disk demo) is not a cause, three are, a few in a minute are not', () => {
    expect(causesOf(3, { slowApply: 1 })).toEqual([]);
    expect(causesOf(3, { slowApply: 3 })).toEqual([['cpu-starvation', 'warning', ['etcd-1']]]);
    expect(causesOf(60, { slowApply: 5 })).toEqual([]);
    expect(causesOf(60, { slowApply: 20 })).toEqual([['cpu-starvation', 'warning', ['etcd-1']]]);
  });

  it('--explain says how many events cpu-starvation needs without a stall', () => {
    const evidence = clusterEvidence({
      'etcd-1': { metrics: ok(metricsData({ deltas: { ...metricsData().deltas, slowApply: 1 } })) },
    });
    const trace = diagnose(evidence, rules, { now: evidence.collectedAt, explain: true }).trace;
    const lines = trace.find((t) => t.rule === 'cpu-starvation')?.explain ?? [];
    expect(lines.find((l) => l.startsWith('etcd-1:'))).toContain(
      '1 slow applies and 0 late heartbeats in 3 s with a fast disk (without a stall, 3 of either are needed)',
    );
  });

  it('a slow disk is critical with late heartbeats at the rate, warning with a few in a minute', () => {
    const slow = (windowSeconds: number, heartbeatSendFailures: number) => {
      const data = windowOf(windowSeconds, { heartbeatSendFailures });
      const metrics = ok({ ...data, walFsync: { ...latency(40, 30), windowSeconds } });
      const report = diagnose(clusterEvidence({ 'etcd-2': { metrics } }), rules, ctx);
      return report.findings.map((f) => [f.cause, f.severity]);
    };
    expect(slow(3, 1)).toEqual([['slow-disk', 'critical']]);
    expect(slow(60, 3)).toEqual([['slow-disk', 'warning']]);
    expect(slow(60, 30)).toEqual([['slow-disk', 'critical']]);
  });

  it('a leader change in the window is churn at 3 s and at 60 s (above the alert rate either way)', () => {
    expect(causesOf(3, { leaderChanges: 1 })).toEqual([['leader-churn', 'warning', []]]);
    expect(causesOf(60, { leaderChanges: 1 })).toEqual([['leader-churn', 'warning', []]]);
    expect(causesOf(900, { leaderChanges: 3 })).toEqual([]);
  });
});
