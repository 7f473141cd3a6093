/**
 * A Prometheus histogram as exposed: cumulative bucket counts sorted by `le` (upper bound, seconds),
 * the last bucket `le: Infinity`, plus `_sum` and `_count`.
 */
export interface Histogram {
  buckets: Array<{ le: number; count: number }>;
  sum: number;
  count: number;
}

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
 * The q-quantile as PromQL `histogram_quantile` computes it: find the bucket that holds rank
 * q × count and interpolate linearly inside it (the first bucket starts at 0). A rank that lands
 * in the +Inf bucket gives the highest finite `le`. Undefined for an empty histogram or one with
 * no +Inf bucket. With etcd's power-of-two buckets the result can sit far from any real
 * observation (all fsyncs at 0.3 s give a p99 of 0.509 s), so report the mean beside it.
 */
export function histogramQuantile(q: number, h: Histogram): number | undefined {
  if (!(q >= 0 && q <= 1)) throw new RangeError(`quantile must be within [0, 1], got ${q}`);
  const buckets = monotonic([...h.buckets].sort((a, b) => a.le - b.le));
  const last = buckets.at(-1);
  if (last === undefined || last.le !== Number.POSITIVE_INFINITY || buckets.length < 2) return undefined;
  if (last.count === 0) return undefined;
  const rank = q * last.count;
  const b = buckets.findIndex((bucket) => bucket.count >= rank);
  const bucket = buckets[b];
  if (bucket === undefined) return undefined; // unreachable: the last bucket holds every observation
  if (b === buckets.length - 1) return buckets[b - 1]?.le;
  if (b === 0 && bucket.le <= 0) return bucket.le;
  const below = buckets[b - 1] ?? { le: 0, count: 0 };
  const inBucket = bucket.count - below.count;
  // inBucket is 0 only when q is 0 and the first bucket is empty.
  const fraction = inBucket > 0 ? (rank - below.count) / inBucket : 0;
  return below.le + (bucket.le - below.le) * fraction;
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

/** PromQL's ensureMonotonic: a scrape that is not atomic can show a bucket below the one before it. */
function monotonic(buckets: Histogram['buckets']): Histogram['buckets'] {
  let max = 0;
  return buckets.map(({ le, count }) => {
    max = Math.max(max, count);
    return { le, count: max };
  });
}
