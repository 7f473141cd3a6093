import { describe, expect, it } from '@jest/globals';
import type { HistorySample } from '../../../src/history/history-sample.js';
import { baseline, dailySeries, sparkline, trend } from '../../../src/history/trends.js';

const DAY = 24 * 3600_000;
const NOW = Date.parse('2024-05-10T09:00:00Z');

function sample(daysAgo: number, fsyncMs: number, leaderTotal: number, restarts = 0): HistorySample {
  return {
    v: 1,
    t: NOW - daysAgo * DAY + 60_000 * (daysAgo % 3),
    s: 'healthy',
    m: [
      ['etcd-1', fsyncMs, 2, 1, 1000, 900, leaderTotal],
      ['etcd-2', fsyncMs / 2, 2, 1, 1000, 900, 0],
    ],
    r: { 'kube-scheduler': restarts },
    f: [],
  };
}

describe('daily trends from diagnosis history', () => {
  it('puts one digest a day into its own day, today last, and counts leader changes and restarts as counter increases', () => {
    const samples = [8, 7, 6, 5, 4, 3, 2, 1, 0].map((d) =>
      sample(d, d === 0 ? 40 : 4, 10 - d + (d === 0 ? 5 : 0), d === 0 ? 3 : 0),
    );
    const series = dailySeries(samples, NOW);
    expect(series.fsyncP99Ms).toEqual([4, 4, 4, 4, 4, 4, 4, 40]);
    expect(series.leaderChanges).toEqual([1, 1, 1, 1, 1, 1, 1, 6]);
    expect(series.restarts).toEqual([0, 0, 0, 0, 0, 0, 0, 3]);
    expect(trend(40, 4, 2)).toBe('↑');
    expect(trend(4, 40, 2)).toBe('↓');
    expect(trend(4.5, 4, 2)).toBe('→');
    expect(trend(null, 4, 2)).toBe('·');
    expect(baseline(series.fsyncP99Ms)).toBe(4);
  });

  it('draws a sparkline scaled to the largest day, with a dot for a day without data', () => {
    expect(sparkline([0, 1, 2, 4, 8, null, 8, 0])).toBe('▁▂▃▅█·█▁');
    expect(sparkline([0, 0, null])).toBe('▁▁·');
  });

  it('treats a counter that went down as restarted from zero', () => {
    const series = dailySeries([sample(1, 4, 50), sample(0, 4, 2)], NOW);
    expect(series.leaderChanges.at(-1)).toBe(2);
  });
});
