import { type Histogram, histogramQuantile } from './quantile.js';

export type { Histogram };
export { histogramQuantile };

/** p99 and mean of one histogram, and which histogram it was. */
export interface QuantileSummary {
  /** Undefined when the histogram holds fewer than `minSamples` observations. */
  p99Seconds: number | undefined;
  /** `_sum / _count` of the same histogram; undefined when it is empty. */
  meanSeconds: number | undefined;
  count: number;
  /** `window`: the difference of two scrapes; `since-start`: everything since the member started. */
  source: 'window' | 'since-start';
  /** Length of the window when `source` is `window`; `summarizeLatency` leaves it undefined. */
  windowSeconds: number | undefined;
  /**
   * With `since-start` although there was a window: how many observations the window held (fewer
   * than a p99 needs, or none), so a report says "12 in the window", never "no writes" for a few.
   */
  windowCount?: number;
}

const EMPTY: Histogram = { buckets: [], sum: 0, count: 0 };

/**
 * What was observed between two scrapes of the same histogram. Undefined when the counters went
 * backwards (the member restarted) or the bucket layouts differ, since then no subtraction is valid.
 */
export function histogramDelta(before: Histogram, after: Histogram): Histogram | undefined {
  if (after.count < before.count || after.buckets.length !== before.buckets.length) return undefined;
  const buckets: Histogram['buckets'] = [];
  for (const [i, bucket] of after.buckets.entries()) {
    const prev = before.buckets[i];
    if (prev === undefined || prev.le !== bucket.le || bucket.count < prev.count) return undefined;
    buckets.push({ le: bucket.le, count: bucket.count - prev.count });
  }
  return { buckets, sum: after.sum - before.sum, count: after.count - before.count };
}

/**
 * p99 and mean of the writes between two scrapes. When that window holds fewer than `minSamples`
 * observations (no write traffic), or the counters were reset, it falls back to `after`'s
 * since-start histogram and says so in `source`. Whichever histogram is used, a p99 from fewer
 * than `minSamples` observations is withheld: one slow outlier among a handful must not become
 * "the p99". The mean and count are always given.
 */
export function summarizeLatency(
  before: Histogram | undefined,
  after: Histogram | undefined,
  opts: { minSamples: number },
): QuantileSummary {
  const window = before !== undefined && after !== undefined ? histogramDelta(before, after) : undefined;
  if (window !== undefined && window.count > 0 && window.count >= opts.minSamples) {
    return summarize(window, 'window', opts.minSamples);
  }
  const sinceStart = summarize(after ?? EMPTY, 'since-start', opts.minSamples);
  return window === undefined ? sinceStart : { ...sinceStart, windowCount: window.count };
}

function summarize(h: Histogram, source: QuantileSummary['source'], minSamples: number): QuantileSummary {
  return {
    p99Seconds: h.count > 0 && h.count >= minSamples ? histogramQuantile(0.99, h) : undefined,
    meanSeconds: h.count > 0 ? h.sum / h.count : undefined,
    count: h.count,
    source,
    windowSeconds: undefined,
  };
}
