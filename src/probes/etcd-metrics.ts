import {
  type Histogram,
  histogramDelta,
  histogramQuantile,
  type QuantileSummary,
  summarizeLatency,
} from '../etcd/histogram.js';

import {
  bytesAt,
  bytesStartWith,
  clip,
  eachLine,
  eachLineInBytes,
  edgeMayBeSpace,
  edgeMayBeSpaceByte,
  HASH,
  isNameEnd,
  metricNameEnd,
  nameEndInBytes,
  parseFloatText,
  readKeptLines,
  type Samples,
} from './prometheus-text.js';
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
  /**
   * etcd 3.6+ feature gates (`--feature-gates`): etcd_server_feature_enabled{name,stage}, 1 enabled,
   * one series per gate etcd knows including AllAlpha and AllBeta (server/etcdserver/server.go
   * addFeatureGateMetrics at v3.6.0; stage ALPHA, BETA, "" for GA, DEPRECATED). Absent before 3.6.
   */
  featureGates?: FeatureGate[];
}

export interface FeatureGate {
  name: string;
  /** featuregate prerelease: `ALPHA`, `BETA`, `DEPRECATED`, or `` for GA. */
  stage: string;
  enabled: boolean;
}

/** The feature gates a member reports, by name; undefined when it exports none (before 3.6). */
export function featureGatesOf(samples: Samples): FeatureGate[] | undefined {
  const rows = samples.get(FEATURE_ENABLED);
  if (!rows?.length) return undefined;
  return rows
    .filter((r) => r.labels.name)
    .map((r) => ({ name: r.labels.name ?? '', stage: r.labels.stage ?? '', enabled: r.value === 1 }))
    .sort((a, b) => a.name.localeCompare(b.name));
}
const FEATURE_ENABLED = 'etcd_server_feature_enabled';

/** What a member serves its clients and what it holds, from one scrape (ETCD34/35 metrics.go files). */
export interface LoadReading {
  /** etcd_network_client_grpc_sent_bytes_total: bytes sent to gRPC clients (counter). */
  clientSentBytes?: number;
  /** grpc_server_handled_total{grpc_method="Range"}, every code added up (counter). */
  grpcRanges?: number;
  /**
   * Ranges, Txn's included: etcd_mvcc_range_total (3.5 and later: the only name from 3.6), else
   * etcd_debugging_mvcc_range_total (3.4 and 3.5).
   */
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

export type Counters = EtcdMetricsSnapshot['counters'];

export const COUNTER_NAMES: Record<keyof Counters, string> = {
  leaderChanges: 'etcd_server_leader_changes_seen_total',
  heartbeatSendFailures: 'etcd_server_heartbeat_send_failures_total',
  slowApply: 'etcd_server_slow_apply_total',
  slowReadIndexes: 'etcd_server_slow_read_indexes_total',
  readIndexesFailed: 'etcd_server_read_indexes_failed_total',
  proposalsFailed: 'etcd_server_proposals_failed_total',
  proposalsCommitted: 'etcd_server_proposals_committed_total',
  proposalsApplied: 'etcd_server_proposals_applied_total',
};

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
      return read.ok ? etcdSnapshotOf(read.samples, scrapedAtMs) : read;
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
  if (st.lastName !== GRPC_HANDLED || grpcBytesKept(buf, from, to))
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

export function etcdSnapshotOf(samples: Samples, scrapedAtMs: number): ParseEtcdMetricsResult {
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
  const featureGates = featureGatesOf(samples);
  if (featureGates) snapshot.featureGates = featureGates;
  return { ok: true, snapshot };
}

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

const CODE_AT = Buffer.from(`${GRPC_HANDLED}{grpc_code="`);
const METHOD_AT = Buffer.from('",grpc_method="');
const RANGE_VALUE = Buffer.from('Range"');
const INVALID_VALUE = Buffer.from('InvalidArgument');
const WRITE_VALUES = [Buffer.from('Put"'), Buffer.from('Txn"')];

/**
 * The same on the line's bytes, without decoding it or making a Buffer: client_golang writes the
 * labels sorted (grpc_code, grpc_method, …), so the code and the method sit at known places. A
 * line of another shape is searched as a whole (subarray, no copy).
 */
function grpcBytesKept(buf: Buffer, from: number, to: number): boolean {
  if (!bytesAt(buf, from, CODE_AT)) {
    const line = buf.subarray(from, to);
    return (
      line.includes(RANGE_BYTES) ||
      (line.includes(INVALID_BYTES) && WRITE_BYTES.some((l) => line.includes(l)))
    );
  }
  const codeFrom = from + CODE_AT.length;
  let codeTo = codeFrom;
  while (codeTo < to && buf[codeTo] !== 34 /* " */) codeTo++;
  const methodFrom = codeTo + METHOD_AT.length;
  if (!bytesAt(buf, codeTo, METHOD_AT)) return false;
  if (bytesAt(buf, methodFrom, RANGE_VALUE)) return true;
  return (
    codeTo - codeFrom === INVALID_VALUE.length &&
    bytesAt(buf, codeFrom, INVALID_VALUE) &&
    WRITE_VALUES.some((v) => bytesAt(buf, methodFrom, v))
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
    mvccRanges: first(samples, 'etcd_mvcc_range_total') ?? first(samples, 'etcd_debugging_mvcc_range_total'),
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
export const READ_NAMES: ReadonlySet<string> = new Set([
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
  'etcd_mvcc_range_total',
  'etcd_debugging_mvcc_range_total',
  'etcd_debugging_mvcc_watch_stream_total',
  'etcd_debugging_mvcc_watcher_total',
  'etcd_debugging_mvcc_slow_watcher_total',
  'etcd_debugging_mvcc_pending_events_total',
  'etcd_disk_defrag_inflight',
  'process_open_fds',
  'process_max_fds',
  'process_resident_memory_bytes',
  FEATURE_ENABLED,
  GRPC_HANDLED,
]);

/** The entries whose value is a number (optional gauges are absent, not undefined). */
export function defined(values: Record<string, number | undefined>): Record<string, number> {
  return Object.fromEntries(Object.entries(values).filter((e): e is [string, number] => e[1] !== undefined));
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
