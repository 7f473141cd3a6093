import { describe, expect, it } from '@jest/globals';
import { dayTrends } from '../../../src/state/day-trends.js';
import type { MinuteSample } from '../../../src/state/minute-sample.js';

const T = Date.parse('2024-05-01T00:00:00Z');

function rollup(t: number, n: number, slow: boolean): MinuteSample {
  return {
    v: 1,
    t,
    n,
    s: 'healthy',
    m: [
      ['etcd-1', 2, 1, 0.4, 0, 2_000_000, 1_000_000, 3, 0, [[2, 100]], [[1, 50]], [[0.5, 2]]],
      [
        'etcd-2',
        2,
        1,
        0.4,
        slow ? 2 : 0,
        3_000_000,
        1_500_000,
        3,
        0,
        slow ? [[128, 10]] : [[2, 100]],
        [[1, 50]],
      ],
      // A sample stored before the commit and RTT columns existed.
      ['etcd-3', 2, 1, 0.4, null, 1_000_000, null, 3, 0, [[2, 100]]],
    ],
    f: [],
  };
}

describe('the day from the minute history', () => {
  it("gives the worst member's p99 of its own summed buckets, summed elections, and the latest DB", () => {
    const day = dayTrends([rollup(T, 5, false), rollup(T + 300_000, 5, true), rollup(T + 600_000, 3, false)]);
    expect(day?.checks).toBe(13);
    // etcd-2: 300 fast fsyncs and 10 slow ones (2.6 %): its p99 is in the slow bucket; averaging
    // the members together would have hidden it.
    expect(day?.fsyncP99Ms).toBeGreaterThan(64);
    expect(day?.fsyncP99Ms).toBeLessThanOrEqual(128);
    expect(day?.commitP99Ms).toBeCloseTo(0.99, 1);
    expect(day?.peerRttP99Ms).toBeCloseTo(0.5, 1);
    expect(day?.leaderChanges).toBe(2);
    expect(day?.db).toEqual({ sizeBytes: 3_000_000, inUseBytes: 1_500_000 });
    expect(day?.fromMs).toBe(T);
    expect(day?.toMs).toBe(T + 600_000);
  });

  it('is undefined without history, and says n/a for what no check measured', () => {
    expect(dayTrends([])).toBeUndefined();
    const bare: MinuteSample = {
      v: 1,
      t: T,
      s: 'unknown',
      m: [['etcd-1', null, null, null, null, null, null, null, null, []]],
      f: [],
    };
    expect(dayTrends([bare])).toMatchObject({
      checks: 1,
      fsyncP99Ms: null,
      commitP99Ms: null,
      leaderChanges: null,
      db: null,
    });
  });
});
