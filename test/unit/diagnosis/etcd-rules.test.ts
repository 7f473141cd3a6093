import { describe, expect, it } from '@jest/globals';
import { diagnose } from '../../../src/diagnosis/diagnose.js';
import { rules } from '../../../src/diagnosis/rules/index.js';
import type { StatusData } from '../../../src/probes/evidence.js';
import {
  clusterEvidence,
  failed,
  latency,
  metricsData,
  ok,
  statusData,
} from '../../support/evidence/evidence.js';

const now = Date.parse('2026-11-29T03:00:05Z');
const ctx = { now };

const status = (id: string, overrides: Partial<StatusData> = {}) => ok(statusData(id, overrides));

describe('peer-network', () => {
  it('names the member its peers cannot reach though it answers us', () => {
    const peerFailing = (to: string) =>
      ok(
        metricsData({
          peers: [
            {
              peerId: to,
              rttP99Seconds: 0.002,
              rttSamples: 10,
              sentFailuresTotal: 40,
              sentFailuresInWindow: 12,
            },
          ],
        }),
      );
    const result = diagnose(
      clusterEvidence({ 'etcd-1': { metrics: peerFailing('a3') }, 'etcd-2': { metrics: peerFailing('a3') } }),
      rules,
      ctx,
    );
    expect(result.findings[0]).toMatchObject({
      cause: 'peer-network',
      members: ['etcd-3'],
      severity: 'warning',
    });
    expect(result.findings[0]?.evidence).toContain(
      'etcd-1 -> etcd-3: 12 failed peer sends in the window, though etcd-3 answers us',
    );
  });

  it('a partitioned member (answers, no leader, others led) is critical', () => {
    const result = diagnose(
      clusterEvidence({
        'etcd-3': {
          status: status('a3', { leaderId: '0', raftTerm: 9 }),
          health: failed('timeout', 'etcd-3 did not answer a linearizable read in 3 s'),
        },
      }),
      rules,
      ctx,
    );
    expect(result.findings[0]).toMatchObject({
      cause: 'peer-network',
      members: ['etcd-3'],
      severity: 'critical',
    });
    expect(result.findings[0]?.summary).toContain('cannot reach its peers');
  });

  it('failed sends to a dead peer are member-down, not a network fault', () => {
    const down = failed('unreachable', 'etcd-3 is unreachable');
    const toDead = ok(
      metricsData({
        peers: [
          {
            peerId: 'a3',
            rttP99Seconds: undefined,
            rttSamples: 0,
            sentFailuresTotal: 90,
            sentFailuresInWindow: 30,
          },
        ],
      }),
    );
    const result = diagnose(
      clusterEvidence({
        'etcd-1': { metrics: toDead },
        'etcd-3': { status: down, health: down, metrics: down, clock: down },
      }),
      rules,
      ctx,
    );
    expect(result.findings.map((f) => f.cause)).toEqual(['member-down']);
  });
});

describe('clock-skew', () => {
  const clock = (offsetMs: number) =>
    ok({ offsetMs, uncertaintyMs: 60, rttMs: 1, maxRttMs: 2, meanRttMs: 1, samples: 10 });

  it('names the one member 10.5 s off', () => {
    const result = diagnose(clusterEvidence({ 'etcd-2': { clock: clock(10_500) } }), rules, ctx);
    expect(result.findings[0]).toMatchObject({
      cause: 'clock-skew',
      members: ['etcd-2'],
      severity: 'warning',
    });
    expect(result.findings[0]?.summary).toMatch(/^etcd-2's clock is \+10\.5 s off from the other members/);
  });

  it('stays quiet under 1 s plus the measurement uncertainty', () => {
    const result = diagnose(clusterEvidence({ 'etcd-2': { clock: clock(1_050) } }), rules, ctx);
    expect(result.findings).toEqual([]);
  });
});

describe('leader-churn', () => {
  const churn = (totalChanges: number, inWindow: number, uptimeS: number) =>
    ok(
      metricsData({
        deltas: {
          leaderChanges: inWindow,
          heartbeatSendFailures: 0,
          slowApply: 0,
          slowReadIndexes: 0,
          readIndexesFailed: 0,
          proposalsFailed: 0,
        },
        totals: { ...metricsData().totals, leaderChanges: totalChanges },
        gauges: { ...metricsData().gauges, processStartTimeSeconds: now / 1000 - uptimeS },
      }),
    );

  it('a restart a week ago (a few changes over a long uptime) raises nothing', () => {
    const result = diagnose(clusterEvidence({ 'etcd-1': { metrics: churn(3, 0, 7 * 86_400) } }), rules, ctx);
    expect(result.findings).toEqual([]);
  });

  it('five changes in ten minutes of uptime is churn', () => {
    const result = diagnose(clusterEvidence({ 'etcd-1': { metrics: churn(6, 0, 600) } }), rules, ctx);
    expect(result.findings[0]).toMatchObject({ cause: 'leader-churn', severity: 'warning' });
    expect(result.findings[0]?.summary).toBe(
      'The leader keeps changing: 5 since etcd-1 started; clients see `etcdserver: leader changed`',
    );
  });

  it('one election in the window is said as one, not "keeps changing: 1 changes" (issue 42)', () => {
    const result = diagnose(clusterEvidence({ 'etcd-1': { metrics: churn(2, 1, 10) } }), rules, ctx);
    const churning = result.findings.find((f) => f.cause === 'leader-churn');
    expect(churning?.summary).toBe(
      'The leader changed during the probe window; clients see `etcdserver: leader changed`',
    );
    expect(churning?.evidence[0]).toMatch(/^etcd-1: 1 leader change in the probe window, 1 since it started/);
  });
});

describe('db-quota levels (CEOP 65/75/85 %)', () => {
  const full = (ratio: number) => {
    const quota = 2 * 1024 ** 3;
    const size = Math.round(quota * ratio);
    return { status: status('a1', { dbSizeBytes: size, dbSizeInUseBytes: size }) };
  };

  it.each([
    [0.6, undefined, 'healthy'],
    [0.7, 'info', 'healthy'],
    [0.8, 'warning', 'degraded'],
    [0.9, 'critical', 'critical'],
  ] as const)('%s of the quota -> %s', (ratio, severity, status) => {
    const result = diagnose(clusterEvidence({ 'etcd-1': full(ratio) }), rules, ctx);
    expect(result.findings[0]?.severity).toBe(severity);
    expect(result.status).toBe(status);
  });
});

describe('db-quota under NOSPACE: make room, or compact', () => {
  // A 16 MiB quota reached (db at 102 %), 400 live keys and 1 old version: a defragmentation
  // leaves the data in use. At 80 % in use that is past the warning line, so room comes first.
  const nospace = (inUseShare: number) => {
    const quota = 16 * 1024 * 1024;
    const db = Math.round(quota * 1.02);
    const inUse = Math.round(quota * inUseShare);
    const gauges = {
      ...metricsData().gauges,
      dbTotalSizeBytes: db,
      dbInUseSizeBytes: inUse,
      quotaBackendBytes: quota,
      keysTotal: 400,
      compactRevision: -1,
      currentRevision: 401,
    };
    const member = {
      status: status('a1', { dbSizeBytes: db, dbSizeInUseBytes: inUse }),
      metrics: ok(metricsData({ gauges })),
    };
    const evidence = clusterEvidence({ 'etcd-1': member });
    evidence.alarms = ok([{ memberId: 'a1', alarm: 'NOSPACE' }]);
    return diagnose(evidence, rules, ctx).findings[0];
  };

  it.each([
    [0.8, /^Make room first: 13\.4 MB of etcd-1's 17\.1 MB database is in use against its 16\.8 MB quota/],
    [0.76, /^Make room first: /],
    [0.6, /^Recover: snapshot, compact/],
  ] as const)('%s of the quota in use -> %s', (share, step) => {
    const finding = nospace(share);
    expect(finding).toMatchObject({ cause: 'db-quota', severity: 'critical' });
    expect(finding?.steps[0]?.text).toMatch(step);
  });
});

describe('corruption and slow reads', () => {
  it('a CORRUPT alarm is critical and names the member', () => {
    const evidence = clusterEvidence();
    evidence.alarms = ok([{ memberId: 'a2', alarm: 'CORRUPT' }]);
    const result = diagnose(evidence, rules, ctx);
    expect(result.findings[0]).toMatchObject({
      cause: 'corruption',
      members: ['etcd-2'],
      severity: 'critical',
    });
  });

  it('one slow reader with no other signal says where to look', () => {
    const result = diagnose(clusterEvidence({ 'etcd-3': { health: ok({ tookMs: 1300 }) } }), rules, ctx);
    expect(result.findings[0]).toMatchObject({
      cause: 'slow-reads',
      members: ['etcd-3'],
      severity: 'critical',
    });
    expect(result.findings[0]?.summary).toContain("suspect that member's disk or CPU");
  });

  // Steps fit the evidence they follow: no "run again with /metrics" when /metrics was read.
  it('with /metrics read and nothing found there, points at the host, with no re-run', () => {
    const result = diagnose(clusterEvidence({ 'etcd-3': { health: ok({ tookMs: 1300 }) } }), rules, ctx);
    expect(result.findings[0]?.steps).toEqual([
      {
        text: "The /metrics of etcd-3 shows no slow disk and no slow peer network: look at its host while reads are slow (CPU load and steal time in top, other processes' I/O in iotop)",
      },
    ]);
  });

  it("without the slow member's /metrics, asks for them", () => {
    const noMetrics = failed('forbidden', 'etcd refused /metrics with HTTP 403');
    const result = diagnose(
      clusterEvidence({ 'etcd-3': { health: ok({ tookMs: 1300 }), metrics: noMetrics } }),
      rules,
      ctx,
    );
    expect(result.findings[0]?.steps).toEqual([
      {
        text: 'Run the diagnosis again with /metrics of etcd-3 reachable, to see whether the disk, the network or the CPU is behind it',
        action: 'rerun',
      },
    ]);
  });

  it('explained by the slow disk on the same member, defers to it', () => {
    const slowDisk = ok(metricsData({ walFsync: latency(212, 201), backendCommit: latency(420, 400) }));
    const result = diagnose(
      clusterEvidence({ 'etcd-3': { health: ok({ tookMs: 1300 }), metrics: slowDisk } }),
      rules,
      ctx,
    );
    const reads = result.findings.find((f) => f.cause === 'slow-reads');
    expect(reads?.causedBy).toBe('slow-disk');
    expect(reads?.steps.map((s) => s.text)).toEqual([
      'Fix slow-disk first (above): it explains these slow reads. Then run the diagnosis again to see them gone',
    ]);
  });
});

describe('a killed leader and the election after it', () => {
  const down = failed('unreachable', 'etcd-1 is unreachable (Status: connect ECONNREFUSED)');
  const afterElection = () => {
    const evidence = clusterEvidence({
      'etcd-1': { status: down, health: down, metrics: down, clock: down },
      'etcd-2': { status: status('a2', { leaderId: 'a2', raftTerm: 3 }) },
      'etcd-3': { status: status('a3', { leaderId: 'a2', raftTerm: 3 }) },
    });
    return evidence;
  };

  it('member-down on the lost leader says the others elected a new one while the check waited', () => {
    const evidence = {
      ...afterElection(),
      election: { waitedMs: 1240, leaderless: ['etcd-2', 'etcd-3'], interrupted: ['etcd-3'], leaderId: 'a2' },
    };
    const result = diagnose(evidence, rules, ctx);
    expect(result.findings[0]).toMatchObject({ cause: 'member-down', members: ['etcd-1'] });
    expect(result.findings[0]?.evidence).toContain(
      'etcd-2 and etcd-3 answered with no leader and the read of etcd-3 failed with `leader changed` (an election): a quorum named etcd-2 leader 1.2 s later',
    );
  });

  it('slow applies in a window with a leader change and no measured stall are not cpu-starvation', () => {
    const slowApplies = (leaderChanges: number) =>
      ok(metricsData({ deltas: { ...metricsData().deltas, slowApply: 6, leaderChanges } }));
    const withElection = diagnose(clusterEvidence({ 'etcd-2': { metrics: slowApplies(1) } }), rules, ctx);
    expect(withElection.findings.map((f) => f.cause)).not.toContain('cpu-starvation');
    const without = diagnose(clusterEvidence({ 'etcd-2': { metrics: slowApplies(0) } }), rules, ctx);
    expect(without.findings.find((f) => f.cause === 'cpu-starvation')).toMatchObject({ members: ['etcd-2'] });
  });
});

describe('cert-expiry', () => {
  const DAY = 86_400_000;
  const cert = (days: number) => ({
    subject: 'etcd-server',
    issuer: 'etcd-ca',
    validFrom: new Date(now - 300 * DAY).toISOString(),
    validTo: new Date(now + days * DAY).toISOString(),
  });
  const withCerts = (days: Record<'etcd-1' | 'etcd-2' | 'etcd-3', number>) => {
    const evidence = clusterEvidence();
    return {
      ...evidence,
      members: evidence.members.map((m) => ({ ...m, cert: cert(days[m.target.name as 'etcd-1']) })),
    };
  };
  const finding = (evidence: ReturnType<typeof withCerts>) =>
    diagnose(evidence, rules, ctx).findings.find((f) => f.cause === 'cert-expiry');

  it('is info a month ahead, a warning from 14 days, critical from 3, naming only the members concerned', () => {
    expect(finding(withCerts({ 'etcd-1': 200, 'etcd-2': 200, 'etcd-3': 200 }))).toBeUndefined();
    expect(finding(withCerts({ 'etcd-1': 200, 'etcd-2': 25, 'etcd-3': 200 }))).toMatchObject({
      severity: 'info',
      members: ['etcd-2'],
    });
    expect(finding(withCerts({ 'etcd-1': 12, 'etcd-2': 25, 'etcd-3': 200 }))).toMatchObject({
      severity: 'warning',
      members: ['etcd-1', 'etcd-2'],
    });
    const critical = finding(withCerts({ 'etcd-1': 2.5, 'etcd-2': 25, 'etcd-3': 200 }));
    expect(critical?.severity).toBe('critical');
    expect(critical?.summary).toMatch(
      /^etcd-1's server certificate and etcd-2's server certificate expire, the first in 3 days/,
    );
  });

  it("speaks of etcd-doctor's own certificate without blaming a member or the cluster", () => {
    const evidence = {
      ...clusterEvidence(),
      ownCertificates: [
        { role: 'client' as const, subject: 'healthcheck', validTo: new Date(now + 0.5 * DAY).toISOString() },
      ],
    };
    const f = diagnose(evidence, rules, ctx).findings.find((x) => x.cause === 'cert-expiry');
    expect(f).toMatchObject({ severity: 'critical', members: [] });
    expect(f?.summary).toMatch(
      /^etcd-doctor's client certificate expires in under a day \(.+ UTC\): after that etcd-doctor cannot check this cluster \(the cluster itself keeps working\)$/,
    );
  });
});

describe('cpu-starvation from slow GET /version answers', () => {
  const slowClock = (samples: number) =>
    ok({ offsetMs: 5, uncertaintyMs: 50, rttMs: 80, maxRttMs: 90, meanRttMs: 80, samples });

  it('a mean of several slow answers against quick peers is a stall', () => {
    const result = diagnose(clusterEvidence({ 'etcd-2': { clock: slowClock(4) } }), rules, ctx);
    expect(result.findings.find((f) => f.cause === 'cpu-starvation')).toMatchObject({ members: ['etcd-2'] });
  });

  it('one slow answer is not: a lone sample may have waited on our own process', () => {
    const result = diagnose(clusterEvidence({ 'etcd-2': { clock: slowClock(1) } }), rules, ctx);
    expect(result.findings.map((f) => f.cause)).not.toContain('cpu-starvation');
    expect(result.status).toBe('healthy');
  });
});
