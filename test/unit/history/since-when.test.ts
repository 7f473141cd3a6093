import { describe, expect, it } from '@jest/globals';
import type { MinuteSample } from '../../../src/state/minute-sample.js';
import { findLastSeen, findSinceWhen, STALE_HISTORY_MS, sinceWhen } from '../../../src/history/since-when.js';
import { addSinceWhen } from '../../../src/history/since-when-report.js';

const MIN = 60_000;

/** A check of 3 members; etcd-2's fsync p99 is `fsync` ms, slow-disk named when above 10 ms. */
function check(t: number, fsync: number): MinuteSample {
  return {
    v: 1,
    t,
    s: fsync > 10 ? 'degraded' : 'healthy',
    m: ['etcd-1', 'etcd-2', 'etcd-3'].map((name) => [
      name,
      name === 'etcd-2' ? fsync : 1,
      1,
      0.4,
      0,
      1,
      1,
      2,
      0,
      [],
    ]),
    f: fsync > 10 ? [['slow-disk', 'warning', ['etcd-2']]] : [],
  };
}

describe('since when', () => {
  it('dates the current run of slow checks and says what the metric read before it', () => {
    const start = Date.parse('2024-05-01T14:00:00Z');
    const samples: MinuteSample[] = [];
    // 14:00-02:12 fine at 2-4 ms but for a 30 ms blip at 20:00 (in the range, not the "since"); slow from 02:13.
    for (let t = start; t <= Date.parse('2024-05-02T02:12:00Z'); t += MIN) {
      const fine = 2 + ((t / MIN) % 3);
      samples.push(check(t, t === Date.parse('2024-05-01T20:00:00Z') ? 30 : fine));
    }
    for (let t = Date.parse('2024-05-02T02:13:00Z'); t <= Date.parse('2024-05-02T03:00:00Z'); t += MIN) {
      samples.push(check(t, 48));
    }
    const now = Date.parse('2024-05-02T03:00:00Z');
    expect(sinceWhen(samples, 'slow-disk', 'etcd-2', now)).toBe(
      'etcd-2 wal fsync p99 above 10 ms since 02:13 (47 min; 14:00-02:12 it was 2-30 ms)',
    );
  });

  it('says nothing when the latest check does not show the cause, and dates causes without a metric', () => {
    const t = Date.parse('2024-05-02T02:00:00Z');
    expect(sinceWhen([check(t, 48), check(t + MIN, 3)], 'slow-disk', 'etcd-2', t + MIN)).toBeUndefined();
    const down: MinuteSample = { ...check(t, 1), f: [['member-down', 'critical', ['etcd-3']]] };
    expect(sinceWhen([check(t - MIN, 1), down], 'member-down', 'etcd-3', t + 5 * MIN)).toBe(
      'member-down on etcd-3 since 02:00 (5 min)',
    );
  });

  it('dates the overload causes by their findings, in words (issue 39)', () => {
    const t = Date.parse('2024-05-02T02:13:00Z');
    const storm = (at: number): MinuteSample => ({
      ...check(at, 1),
      s: 'degraded',
      f: [['expensive-requests', 'warning', ['etcd-1']]],
    });
    const samples = [check(t - MIN, 1), storm(t), storm(t + MIN), storm(t + 2 * MIN)];
    expect(sinceWhen(samples, 'expensive-requests', 'etcd-1', t + 12 * MIN)).toBe(
      'heavy client reads on etcd-1 since 02:13 (12 min)',
    );
  });
});

/** A check where etcd-2's column `col` reads `value` and `finding` (if any) names etcd-2, or no member. */
function reading(t: number, col: number, value: number, finding?: [string, string[]]): MinuteSample {
  const base = check(t, 1);
  return {
    ...base,
    m: base.m.map((m) => {
      if (m[0] !== 'etcd-2') return m;
      const row = [...m] as typeof m;
      (row as unknown as Array<unknown>)[col] = value;
      return row;
    }),
    f: finding ? [[finding[0], 'warning', finding[1]]] : [],
  };
}

describe('since when for every cause the minute history measures', () => {
  const t0 = Date.parse('2024-05-02T01:00:00Z');
  const series = (col: number, fine: number, bad: number, cause: string, members = ['etcd-2']) => [
    ...Array.from({ length: 30 }, (_, i) => reading(t0 + i * MIN, col, fine + (i % 2))),
    ...Array.from({ length: 10 }, (_, i) => reading(t0 + (30 + i) * MIN, col, bad, [cause, members])),
  ];
  const now = t0 + 40 * MIN;

  it('peer round trips, with the peer-network rule limit', () => {
    expect(findSinceWhen(series(3, 1, 400, 'peer-network'), 'peer-network', 'etcd-2', now)?.text).toBe(
      'etcd-2 peer round trip p99 above 150 ms since 01:30 (10 min; 01:00-01:29 it was 1-2 ms)',
    );
  });

  it('clock offsets, signed, with the clock-skew limit', () => {
    const samples = series(8, -3, 2500, 'clock-skew');
    expect(findSinceWhen(samples, 'clock-skew', 'etcd-2', now)?.text).toBe(
      'etcd-2 clock offset beyond ±1 s since 01:30 (10 min; 01:00-01:29 it was -3 to -2 ms)',
    );
  });

  it('reads for cpu-starvation, and the cause in words when the read is under the limit', () => {
    expect(findSinceWhen(series(7, 2, 900, 'cpu-starvation'), 'cpu-starvation', 'etcd-2', now)?.text).toBe(
      'etcd-2 linearizable read above 500 ms since 01:30 (10 min; 01:00-01:29 it was 2-3 ms)',
    );
    expect(findSinceWhen(series(7, 2, 40, 'cpu-starvation'), 'cpu-starvation', 'etcd-2', now)?.text).toBe(
      'CPU starvation on etcd-2 since 01:30 (10 min; 01:00-01:29 its linearizable read was 2-3 ms)',
    );
  });

  it('the database size for db-quota (the quota is not in the history)', () => {
    const found = findSinceWhen(series(5, 1.2e9, 1.9e9, 'db-quota'), 'db-quota', 'etcd-2', now);
    expect(found?.text).toBe(
      'a database near or at its quota on etcd-2 since 01:30 (10 min; 01:00-01:29 its db size was 1.2 GB-1.2 GB)',
    );
    expect(found?.before).toMatchObject({ unit: 'bytes', min: 1.2e9 });
  });

  it('leader changes counted over the run, for a finding that names no member', () => {
    const samples = series(4, 0, 2, 'leader-churn', []);
    const found = findSinceWhen(samples, 'leader-churn', undefined, now);
    expect(found?.text).toBe(
      'the leader changed 20 times since 01:30 (10 min; 01:00-01:29 0-1 leader changes a check)',
    );
    expect(found).toMatchObject({ member: null, startedAt: '2024-05-02T01:30:00.000Z', minutes: 10 });
  });

  it('backend commits when only they are slow, and nothing from a stale history', () => {
    const samples = series(2, 3, 80, 'slow-disk');
    expect(sinceWhen(samples, 'slow-disk', 'etcd-2', now)).toBe(
      'etcd-2 backend commit p99 above 25 ms since 01:30 (10 min; 01:00-01:29 it was 3-4 ms)',
    );
    expect(sinceWhen(samples, 'slow-disk', 'etcd-2', now + STALE_HISTORY_MS + MIN)).toBeUndefined();
    expect(sinceWhen([], 'slow-disk', 'etcd-2', now)).toBeUndefined();
  });
});

describe('last seen: a finding told as the past', () => {
  const t0 = Date.parse('2024-05-02T02:00:00Z');
  // Slow 02:08-02:13 (48 ms), fine since (3 ms): the check at 03:00 finds the disk fine now.
  const samples = Array.from({ length: 61 }, (_, i) => check(t0 + i * MIN, i >= 8 && i <= 13 ? 48 : 3));
  const now = t0 + 60 * MIN;

  it('says when the history last saw the metric over the limit, and for how long', () => {
    expect(findLastSeen(samples, 'slow-disk', 'etcd-2', now)).toEqual({
      member: 'etcd-2',
      cause: 'slow-disk',
      startedAt: '2024-05-02T02:08:00.000Z',
      minutes: 5,
      metric: 'wal fsync p99',
      before: null,
      text: 'etcd-2 wal fsync p99 above 10 ms last seen at 02:13 (47 min ago, for 5 min from 02:08)',
      lastSeenAt: '2024-05-02T02:13:00.000Z',
    });
    // Never over the limit in the history (the slow fsyncs predate it): nothing is invented.
    const fine = samples.map((s) => check(s.t, 3));
    expect(findLastSeen(fine, 'slow-disk', 'etcd-2', now)).toBeUndefined();
  });

  it('an info slow-disk finding gets "last seen", a live one keeps "since"', () => {
    const finding = {
      cause: 'slow-disk' as const,
      members: ['etcd-2'],
      nodes: [],
      summary: 'etcd-2 had a slow disk earlier',
      evidence: [],
      remediation: [],
      causedBy: null,
      steps: [],
      unknowns: [],
    };
    const report = {
      cluster: 'lab',
      status: 'healthy' as const,
      durationMs: 1,
      members: [],
      probes: [],
      kind: 'diagnose' as const,
      collectedAt: new Date(now).toISOString(),
      findings: [{ ...finding, severity: 'info' as const }],
    };
    expect(addSinceWhen(report, samples, now).findings[0]?.since?.[0]?.text).toBe(
      'etcd-2 wal fsync p99 above 10 ms last seen at 02:13 (47 min ago, for 5 min from 02:08)',
    );
    const slowNow = [...samples, check(now, 48)];
    const live = { ...report, findings: [{ ...finding, severity: 'warning' as const }] };
    expect(addSinceWhen(live, slowNow, now).findings[0]?.since?.[0]?.text).toMatch(
      /^etcd-2 wal fsync p99 above 10 ms since 03:00/,
    );
  });
});
