import { describe, expect, it } from '@jest/globals';
import type { HistorySample } from '../../../src/state/history-sample.js';
import { baseline, dailySeries, sameKind, sparkline, trend } from '../../../src/history/trends.js';

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

  it('counts members named like Object.prototype properties as members', () => {
    const named = (daysAgo: number, total: number): HistorySample => ({
      ...sample(daysAgo, 4, 0),
      m: ['constructor', '__proto__', 'toString'].map((name) => [name, 4, 2, 1, 1000, 900, total]),
      r: JSON.parse(`{"__proto__": ${total}, "constructor": ${total}}`) as Record<string, number>,
    });
    const series = dailySeries([named(1, 5), named(0, 7)], NOW);
    expect(series.leaderChanges.at(-1)).toBe(6);
    expect(series.restarts.at(-1)).toBe(4);
  });

  it('treats a counter that went down as restarted from zero', () => {
    const series = dailySeries([sample(1, 4, 50), sample(0, 4, 2)], NOW);
    expect(series.leaderChanges.at(-1)).toBe(2);
  });
});

describe('days of watch checks in the history', () => {
  it("take a digest's day of checks as that day's figure and mark it, and compare only like with like", () => {
    const checked: HistorySample = { ...sample(1, 2, 10), d: [7, 3, 1440] };
    const series = dailySeries([sample(2, 4, 8), checked, sample(1, 1, 12), sample(0, 5, 12)], NOW);
    expect(series.fsyncP99Ms.slice(-3)).toEqual([4, 7, 5]);
    expect(series.leaderChanges.at(-2)).toBe(3);
    expect(series.fromChecks.slice(-3)).toEqual([false, true, false]);
    // Today came from diagnoses: yesterday's day of checks is not its kind.
    expect(sameKind(series.fsyncP99Ms, series.fromChecks).slice(-3)).toEqual([4, null, 5]);
  });
});
