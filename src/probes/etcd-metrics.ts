import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import {
  type Histogram,
  histogramDelta,
  histogramQuantile,
  type QuantileSummary,
  summarizeLatency,
} from '../etcd/histogram.js';

export type { Histogram, QuantileSummary };
export { histogramDelta, histogramQuantile, summarizeLatency };

/**
 * Fewest fsyncs (or commits) a window must hold before its p99 is used. With a handful of fsyncs
 * the p99 is simply the slowest one, so a single slow outlier would raise a slow-disk alarm that
 * is not there (no false alarms). 20 is a compromise (inference): steady write traffic fills a
 * window of a few seconds with that many, while a p99 that ignores one outlier would need over
 * 100. At 20 one outlier still sets the p99 (rank 19.8 of 20), which is why the mean is reported
 * beside it.
 */
export const DEFAULT_MIN_FSYNC_SAMPLES = 20;

/** The numbers diagnosis needs from one scrape of a member's /metrics. */
export interface EtcdMetricsSnapshot {
  scrapedAtMs: number;
  /** etcd_disk_wal_fsync_duration_seconds */
  walFsync: Histogram | undefined;
  /** etcd_disk_backend_commit_duration_seconds */
  backendCommit: Histogram | undefined;
  /** etcd_network_peer_round_trip_time_seconds by label `To` (peer id, hex) */
  peerRtt: Record<string, Histogram>;
  /** etcd_network_peer_sent_failures_total by `To` */
  peerSentFailures: Record<string, number>;
  /** etcd_network_peer_received_failures_total by `From` */
  peerReceivedFailures: Record<string, number>;
  /** Missing counters read as 0. */
  counters: {
    leaderChanges: number;
    heartbeatSendFailures: number;
    slowApply: number;
    slowReadIndexes: number;
    readIndexesFailed: number;
    proposalsFailed: number;
    proposalsCommitted: number;
    proposalsApplied: number;
  };
  /** Missing gauges read as undefined. */
  gauges: {
    hasLeader: number | undefined;
    isLeader: number | undefined;
    proposalsPending: number | undefined;
    dbTotalSizeBytes: number | undefined;
    dbInUseSizeBytes: number | undefined;
    quotaBackendBytes: number | undefined;
    /**
     * etcd_debugging_mvcc_keys_total: the live keys (3.4 and later); with the current and compact
     * revisions below, whether a compaction could free anything.
     */
    keysTotal?: number;
    processStartTimeSeconds: number | undefined;
    /** From the `server_id` label of etcd_server_id. */
    serverId: string | undefined;
    /**
     * etcd_debugging_mvcc_compact_revision: the revision last compacted at, -1 when never (3.4 and
     * 3.5; restored from the backend at start, so it survives restarts).
     */
    compactRevision: number | undefined;
    /** etcd_debugging_mvcc_current_revision (3.4 and 3.5). */
    currentRevision: number | undefined;
    /**
     * etcd_debugging_mvcc_db_compaction_last: unix seconds of the last compaction this process
     * ran, 0 before its first (3.5 only; 3.4 does not export when it compacted).
     */
    lastCompactionSeconds: number | undefined;
    /** Compactions this process ran: etcd_debugging_mvcc_db_compaction_total_duration_milliseconds_count (3.4 and 3.5). */
    compactionsSinceStart: number | undefined;
  };
  /**
   * Client load and the process' resources (issue 39); a field is absent when the member does not
   * export it, and the whole is absent in a snapshot kept from before it existed (watch state).
   */
  load?: LoadReading;
}

/** What a member serves its clients and what it holds, from one scrape (ETCD34/35 metrics.go files). */
export interface LoadReading {
  /** etcd_network_client_grpc_sent_bytes_total: bytes sent to gRPC clients (counter). */
  clientSentBytes?: number;
  /** grpc_server_handled_total{grpc_method="Range"}, every code added up (counter). */
  grpcRanges?: number;
  /** etcd_debugging_mvcc_range_total (3.4 and 3.5; 3.5 also etcd_mvcc_range_total): ranges, Txn's included. */
  mvccRanges?: number;
  /**
   * grpc_server_handled_total{grpc_code="InvalidArgument"} of Put and Txn: what etcd answers a
   * request over --max-request-bytes (`etcdserver: request is too large`, v3rpc/rpctypes ErrGRPCRequestTooLarge).
   */
  refusedWrites?: number;
  /** etcd_debugging_mvcc_watch_stream_total, _watcher_total, _slow_watcher_total, _pending_events_total (gauges). */
  watchStreams?: number;
  watchers?: number;
  slowWatchers?: number;
  pendingEvents?: number;
  /** etcd_disk_defrag_inflight: 1 while the member defragments (3.4.45 and 3.5.33 have it; KB §1.4). */
  defragInflight?: number;
  /** process_open_fds, process_max_fds, process_resident_memory_bytes (Go's process collector). */
  openFds?: number;
  maxFds?: number;
  residentMemoryBytes?: number;
}

export type ParseEtcdMetricsResult =
  | { ok: true; snapshot: EtcdMetricsSnapshot }
  | { ok: false; error: string };

type Counters = EtcdMetricsSnapshot['counters'];
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
}

export interface LoadRates {
  sentBytesPerSecond?: number;
  grpcRangesPerSecond?: number;
  mvccRangesPerSecond?: number;
  /** Put and Txn requests refused as invalid inside the window (a count, not a rate). */
  refusedWrites?: number;
}

const COUNTER_NAMES: Record<keyof Counters, string> = {
  leaderChanges: 'etcd_server_leader_changes_seen_total',
  heartbeatSendFailures: 'etcd_server_heartbeat_send_failures_total',
  slowApply: 'etcd_server_slow_apply_total',
  slowReadIndexes: 'etcd_server_slow_read_indexes_total',
  readIndexesFailed: 'etcd_server_read_indexes_failed_total',
  proposalsFailed: 'etcd_server_proposals_failed_total',
  proposalsCommitted: 'etcd_server_proposals_committed_total',
  proposalsApplied: 'etcd_server_proposals_applied_total',
};

const WINDOW_COUNTERS: readonly WindowCounter[] = [
  'leaderChanges',
  'heartbeatSendFailures',
  'slowApply',
  'slowReadIndexes',
  'readIndexesFailed',
  'proposalsFailed',
];

interface Sample {
  labels: Readonly<Record<string, string>>;
  value: number;
}
type Samples = ReadonlyMap<string, readonly Sample[]>;

/**
 * Reads the Prometheus text of an etcd member's /metrics. Text that is not Prometheus
 * exposition, or that holds no etcd_* metric, is `{ ok: false }`; a missing metric is not.
 */
export function parseEtcdMetrics(text: string, scrapedAtMs: number): ParseEtcdMetricsResult {
  const filter = createMetricsLineFilter();
  for (const line of text.split('\n')) filter.line(line);
  return filter.parse(scrapedAtMs);
}

/**
 * /metrics read as it arrives (HttpGet's `onBytes`, `onText`, or a line at a time): each line is
 * checked and only the ~100 of ~1,500 that parseEtcdMetrics reads are kept, so the page's text
 * (~144 KiB, a large object the old generation has to collect) never exists whole. Read as bytes,
 * the other lines are checked where they lie in the arriving buffers and never become strings (a
 * digest of 1,000 clusters decoded 860 MB of text it threw away). `parse` reads the kept lines.
 */
export interface MetricsLineFilter {
  line(line: string): void;
  /** The next piece of the page, cut anywhere: lines end at `\n`, a line cut in two is joined. */
  text(chunk: string): void;
  /** The same, as the bytes arrive (UTF-8): only kept lines, and lines trim() could change, are decoded. */
  bytes(chunk: Buffer): void;
  parse(scrapedAtMs: number): ParseEtcdMetricsResult;
}

/** What the filter knows after the lines so far. */
interface FilterState {
  kept: string[];
  /** Lines seen (the first bad one is named by its number). */
  count: number;
  bad: { index: number; line: string } | undefined;
  names: Set<string>;
  anyEtcd: boolean;
  blank: boolean;
  /** The family of the line before, and whether its lines are kept. */
  lastName: string;
  lastKept: boolean;
}

export function createMetricsLineFilter(): MetricsLineFilter {
  const st: FilterState = {
    kept: [],
    count: 0,
    bad: undefined,
    names: new Set(),
    anyEtcd: false,
    blank: true,
    lastName: '',
    lastKept: false,
  };
  let rest = '';
  let restBytes: Buffer | undefined;
  const line = (raw: string) => {
    st.count += 1;
    if (st.bad) return;
    const trimmed = edgeMayBeSpace(raw) ? raw.trim() : raw;
    checkText(st, trimmed, 0, trimmed.length, raw);
  };
  /** A line inside a chunk: checked in place unless trim() could change it. */
  const lineAt = (text: string, from: number, to: number) => {
    if (from === to || edgeMayBeSpace(text, from, to)) return line(text.slice(from, to));
    st.count += 1;
    if (!st.bad) checkText(st, text, from, to, undefined);
  };
  const lineInBytes = (buf: Buffer, from: number, to: number) => {
    if (from === to || edgeMayBeSpaceByte(buf[from] ?? 0) || edgeMayBeSpaceByte(buf[to - 1] ?? 0))
      return line(buf.toString('utf8', from, to));
    st.count += 1;
    if (!st.bad) checkBytes(st, buf, from, to);
  };
  return {
    line,
    text(chunk) {
      rest = eachLine(rest, chunk, line, lineAt);
    },
    bytes(chunk) {
      restBytes = eachLineInBytes(restBytes, chunk, lineInBytes);
    },
    parse(scrapedAtMs) {
      if (rest !== '') line(rest);
      if (restBytes?.length) lineInBytes(restBytes, 0, restBytes.length);
      rest = '';
      restBytes = undefined;
      if (st.blank) return { ok: false, error: 'the body is empty' };
      if (st.bad) return { ok: false, error: `line ${st.bad.index} reads ${clip(st.bad.line)}` };
      if (!st.anyEtcd)
        return { ok: false, error: `no etcd_* metric among its ${st.names.size} metric names` };
      const read = readKeptLines(st.kept);
      return read.ok ? snapshotOf(read.samples, scrapedAtMs) : read;
    },
  };
}

/** A new family's name: look it up once per run of its lines. */
function newFamily(st: FilterState, name: string): void {
  st.lastName = name;
  st.names.add(name);
  st.anyEtcd ||= name.startsWith('etcd_');
  st.lastKept = READ_NAMES.has(name);
}

/**
 * The line text[from, to), trimmed already. Called for every line of every scrape (~1,500 a
 * member, a few million in a digest): char codes instead of regexes, and a string only for a kept
 * line or a new family's name. The checks are SAMPLE_OR_COMMENT's, below. `raw`: the line as it
 * came, when trimming changed it; else it is text[from, to), cut only if kept.
 */
function checkText(st: FilterState, text: string, from: number, to: number, raw: string | undefined): void {
  if (from === to) return;
  st.blank = false;
  if (text.charCodeAt(from) === HASH) return;
  // Most lines continue the family of the line before (a histogram's buckets): its name, then
  // a label or a space, is already known valid, so the name is not scanned again.
  const after = from + st.lastName.length;
  if (
    st.lastName !== '' &&
    after < to &&
    isNameEnd(text.charCodeAt(after)) &&
    text.startsWith(st.lastName, from)
  ) {
    if (st.lastKept) keepText(st, raw ?? text.slice(from, to));
    return;
  }
  const end = metricNameEnd(text, from, to);
  if (end === from || end === to || !isNameEnd(text.charCodeAt(end))) {
    st.bad = { index: st.count, line: raw ?? text.slice(from, to) };
    return;
  }
  if (end - from !== st.lastName.length || !text.startsWith(st.lastName, from))
    newFamily(st, text.slice(from, end));
  if (st.lastKept) keepText(st, raw ?? text.slice(from, to));
}

/** Keeps a line of a kept family; of grpc_server_handled_total only the rows read. */
function keepText(st: FilterState, line: string): void {
  if (st.lastName !== GRPC_HANDLED || grpcLineKept(line)) st.kept.push(line);
}

/** keepText on the line's bytes: a grpc_server_handled_total row is decoded only when kept. */
function keepBytes(st: FilterState, buf: Buffer, from: number, to: number): void {
  if (st.lastName !== GRPC_HANDLED || grpcBytesKept(buf.subarray(from, to)))
    st.kept.push(buf.toString('utf8', from, to));
}

/** checkText on the bytes buf[from, to) of a line whose ends are printable ASCII (nothing to trim). */
function checkBytes(st: FilterState, buf: Buffer, from: number, to: number): void {
  st.blank = false;
  if (buf[from] === HASH) return;
  const name = st.lastName;
  const after = from + name.length;
  if (name.length > 0 && after < to && isNameEnd(buf[after] ?? 0) && bytesStartWith(buf, from, name)) {
    if (st.lastKept) keepBytes(st, buf, from, to);
    return;
  }
  const end = nameEndInBytes(buf, from, to);
  if (end === from || end === to || !isNameEnd(buf[end] ?? 0)) {
    st.bad = { index: st.count, line: buf.toString('utf8', from, to) };
    return;
  }
  // A metric name is ASCII: its bytes are its characters.
  if (end - from !== name.length || !bytesStartWith(buf, from, name))
    newFamily(st, buf.toString('latin1', from, end));
  if (st.lastKept) keepBytes(st, buf, from, to);
}

/** Whether buf holds `name` (ASCII) at `from`. */
function bytesStartWith(buf: Buffer, from: number, name: string): boolean {
  for (let i = 0; i < name.length; i++) if (buf[from + i] !== name.charCodeAt(i)) return false;
  return true;
}

/** metricNameEnd on bytes. */
function nameEndInBytes(buf: Buffer, from: number, to: number): number {
  let i = from;
  for (; i < to; i++) {
    const c = buf[i] ?? 0;
    const nameStart = (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || c === 58;
    if (!nameStart && (i === from || c < 48 || c > 57)) break;
  }
  return i;
}

/** A byte at a line's edge that trim() might remove, as edgeMayBeSpace judges a character. */
function edgeMayBeSpaceByte(b: number): boolean {
  return b <= SPACE || b > 126;
}

/** The complete lines of `rest + chunk` as ranges (the first joined); returns the unfinished line. */
function eachLineInBytes(
  rest: Buffer | undefined,
  chunk: Buffer,
  lineAt: (buf: Buffer, from: number, to: number) => void,
): Buffer | undefined {
  let start = 0;
  if (rest) {
    const nl = chunk.indexOf(NEWLINE);
    if (nl === -1) return Buffer.concat([rest, chunk]);
    const joined = Buffer.concat([rest, chunk.subarray(0, nl)]);
    lineAt(joined, 0, joined.length);
    start = nl + 1;
  }
  for (let nl = chunk.indexOf(NEWLINE, start); nl !== -1; nl = chunk.indexOf(NEWLINE, start)) {
    lineAt(chunk, start, nl);
    start = nl + 1;
  }
  // A copy: the rest of a line must not keep the whole chunk alive.
  return start < chunk.length ? Buffer.from(chunk.subarray(start)) : undefined;
}

/**
 * The complete lines of `rest + chunk`: the first (joined with `rest`) as a string, the others as
 * ranges of `chunk`. Returns the new unfinished line.
 */
function eachLine(
  rest: string,
  chunk: string,
  line: (text: string) => void,
  lineAt: (text: string, from: number, to: number) => void,
): string {
  let start = 0;
  if (rest !== '') {
    const nl = chunk.indexOf('\n');
    if (nl === -1) return rest + chunk;
    line(rest + chunk.slice(0, nl));
    start = nl + 1;
  }
  for (let nl = chunk.indexOf('\n', start); nl !== -1; nl = chunk.indexOf('\n', start)) {
    lineAt(chunk, start, nl);
    start = nl + 1;
  }
  return chunk.slice(start);
}

function snapshotOf(samples: Samples, scrapedAtMs: number): ParseEtcdMetricsResult {
  const counters = Object.fromEntries(
    Object.entries(COUNTER_NAMES).map(([key, name]) => [key, first(samples, name) ?? 0]),
  ) as Counters;
  const snapshot: EtcdMetricsSnapshot = {
    scrapedAtMs,
    walFsync: readHistogram(samples, 'etcd_disk_wal_fsync_duration_seconds', () => true),
    backendCommit: readHistogram(samples, 'etcd_disk_backend_commit_duration_seconds', () => true),
    peerRtt: histogramsBy(samples, 'etcd_network_peer_round_trip_time_seconds', 'To'),
    peerSentFailures: valuesBy(samples, 'etcd_network_peer_sent_failures_total', 'To'),
    peerReceivedFailures: valuesBy(samples, 'etcd_network_peer_received_failures_total', 'From'),
    counters,
    gauges: {
      hasLeader: first(samples, 'etcd_server_has_leader'),
      isLeader: first(samples, 'etcd_server_is_leader'),
      proposalsPending: first(samples, 'etcd_server_proposals_pending'),
      // etcd 3.3 exports only the etcd_debugging_ name; 3.4 exports both (KB §1.4).
      dbTotalSizeBytes:
        first(samples, 'etcd_mvcc_db_total_size_in_bytes') ??
        first(samples, 'etcd_debugging_mvcc_db_total_size_in_bytes'),
      dbInUseSizeBytes: first(samples, 'etcd_mvcc_db_total_size_in_use_in_bytes'),
      quotaBackendBytes: first(samples, 'etcd_server_quota_backend_bytes'),
      ...defined({ keysTotal: first(samples, 'etcd_debugging_mvcc_keys_total') }),
      processStartTimeSeconds: first(samples, 'process_start_time_seconds'),
      serverId: samples.get('etcd_server_id')?.find((s) => s.labels.server_id)?.labels.server_id,
      compactRevision: first(samples, 'etcd_debugging_mvcc_compact_revision'),
      currentRevision: first(samples, 'etcd_debugging_mvcc_current_revision'),
      lastCompactionSeconds: first(samples, 'etcd_debugging_mvcc_db_compaction_last'),
      compactionsSinceStart: first(samples, COMPACTIONS_COUNT),
    },
    load: loadOf(samples),
  };
  return { ok: true, snapshot };
}

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

// --- reading the text -----------------------------------------------------------------------

// parse-prometheus-text-format 1.1.1 folds a HISTOGRAM (or SUMMARY) family into one object keyed
// by `le` and drops every other label, so the per-peer `To` histograms collapse into one and their
// _sum/_count vanish. Without the TYPE line the same lines come back as plain samples with all
// their labels, which is all this module needs: so the parser is given no comment lines at all.
// A line is blank, a comment, or a metric name followed by labels or a space (Prometheus text
// format 0.0.4): SAMPLE_OR_COMMENT = /^(?:$|#|[a-zA-Z_:][a-zA-Z0-9_:]*[{ \t])/ on the trimmed line,
// checked by char code in createMetricsLineFilter.
const HASH = 35;
const OPEN_BRACE = 123;
const SPACE = 32;
const TAB = 9;
const NEWLINE = 10;

/** The end of the metric name ([a-zA-Z_:][a-zA-Z0-9_:]*) starting at `from`; `from` if none. */
function metricNameEnd(text: string, from: number, to: number): number {
  let i = from;
  for (; i < to; i++) {
    const c = text.charCodeAt(i);
    const nameStart = (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || c === 58;
    if (!nameStart && (i === from || c < 48 || c > 57)) break;
  }
  return i;
}

/** What may follow a metric name: its labels or the space before its value. */
function isNameEnd(c: number): boolean {
  return c === OPEN_BRACE || c === SPACE || c === TAB;
}

/** Whether trim() could change text[from, to): an ASCII control or space, or any non-ASCII, at either end. */
function edgeMayBeSpace(text: string, from = 0, to = text.length): boolean {
  if (from >= to) return false;
  const first = text.charCodeAt(from);
  const last = text.charCodeAt(to - 1);
  return first <= SPACE || first > 126 || last <= SPACE || last > 126;
}
// Go's strconv.ParseFloat forms that Prometheus writes: decimals, exponents, ±Inf, NaN.
const FLOAT = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?$/i;

const COMPACTIONS_COUNT = 'etcd_debugging_mvcc_db_compaction_total_duration_milliseconds_count';

/**
 * grpc_server_handled_total: go-grpc-prometheus pre-registers every method with every code, ~700
 * lines of an etcd 3.4 page. Only the Range rows and the InvalidArgument rows of Put and Txn are
 * kept (grpcLineKept), so the page's kept lines grow by ~20, not 700.
 */
const GRPC_HANDLED = 'grpc_server_handled_total';
const RANGE_LABEL = 'grpc_method="Range"';
const INVALID_LABEL = 'grpc_code="InvalidArgument"';
const WRITE_LABELS = ['grpc_method="Put"', 'grpc_method="Txn"'];
const RANGE_BYTES = Buffer.from(RANGE_LABEL);
const INVALID_BYTES = Buffer.from(INVALID_LABEL);
const WRITE_BYTES = WRITE_LABELS.map((l) => Buffer.from(l));

/** A grpc_server_handled_total line worth keeping (its text). */
function grpcLineKept(line: string): boolean {
  return (
    line.includes(RANGE_LABEL) || (line.includes(INVALID_LABEL) && WRITE_LABELS.some((l) => line.includes(l)))
  );
}

/** The same on the line's bytes, without decoding it. */
function grpcBytesKept(line: Buffer): boolean {
  return (
    line.includes(RANGE_BYTES) || (line.includes(INVALID_BYTES) && WRITE_BYTES.some((l) => line.includes(l)))
  );
}

/** The load reading of one scrape (see LoadReading). */
function loadOf(samples: Samples): LoadReading {
  const handled = samples.get(GRPC_HANDLED) ?? [];
  const sumOf = (match: (labels: Readonly<Record<string, string>>) => boolean) => {
    const rows = handled.filter((s) => match(s.labels) && Number.isFinite(s.value));
    return rows.length === 0 ? undefined : rows.reduce((n, s) => n + s.value, 0);
  };
  return defined({
    clientSentBytes: first(samples, 'etcd_network_client_grpc_sent_bytes_total'),
    grpcRanges: sumOf((l) => l.grpc_method === 'Range'),
    mvccRanges: first(samples, 'etcd_debugging_mvcc_range_total'),
    refusedWrites: sumOf(
      (l) => l.grpc_code === 'InvalidArgument' && (l.grpc_method === 'Put' || l.grpc_method === 'Txn'),
    ),
    watchStreams: first(samples, 'etcd_debugging_mvcc_watch_stream_total'),
    watchers: first(samples, 'etcd_debugging_mvcc_watcher_total'),
    slowWatchers: first(samples, 'etcd_debugging_mvcc_slow_watcher_total'),
    pendingEvents: first(samples, 'etcd_debugging_mvcc_pending_events_total'),
    defragInflight: first(samples, 'etcd_disk_defrag_inflight'),
    openFds: first(samples, 'process_open_fds'),
    maxFds: first(samples, 'process_max_fds'),
    residentMemoryBytes: first(samples, 'process_resident_memory_bytes'),
  });
}

const HISTOGRAMS = [
  'etcd_disk_wal_fsync_duration_seconds',
  'etcd_disk_backend_commit_duration_seconds',
  'etcd_network_peer_round_trip_time_seconds',
];
/**
 * Every name parseEtcdMetrics reads. An etcd 3.4 page is ~1,500 lines (~144 KiB) and we read about
 * 100 of them: parsing only those takes a diagnosis's /metrics cost from ~4 ms to well under 1 ms a
 * scrape (docs/BENCHMARKS.md), which is what a 200-cluster digest spends its CPU on.
 */
const READ_NAMES = new Set([
  ...Object.values(COUNTER_NAMES),
  ...HISTOGRAMS.flatMap((h) => [`${h}_bucket`, `${h}_sum`, `${h}_count`]),
  'etcd_network_peer_sent_failures_total',
  'etcd_network_peer_received_failures_total',
  'etcd_server_has_leader',
  'etcd_server_is_leader',
  'etcd_server_proposals_pending',
  'etcd_mvcc_db_total_size_in_bytes',
  'etcd_debugging_mvcc_db_total_size_in_bytes',
  'etcd_mvcc_db_total_size_in_use_in_bytes',
  'etcd_server_quota_backend_bytes',
  'etcd_debugging_mvcc_keys_total',
  'process_start_time_seconds',
  'etcd_server_id',
  'etcd_debugging_mvcc_compact_revision',
  'etcd_debugging_mvcc_current_revision',
  'etcd_debugging_mvcc_db_compaction_last',
  COMPACTIONS_COUNT,
  'etcd_network_client_grpc_sent_bytes_total',
  'etcd_debugging_mvcc_range_total',
  'etcd_debugging_mvcc_watch_stream_total',
  'etcd_debugging_mvcc_watcher_total',
  'etcd_debugging_mvcc_slow_watcher_total',
  'etcd_debugging_mvcc_pending_events_total',
  'etcd_disk_defrag_inflight',
  'process_open_fds',
  'process_max_fds',
  'process_resident_memory_bytes',
  GRPC_HANDLED,
]);

/** The entries whose value is a number (optional gauges are absent, not undefined). */
function defined(values: Record<string, number | undefined>): Record<string, number> {
  return Object.fromEntries(Object.entries(values).filter((e): e is [string, number] => e[1] !== undefined));
}

type ReadResult = { ok: true; samples: Samples } | { ok: false; error: string };

/**
 * The reference reading, kept to check the streaming one against (test/unit/probes): every line of
 * the page through parse-prometheus-text-format, comments left out (see above), then the same
 * snapshot. A page costs ~4 ms this way against well under 1 ms streamed and filtered.
 */
export function parseEtcdMetricsReference(text: string, scrapedAtMs: number): ParseEtcdMetricsResult {
  const lines = text.split('\n').filter((l) => !l.trim().startsWith('#'));
  const read = readWithLibrary(lines);
  return read.ok ? snapshotOf(read.samples, scrapedAtMs) : read;
}

/**
 * The kept lines (filtered and checked by createMetricsLineFilter) as samples by name, read
 * directly: the same samples parse-prometheus-text-format gives for them (readWithLibrary, the
 * reference), without its family objects. Its rules, kept: a line is trimmed; consecutive samples
 * of one name with the same labels are one sample (the last value wins); an invalid line is named
 * before any bad value.
 */
function readKeptLines(kept: string[]): ReadResult {
  const samples = new Map<string, Sample[]>();
  let badValue: { name: string; value: string } | undefined;
  let runName = '';
  let run: Sample[] = [];
  for (const raw of kept) {
    const line = raw.trim();
    const parsed = plainSampleLine(line) ?? parseSampleLine(line);
    if (!parsed) return { ok: false, error: `invalid line ${clip(line)}` };
    const value = parseFloatText(parsed.value);
    if (value === undefined) {
      badValue ??= { name: parsed.name, value: parsed.value };
      continue;
    }
    if (parsed.name !== runName) {
      runName = parsed.name;
      run = [];
    }
    const last = run.at(-1);
    if (last && sameLabels(last.labels, parsed.labels)) {
      last.value = value;
      continue;
    }
    const sample = { labels: parsed.labels, value };
    run.push(sample);
    const list = samples.get(parsed.name);
    if (list) list.push(sample);
    else samples.set(parsed.name, [sample]);
  }
  if (badValue) return { ok: false, error: `${badValue.name} has the value ${clip(badValue.value)}` };
  return { ok: true, samples };
}

function sameLabels(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => a[k] === b[k]);
}

/**
 * The lines etcd writes (`name value` or `name{a="x",b="y"} value`: no escape, no tab, single
 * spaces) read with indexOf and slices; anything else is left to parseSampleLine, which reads
 * these the same way a character at a time (test/unit/probes/etcd-metrics-filtered.test.ts).
 */
function plainSampleLine(
  line: string,
): { name: string; labels: Record<string, string>; value: string } | undefined {
  if (line.includes('\\') || line.includes('\t')) return undefined;
  const space = line.indexOf(' ');
  const brace = line.indexOf('{');
  const labels: Record<string, string> = {};
  let i: number;
  let name: string;
  if (brace === -1 || (space !== -1 && space < brace)) {
    if (space <= 0) return undefined;
    name = line.slice(0, space);
    i = space;
  } else {
    name = line.slice(0, brace);
    i = brace + 1;
    while (line[i] !== '}') {
      const eq = line.indexOf('="', i);
      const close = eq === -1 ? -1 : line.indexOf('"', eq + 2);
      if (close === -1) return undefined;
      const labelName = line.slice(i, eq);
      if (labelName === '' || /[ ,{}=]/.test(labelName)) return undefined;
      labels[labelName] = line.slice(eq + 2, close);
      i = close + 1;
      if (line[i] === ',') i += 1;
      else if (line[i] !== '}') return undefined;
    }
    i += 1;
  }
  if (line[i] !== ' ' || line[i + 1] === ' ' || i + 1 >= line.length) return undefined;
  const end = line.indexOf(' ', i + 1);
  return { name, labels, value: line.slice(i + 1, end === -1 ? undefined : end) };
}

/** parseSampleLine's states (parse-prometheus-text-format 1.1.1): those before LabelName are outside `{...}`. */
enum At {
  Name,
  StartOfLabelName,
  EndOfName,
  Value,
  EndOfLabels,
  Timestamp,
  LabelName,
  LabelValueQuote,
  LabelValueEquals,
  LabelValue,
  LabelValueSlash,
  NextLabel,
}

interface SampleParts {
  name: string;
  labelName: string;
  labelValue: string;
  value: string;
  labels: Record<string, string>;
}

/**
 * One sample line exactly as parse-prometheus-text-format 1.1.1's parseSampleLine reads it (its
 * state machine, ported), so the direct reading gives the reference's samples for any kept line:
 * undefined where it throws InvalidLineError; the timestamp is read past and ignored.
 */
function parseSampleLine(
  line: string,
): { name: string; labels: Record<string, string>; value: string } | undefined {
  const parts: SampleParts = { name: '', labelName: '', labelValue: '', value: '', labels: {} };
  let state: At | undefined = At.Name;
  for (const c of line) {
    state = state < At.LabelName ? outsideLabels(state, c, parts) : insideLabels(state, c, parts);
    if (state === undefined) return undefined;
  }
  return { name: parts.name, labels: parts.labels, value: parts.value };
}

function isBlank(c: string): boolean {
  return c === ' ' || c === '\t';
}

/** parseSampleLine's steps in the name, the value and the timestamp. */
function outsideLabels(state: At, c: string, p: SampleParts): At | undefined {
  switch (state) {
    case At.Name:
      if (c === '{') return At.StartOfLabelName;
      if (isBlank(c)) return At.EndOfName;
      p.name += c;
      return state;
    case At.EndOfName:
      if (isBlank(c)) return state;
      if (c === '{') return At.StartOfLabelName;
      p.value += c;
      return At.Value;
    case At.StartOfLabelName:
      if (isBlank(c)) return state;
      if (c === '}') return At.EndOfLabels;
      p.labelName += c;
      return At.LabelName;
    case At.EndOfLabels:
      if (isBlank(c)) return state;
      p.value += c;
      return At.Value;
    case At.Value:
      if (isBlank(c)) return At.Timestamp;
      p.value += c;
      return state;
    default:
      return state;
  }
}

/** parseSampleLine's steps inside `{...}`: undefined where it throws. */
function insideLabels(state: At, c: string, p: SampleParts): At | undefined {
  switch (state) {
    case At.LabelName:
      if (c === '=') return At.LabelValueQuote;
      if (c === '}') return At.EndOfLabels;
      if (isBlank(c)) return At.LabelValueEquals;
      p.labelName += c;
      return state;
    case At.LabelValueEquals:
      if (c === '=') return At.LabelValueQuote;
      return isBlank(c) ? state : undefined;
    case At.LabelValueQuote:
      if (c === '"') return At.LabelValue;
      return isBlank(c) ? state : undefined;
    case At.LabelValue:
      if (c === '\\') return At.LabelValueSlash;
      if (c !== '"') {
        p.labelValue += c;
        return state;
      }
      p.labels[p.labelName] = p.labelValue;
      p.labelName = '';
      p.labelValue = '';
      return At.NextLabel;
    case At.LabelValueSlash:
      p.labelValue += c === '\\' ? '\\' : c === 'n' ? '\n' : c === '"' ? '"' : `\\${c}`;
      return At.LabelValue;
    case At.NextLabel:
      if (c === ',') return At.LabelName;
      if (c === '}') return At.EndOfLabels;
      return isBlank(c) ? state : undefined;
    default:
      return state;
  }
}

/** The lines as samples by name, through parse-prometheus-text-format (the reference reading). */
function readWithLibrary(kept: string[]): ReadResult {
  let families: parsePrometheusTextFormat.MetricFamily[];
  try {
    // Only the lines read below, and no comments: no TYPE line folds a histogram (see above).
    families = parsePrometheusTextFormat(`${kept.join('\n')}\n`);
  } catch (err) {
    // The parser throws InvalidLineError('Encountered invalid line: <line>').
    const message = err instanceof Error ? err.message : String(err);
    return { ok: false, error: `invalid line ${clip(message.replace(/^Encountered invalid line: /, ''))}` };
  }
  const samples = new Map<string, Sample[]>();
  for (const family of families) {
    for (const metric of family.metrics) {
      const value = parseFloatText(metric.value);
      if (value === undefined) {
        return { ok: false, error: `${family.name} has the value ${clip(metric.value ?? '')}` };
      }
      const list = samples.get(family.name) ?? [];
      list.push({ labels: metric.labels ?? {}, value });
      samples.set(family.name, list);
    }
  }
  return { ok: true, samples };
}

function parseFloatText(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (/^\+?Inf$/i.test(text)) return Number.POSITIVE_INFINITY;
  if (/^-Inf$/i.test(text)) return Number.NEGATIVE_INFINITY;
  if (/^NaN$/i.test(text)) return Number.NaN;
  return FLOAT.test(text) ? Number(text) : undefined;
}

/** The first finite value of an unlabelled counter or gauge. */
function first(samples: Samples, name: string): number | undefined {
  return samples.get(name)?.find((s) => Number.isFinite(s.value))?.value;
}

function readHistogram(
  samples: Samples,
  name: string,
  match: (labels: Readonly<Record<string, string>>) => boolean,
): Histogram | undefined {
  const buckets = (samples.get(`${name}_bucket`) ?? [])
    .filter((s) => match(s.labels))
    .map((s) => ({ le: parseFloatText(s.labels.le) ?? Number.NaN, count: s.value }))
    .filter((b) => !Number.isNaN(b.le))
    .sort((a, b) => a.le - b.le);
  if (buckets.length === 0) return undefined;
  const sum = samples.get(`${name}_sum`)?.find((s) => match(s.labels))?.value ?? 0;
  const count =
    samples.get(`${name}_count`)?.find((s) => match(s.labels))?.value ?? buckets.at(-1)?.count ?? 0;
  return { buckets, sum, count };
}

function histogramsBy(samples: Samples, name: string, label: string): Record<string, Histogram> {
  const keys = new Set((samples.get(`${name}_bucket`) ?? []).flatMap((s) => s.labels[label] ?? []));
  const out: Record<string, Histogram> = {};
  for (const key of keys) {
    const h = readHistogram(samples, name, (labels) => labels[label] === key);
    if (h !== undefined) out[key] = h;
  }
  return out;
}

function valuesBy(samples: Samples, name: string, label: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of samples.get(name) ?? []) {
    const key = s.labels[label];
    if (key !== undefined) out[key] = (out[key] ?? 0) + s.value;
  }
  return out;
}

function clip(text: string): string {
  const oneLine = JSON.stringify(text);
  return oneLine.length > 120 ? `${oneLine.slice(0, 117)}...` : oneLine;
}
