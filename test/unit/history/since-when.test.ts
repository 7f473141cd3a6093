import { describe, expect, it } from '@jest/globals';
import type { MinuteSample } from '../../../src/history/minute-sample.js';
import { sinceWhen } from '../../../src/history/since-when.js';

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
});
