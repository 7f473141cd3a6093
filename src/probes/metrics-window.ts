/**
 * What two scrapes of one member's /metrics say about the time between them: the latency
 * histograms' deltas, the counters' increases, the peers' RTTs, and the load as rates.
 */

import {
  type Histogram,
  histogramDelta,
  histogramQuantile,
  type QuantileSummary,
  summarizeLatency,
} from '../etcd/histogram.js';
import {
  COUNTER_NAMES,
  type Counters,
  DEFAULT_MIN_FSYNC_SAMPLES,
  defined,
  type EtcdMetricsSnapshot,
  type FeatureGate,
  type LoadReading,
} from './etcd-metrics.js';

type WindowCounter = Exclude<keyof Counters, 'proposalsCommitted' | 'proposalsApplied'>;

/** What two scrapes of one member say about the time between them. */
export interface EtcdMetricsWindow {
  /** Time between the scrapes; 0 without an earlier scrape. */
  windowSeconds: number;
  walFsync: QuantileSummary;
  backendCommit: QuantileSummary;
  /** The wal fsync histogram of the window itself (absent without an earlier scrape, or after a reset): the minute history keeps its buckets. */
  walFsyncWindow?: Histogram;
  /** The backend commit histogram of the window (same conditions as walFsyncWindow). */
  backendCommitWindow?: Histogram;
  /** Every peer's RTT histogram of the window, added up (bucket layouts agree: one etcd binary). */
  peerRttWindow?: Histogram;
  /** RTT p99 is over the whole since-start histogram: etcd adds one sample per peer only every ~30 s. */
  peers: Array<{
    peerId: string;
    rttP99Seconds: number | undefined;
    rttSamples: number;
    sentFailuresTotal: number;
    sentFailuresInWindow: number;
  }>;
  /** Counter increases inside the window; 0 without an earlier scrape or after a reset. */
  deltas: Record<WindowCounter, number>;
  /** True when the member restarted between the scrapes (or a counter went backwards): deltas are 0. */
  countersReset: boolean;
  totals: Counters;
  gauges: EtcdMetricsSnapshot['gauges'];
  /** proposals committed − applied in the later scrape (never below 0). */
  applyBacklog: number;
  /** The later scrape's load reading, and the earlier one's (gauges that must hold across the window). */
  load?: LoadReading;
  loadBefore?: LoadReading;
  /** Client load inside the window, per second (absent without an earlier scrape or across a restart). */
  loadRates?: LoadRates;
  /** The later scrape's feature gates (etcd 3.6+ etcd_server_feature_enabled); absent before 3.6. */
  featureGates?: FeatureGate[];
}

export interface LoadRates {
  sentBytesPerSecond?: number;
  grpcRangesPerSecond?: number;
  mvccRangesPerSecond?: number;
  /** Put and Txn requests refused as invalid inside the window (a count, not a rate). */
  refusedWrites?: number;
}

const WINDOW_COUNTERS: readonly WindowCounter[] = [
  'leaderChanges',
  'heartbeatSendFailures',
  'slowApply',
  'slowReadIndexes',
  'readIndexesFailed',
  'proposalsFailed',
];

/**
 * Derives the window between two scrapes of one member. Without `before`, everything is
 * since-start. A restart between the scrapes (process_start_time_seconds changed, or a counter
 * went backwards) is treated the same way, since no subtraction across it is meaningful.
 */
export function compareSnapshots(
  before: EtcdMetricsSnapshot | undefined,
  after: EtcdMetricsSnapshot,
  opts: { minSamples?: number } = {},
): EtcdMetricsWindow {
  if (before !== undefined && before.scrapedAtMs > after.scrapedAtMs) {
    throw new RangeError(
      `compareSnapshots: before (${before.scrapedAtMs}) is later than after (${after.scrapedAtMs})`,
    );
  }
  const minSamples = opts.minSamples ?? DEFAULT_MIN_FSYNC_SAMPLES;
  const countersReset = before !== undefined && wasReset(before, after);
  const earlier = countersReset ? undefined : before;
  const windowSeconds = before === undefined ? 0 : (after.scrapedAtMs - before.scrapedAtMs) / 1000;
  const latency = (pick: (s: EtcdMetricsSnapshot) => Histogram | undefined): QuantileSummary => {
    const summary = summarizeLatency(earlier && pick(earlier), pick(after), { minSamples });
    return { ...summary, windowSeconds: summary.source === 'window' ? windowSeconds : undefined };
  };
  const delta = (pick: (s: EtcdMetricsSnapshot) => Histogram | undefined): Histogram | undefined => {
    const a = earlier && pick(earlier);
    const b = pick(after);
    return a && b ? histogramDelta(a, b) : undefined;
  };
  const fsyncWindow = delta((s) => s.walFsync);
  const commitWindow = delta((s) => s.backendCommit);
  const rttWindow = earlier ? peerRttDelta(earlier, after) : undefined;
  return {
    windowSeconds,
    ...(fsyncWindow ? { walFsyncWindow: fsyncWindow } : {}),
    ...(commitWindow ? { backendCommitWindow: commitWindow } : {}),
    ...(rttWindow ? { peerRttWindow: rttWindow } : {}),
    walFsync: latency((s) => s.walFsync),
    backendCommit: latency((s) => s.backendCommit),
    peers: comparePeers(earlier, after),
    deltas: Object.fromEntries(
      WINDOW_COUNTERS.map((key) => [key, earlier ? increase(earlier.counters[key], after.counters[key]) : 0]),
    ) as Record<WindowCounter, number>,
    countersReset,
    totals: after.counters,
    gauges: after.gauges,
    // The two gauges are read one after the other, so applied can briefly pass committed.
    applyBacklog: Math.max(0, after.counters.proposalsCommitted - after.counters.proposalsApplied),
    ...(after.load ? { load: after.load } : {}),
    ...(earlier?.load ? { loadBefore: earlier.load } : {}),
    ...loadRatesOf(earlier, after, windowSeconds),
    ...(after.featureGates ? { featureGates: after.featureGates } : {}),
  };
}

/** The load counters' increase over the window, per second; nothing across a restart or without one. */
function loadRatesOf(
  before: EtcdMetricsSnapshot | undefined,
  after: EtcdMetricsSnapshot,
  windowSeconds: number,
): { loadRates?: LoadRates } {
  const a = before?.load;
  const b = after.load;
  if (!a || !b || windowSeconds <= 0) return {};
  const rate = (x: number | undefined, y: number | undefined) =>
    x === undefined || y === undefined ? undefined : increase(x, y) / windowSeconds;
  const count = (x: number | undefined, y: number | undefined) =>
    y === undefined ? undefined : increase(x ?? 0, y);
  const rates: LoadRates = defined({
    sentBytesPerSecond: rate(a.clientSentBytes, b.clientSentBytes),
    grpcRangesPerSecond: rate(a.grpcRanges, b.grpcRanges),
    mvccRangesPerSecond: rate(a.mvccRanges, b.mvccRanges),
    refusedWrites: count(a.refusedWrites, b.refusedWrites),
  });
  return { loadRates: rates };
}

/** The window's RTT observations of every peer in one histogram (the minute history keeps its buckets). */
function peerRttDelta(before: EtcdMetricsSnapshot, after: EtcdMetricsSnapshot): Histogram | undefined {
  let total: Histogram | undefined;
  for (const [peerId, h] of Object.entries(after.peerRtt)) {
    const old = before.peerRtt[peerId];
    const d = old ? histogramDelta(old, h) : undefined;
    if (!d) continue;
    if (!total) total = d;
    else if (
      d.buckets.every((b, i) => total?.buckets[i]?.le === b.le) &&
      d.buckets.length === total.buckets.length
    )
      total = {
        buckets: total.buckets.map((b, i) => ({ le: b.le, count: b.count + (d.buckets[i]?.count ?? 0) })),
        sum: total.sum + d.sum,
        count: total.count + d.count,
      };
  }
  return total;
}

function comparePeers(
  before: EtcdMetricsSnapshot | undefined,
  after: EtcdMetricsSnapshot,
): EtcdMetricsWindow['peers'] {
  const ids = new Set([
    ...Object.keys(after.peerRtt),
    ...Object.keys(after.peerSentFailures),
    ...Object.keys(after.peerReceivedFailures),
  ]);
  return [...ids].sort().map((peerId) => {
    const rtt = after.peerRtt[peerId];
    const sent = after.peerSentFailures[peerId] ?? 0;
    return {
      peerId,
      rttP99Seconds: rtt === undefined ? undefined : histogramQuantile(0.99, rtt),
      rttSamples: rtt?.count ?? 0,
      sentFailuresTotal: sent,
      // A peer without the counter in `before` had no failures yet: client_golang creates it on the first.
      sentFailuresInWindow: before === undefined ? 0 : increase(before.peerSentFailures[peerId] ?? 0, sent),
    };
  });
}

function wasReset(before: EtcdMetricsSnapshot, after: EtcdMetricsSnapshot): boolean {
  const startBefore = before.gauges.processStartTimeSeconds;
  const startAfter = after.gauges.processStartTimeSeconds;
  if (startBefore !== undefined && startAfter !== undefined && startBefore !== startAfter) return true;
  return (Object.keys(COUNTER_NAMES) as Array<keyof Counters>).some(
    (k) => after.counters[k] < before.counters[k],
  );
}

function increase(before: number, after: number): number {
  return after >= before ? after - before : 0;
}
