import { describe, expect, it } from '@jest/globals';
import { diagnose } from '../../../src/diagnosis/diagnose.js';
import type { LatencySummary } from '../../../src/probes/evidence.js';
import { skipped } from '../../../src/probes/outcome.js';
import type { Rule } from '../../../src/diagnosis/rule.js';
import { rules } from '../../../src/diagnosis/rules/index.js';
import {
  clusterEvidence,
  failed,
  latency,
  metricsData,
  ok,
  statusData,
} from '../../support/evidence/evidence.js';

const ctx = { now: Date.parse('2026-11-29T03:00:05Z') };

/** A summary that fell back to the since-start histogram because the window held only `windowCount`. */
function sinceStart(summary: LatencySummary, windowCount: number): LatencySummary {
  return { ...summary, source: 'since-start', windowSeconds: undefined, windowCount };
}

describe('diagnose with the real rules', () => {
  it('calls a healthy cluster healthy with no findings', () => {
    const result = diagnose(clusterEvidence(), rules, ctx);
    expect(result.status).toBe('healthy');
    expect(result.findings).toEqual([]);
    expect(result.trace.every((t) => !t.fired)).toBe(true);
  });

  it('names a killed member, keeping tolerance in the summary', () => {
    const down = failed(
      'unreachable',
      'etcd-2 (http://127.0.0.1:23792) is unreachable (Status: connect ECONNREFUSED)',
    );
    const result = diagnose(
      clusterEvidence({ 'etcd-2': { status: down, health: down, metrics: down, clock: down } }),
      rules,
      ctx,
    );
    expect(result.status).toBe('critical');
    expect(result.findings[0]).toMatchObject({
      cause: 'member-down',
      members: ['etcd-2'],
      severity: 'critical',
    });
    expect(result.findings[0]?.summary).toContain('can survive 0 more failures');
  });

  it('calls two of three down quorum-lost, not member-down', () => {
    const down = failed('unreachable', 'connection refused');
    const leaderless = ok({
      memberId: 'a1',
      clusterId: 'c1',
      version: '3.4.45',
      dbSizeBytes: 1,
      dbSizeInUseBytes: 1,
      leaderId: '0',
      raftTerm: 9,
      raftIndex: 1,
      raftAppliedIndex: 1,
      revision: 1,
      isLearner: false,
      errors: ['etcdserver: no leader'],
    });
    const evidence = clusterEvidence({
      'etcd-1': {
        status: leaderless,
        health: failed('timeout', 'etcd-1 did not answer a linearizable read in 3 s'),
      },
      'etcd-2': { status: down, health: down, metrics: down, clock: down },
      'etcd-3': { status: down, health: down, metrics: down, clock: down },
    });
    const result = diagnose(evidence, rules, ctx);
    expect(result.status).toBe('critical');
    expect(result.findings.map((f) => [f.cause, f.causedBy ?? null])).toEqual([
      ['quorum-lost', null],
      ['leader-churn', 'quorum-lost'],
    ]);
    expect(result.findings[0]?.members).toEqual(['etcd-1', 'etcd-2', 'etcd-3']);
  });

  it('puts slow-disk on the slow member first, with peers for comparison', () => {
    const slow = ok(metricsData({ walFsync: latency(212, 201), backendCommit: latency(420, 400) }));
    const result = diagnose(clusterEvidence({ 'etcd-2': { metrics: slow } }), rules, ctx);
    expect(result.findings[0]).toMatchObject({ cause: 'slow-disk', members: ['etcd-2'] });
    expect(result.findings[0]?.evidence[0]).toBe(
      'etcd-2: wal fsync p99 212 ms, mean 201 ms (200 fsyncs in 3 s; etcd FAQ: < 10 ms)',
    );
    expect(result.findings[0]?.evidence.at(-1)).toContain('for comparison: etcd-1 wal fsync p99 4 ms');
    expect(result.findings[0]?.steps[0]).toMatchObject({
      action: 'disk-benchmark',
      args: { member: 'etcd-2' },
    });
  });

  // A slow disk under a light load: 200 ms per fsync leaves too few in the 3 s window for a p99.
  it('says why it used the since-start histogram, and why a p99 is missing, in one parenthesis', () => {
    const thin = ok(
      metricsData({
        walFsync: sinceStart(latency(230, 201, 110), 12),
        backendCommit: sinceStart({ ...latency(0, 201, 12), p99Seconds: undefined }, 0),
      }),
    );
    const result = diagnose(clusterEvidence({ 'etcd-2': { metrics: thin } }), rules, ctx);
    expect(result.findings[0]).toMatchObject({ cause: 'slow-disk', members: ['etcd-2'] });
    expect(result.findings[0]?.evidence.slice(0, 2)).toEqual([
      'etcd-2: wal fsync p99 230 ms, mean 201 ms (110 fsyncs since the member started, as the 3 s window held only 12; etcd FAQ: < 10 ms)',
      'etcd-2: backend commit mean 201 ms, no p99 from fewer than 20 commits (12 commits since the member started, as the 3 s window held none; etcd FAQ: < 25 ms)',
    ]);
  });

  // Verdicts are of now: a disk fixed a minute ago, at a few writes a second, must not stay critical.
  it('a disk slow only in the since-start figures is the past: info, worded so, explaining nothing live', () => {
    const past = ok(
      metricsData({
        walFsync: sinceStart(latency(241, 18, 1381), 14),
        backendCommit: { ...latency(4, 2, 14), windowSeconds: 9.1 },
        deltas: { ...metricsData().deltas, leaderChanges: 2 },
      }),
    );
    const result = diagnose(clusterEvidence({ 'etcd-2': { metrics: past } }), rules, ctx);
    const disk = result.findings.find((f) => f.cause === 'slow-disk');
    expect(disk).toMatchObject({ severity: 'info', members: ['etcd-2'] });
    expect(disk?.summary).toBe(
      'etcd-2 had a slow disk earlier (wal fsync p99 241 ms against the 10 ms etcd recommends, since it started); too few writes now to tell whether it still is',
    );
    expect(disk?.steps[0]).toMatchObject({ action: 'rerun' });
    // Whatever else fired (the elections) is not put down to a disk that was slow once.
    expect(result.findings.map((f) => f.cause)).toContain('leader-churn');
    expect(result.findings.filter((f) => f.causedBy === 'slow-disk')).toEqual([]);
    expect(result.status).not.toBe('critical');
  });

  // Issue 42: filling a quota with 100 KB values gave commit p99s of 61-109 ms on tmpfs, fsync at 1 ms.
  it('a slow backend commit since start beside fast fsyncs is big transactions, not a disk: no finding', () => {
    const bigWrites = ok(
      metricsData({
        walFsync: sinceStart(latency(1, 0.1, 156), 3),
        backendCommit: sinceStart(latency(61, 13, 32), 0),
      }),
    );
    const result = diagnose(clusterEvidence({ 'etcd-1': { metrics: bigWrites } }), rules, ctx);
    expect(result.findings.map((f) => f.cause)).not.toContain('slow-disk');
  });

  // A SIGSTOP minutes ago stays in the since-start round-trip p99 for the member's whole life.
  it('slow peer round trips seen only since start are the past (info); slow in the window too, a warning', () => {
    const peerTo3 = {
      peerId: 'a3',
      rttP99Seconds: 1.4,
      rttSamples: 12,
      sentFailuresTotal: 0,
      sentFailuresInWindow: 0,
    };
    const slowWindow = {
      buckets: [
        { le: 0.1, count: 0 },
        { le: 1, count: 4 },
        { le: Number.POSITIVE_INFINITY, count: 4 },
      ],
      sum: 2,
      count: 4,
    };
    const run = (extra: object) =>
      diagnose(
        clusterEvidence({ 'etcd-1': { metrics: ok(metricsData({ peers: [peerTo3], ...extra })) } }),
        rules,
        ctx,
      ).findings.find((f) => f.cause === 'peer-network');
    const past = run({});
    expect(past).toMatchObject({ severity: 'info', members: ['etcd-3'] });
    expect(past?.summary).toMatch(
      /^Peer round trips to etcd-3 were slow at some time since the members started/,
    );
    expect(run({ peerRttWindow: slowWindow })).toMatchObject({ severity: 'warning', members: ['etcd-3'] });
  });

  it('names the figure that is slow: a slow backend commit beside a fast fsync', () => {
    const commitOnly = ok(metricsData({ walFsync: latency(3.8, 1.2), backendCommit: latency(420, 300) }));
    const result = diagnose(clusterEvidence({ 'etcd-2': { metrics: commitOnly } }), rules, ctx);
    expect(result.findings[0]?.summary).toBe(
      'etcd-2 has a slow disk: backend commit p99 420 ms against the 25 ms etcd recommends',
    );
  });

  it('does not call one outlier a slow disk (p99 high, mean low)', () => {
    const outlier = ok(metricsData({ walFsync: latency(30, 1.2, 60) }));
    const result = diagnose(clusterEvidence({ 'etcd-3': { metrics: outlier } }), rules, ctx);
    expect(result.findings).toEqual([]);
  });

  it('says which rules were skipped because their evidence never arrived', () => {
    const noMetrics = failed('forbidden', 'etcd refused /metrics with HTTP 403');
    const result = diagnose(
      clusterEvidence({
        'etcd-1': { metrics: noMetrics },
        'etcd-2': { metrics: noMetrics },
        'etcd-3': { metrics: noMetrics },
      }),
      rules,
      ctx,
    );
    const slowDisk = result.trace.find((t) => t.rule === 'slow-disk');
    expect(slowDisk).toMatchObject({ skipped: true, fired: false });
    expect(slowDisk?.explain[0]).toContain(
      'no metrics evidence arrived (etcd refused /metrics with HTTP 403)',
    );
  });

  // A health check without --explain: the explain lines are not written, the verdict is the same.
  it('without explain reaches the same findings and status, and skips the per-member lines', () => {
    const notAsked = skipped('not asked');
    const fragmented = ok(statusData('a2', { dbSizeBytes: 1_800_000_000, dbSizeInUseBytes: 400_000_000 }));
    const health = { metrics: notAsked, clock: notAsked };
    const evidence = clusterEvidence({
      'etcd-1': health,
      'etcd-2': { ...health, status: fragmented },
      'etcd-3': { ...health, health: ok({ tookMs: 1300 }) },
    });
    const explained = diagnose(evidence, rules, ctx);
    const quiet = diagnose(evidence, rules, { ...ctx, explain: false });
    expect(explained.findings.map((f) => f.cause)).toEqual(
      expect.arrayContaining(['db-fragmentation', 'db-quota', 'slow-reads']),
    );
    expect(quiet.findings).toEqual(explained.findings);
    expect(quiet.status).toBe(explained.status);
    expect(quiet.trace.map(({ rule, fired, skipped }) => ({ rule, fired, skipped }))).toEqual(
      explained.trace.map(({ rule, fired, skipped }) => ({ rule, fired, skipped })),
    );
    expect(explained.trace.find((t) => t.rule === 'db-fragmentation')?.explain[1]).toContain(
      'etcd-2: db 1.8 GB, in use 400 MB, fragmentation 78 %',
    );
    // The per-member lines and the reasons for skipped rules are what is left out; one-line
    // summaries (quorum-lost's count) are cheap and stay.
    const perMember = ['db-fragmentation', 'db-quota', 'slow-reads'];
    const left = quiet.trace.filter((t) => t.skipped || perMember.includes(t.rule));
    expect(left.length).toBeGreaterThan(perMember.length);
    expect(left.flatMap((t) => t.explain)).toEqual([]);
  });
});

describe('diagnose ranking and causal links (engine only)', () => {
  const fire = (
    name: string,
    cause: Rule['cause'],
    severity: 'critical' | 'warning',
    rank: number,
    explains: Rule['explains'] = [],
  ): Rule => ({
    name,
    cause,
    needs: [],
    explains,
    rank,
    evaluate: () => ({
      finding: {
        cause,
        severity,
        members: ['etcd-2'],
        nodes: [],
        summary: name,
        evidence: [],
        steps: [],
        unknowns: [],
      },
      explain: ['fired'],
    }),
  });

  it('puts the explaining cause first even when its symptom is more severe', () => {
    const result = diagnose(
      clusterEvidence(),
      [
        fire('churn', 'leader-churn', 'critical', 30),
        fire('disk', 'slow-disk', 'warning', 20, ['leader-churn']),
      ],
      ctx,
    );
    expect(result.findings.map((f) => [f.cause, f.causedBy])).toEqual([
      ['slow-disk', undefined],
      ['leader-churn', 'slow-disk'],
    ]);
    expect(result.status).toBe('critical');
  });

  it('links a symptom of a symptom to the root', () => {
    const result = diagnose(
      clusterEvidence(),
      [
        fire('restarts', 'control-plane-restarts', 'warning', 50),
        fire('churn', 'leader-churn', 'warning', 30, ['control-plane-restarts']),
        fire('disk', 'slow-disk', 'warning', 20, ['leader-churn']),
      ],
      ctx,
    );
    expect(result.findings.map((f) => [f.cause, f.causedBy ?? null])).toEqual([
      ['slow-disk', null],
      ['leader-churn', 'slow-disk'],
      ['control-plane-restarts', 'slow-disk'],
    ]);
  });
});
