import { emptySignals, type LogSignals, lineTimestamp, scanLine } from '../etcd/scan-logs.js';
import { hasOwnTime, isEtcdProgram, type LogWrapper, lineKind, unwrapLine } from './log-line.js';
import { emptyIdentity, type MemberIdentity, readIdentity } from './member-identity.js';

/** One writer's lines in a stream: a whole file, or one prefix of an interleaved one. */
export interface WriterLog {
  /** The prefix it was written under, or the stream's own name. */
  name: string;
  container: string | undefined;
  host: string | undefined;
  lines: number;
  /** Characters read, newlines included (bytes for ASCII logs). */
  bytes: number;
  /** Lines shaped like etcd's (zap, capnslog, raft) and like klog's (the Kubernetes components). */
  etcdLines: number;
  klogLines: number;
  signals: LogSignals;
  identity: MemberIdentity;
  firstLineAt: string | undefined;
  lastLineAt: string | undefined;
  wrappers: Set<LogWrapper>;
}

interface WriterState extends WriterLog {
  pending: string | undefined;
  pendingAt: string | undefined;
  /** The last line came from a program journald named etcd (`host etcd[pid]: …`). */
  etcdProgram: boolean;
  lastText: string | undefined;
  lastAt: string | undefined;
}

/** Writers one stream may be split into: a cluster's members and a few pods, with room to spare. */
const MAX_WRITERS = 32;

export interface StreamScanOptions {
  /** The writer name for lines without a prefix (the file name, the pod). */
  name: string;
  /** One line, joined partials included, is cut to this many characters. */
  maxLineChars: number;
  signal?: AbortSignal;
}

/**
 * Scans a log stream line by line and keeps only counts, first and last times and a few
 * examples per writer: memory stays bounded however long the stream is. Lines prefixed with a
 * pod or member name (`kubectl logs --prefix`, `etcd-1 | `) are split per writer.
 */
export async function scanLogStream(
  lines: AsyncIterable<string>,
  opts: StreamScanOptions,
): Promise<WriterLog[]> {
  const writers = new Map<string, WriterState>();
  let count = 0;
  for await (const raw of lines) {
    if (++count % 4096 === 0) opts.signal?.throwIfAborted();
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.length > 0) consume(line, writers, opts);
  }
  for (const w of writers.values()) if (w.pending !== undefined) record(w, w.pending, w.pendingAt);
  return [...writers.values()].map(finish);
}

function consume(raw: string, writers: Map<string, WriterState>, opts: StreamScanOptions): void {
  const u = unwrapLine(raw);
  // A prefix seen for the first time past the cap is not a new writer (text that only looks like one).
  const prefixed = u.source !== undefined && (writers.has(u.source) || writers.size < MAX_WRITERS);
  const name = prefixed && u.source !== undefined ? u.source : opts.name;
  let w = writers.get(name);
  if (!w) {
    w = newWriter(name);
    writers.set(name, w);
  }
  w.container ??= u.container;
  w.host ??= u.host;
  for (const wrapper of u.wrappers) w.wrappers.add(wrapper);
  w.etcdProgram = isEtcdProgram(u.program);
  w.bytes += raw.length + 1;
  if (u.partial) {
    w.pending = ((w.pending ?? '') + u.text).slice(0, opts.maxLineChars);
    w.pendingAt ??= u.at;
    return;
  }
  const text = w.pending !== undefined ? (w.pending + u.text).slice(0, opts.maxLineChars) : u.text;
  const at = w.pendingAt ?? u.at;
  w.pending = undefined;
  w.pendingAt = undefined;
  record(w, text, at);
}

function record(w: WriterState, text: string, at: string | undefined): void {
  if (text.length === 0) return;
  w.lines++;
  const shape = lineKind(text);
  const kind = shape === 'other' && w.etcdProgram ? 'etcd' : shape;
  if (kind === 'etcd') w.etcdLines++;
  else if (kind === 'klog') w.klogLines++;
  readIdentity(text, w.identity);
  // A line without a time of its own (klog has no year) is dated by its wrapper, as kubectl does.
  scanLine(at && !hasOwnTime(text) ? `${at} ${text}` : text, w.signals);
  if (w.firstLineAt === undefined && w.lines <= 20) w.firstLineAt = at ?? lineTimestamp(text);
  w.lastText = text;
  w.lastAt = at;
}

function newWriter(name: string): WriterState {
  return {
    name,
    container: undefined,
    host: undefined,
    lines: 0,
    bytes: 0,
    etcdLines: 0,
    klogLines: 0,
    signals: emptySignals(),
    identity: emptyIdentity(),
    firstLineAt: undefined,
    lastLineAt: undefined,
    wrappers: new Set(),
    pending: undefined,
    pendingAt: undefined,
    etcdProgram: false,
    lastText: undefined,
    lastAt: undefined,
  };
}

/** The stream's last time: its last line's, else the newest signal's. */
function finish(w: WriterState): WriterLog {
  const lastSignal = Object.values(w.signals)
    .flatMap((v) => (Array.isArray(v) ? v : [v]))
    .map((v: { lastSeenAt?: string }) => v.lastSeenAt)
    .filter((t): t is string => typeof t === 'string')
    .sort()
    .at(-1);
  const last = w.lastAt ?? (w.lastText ? lineTimestamp(w.lastText) : undefined);
  const { pending: _p, pendingAt: _pa, etcdProgram: _ep, lastText: _lt, lastAt: _la, ...log } = w;
  return { ...log, lastLineAt: [last, lastSignal].filter(Boolean).sort().at(-1) };
}
