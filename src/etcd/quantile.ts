// Histogram quantiles as PromQL computes them: plain math that probes, rules and the stored
// samples (src/state/) share, so a store needs no probe code to fold its histograms.

/**
 * A Prometheus histogram as exposed: cumulative bucket counts sorted by `le` (upper bound, seconds),
 * the last bucket `le: Infinity`, plus `_sum` and `_count`.
 */
export interface Histogram {
  buckets: Array<{ le: number; count: number }>;
  sum: number;
  count: number;
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

/** PromQL's ensureMonotonic: a scrape that is not atomic can show a bucket below the one before it. */
function monotonic(buckets: Histogram['buckets']): Histogram['buckets'] {
  let max = 0;
  return buckets.map(({ le, count }) => {
    max = Math.max(max, count);
    return { le, count: max };
  });
}
