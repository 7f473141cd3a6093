import { findCapnslogPackage, isEtcdMessage } from '../etcd/find-capnslog-package.js';
import { BOLT_PAGES_DAMAGED } from '../etcd/scan-faults.js';
import { emptySignals, type LogSignals, lineTimestamp, scanLine } from '../etcd/scan-logs.js';
import {
  type FoundLine,
  findEtcdLine,
  findProgram,
  isEtcdProgram,
  repeatedMessage,
} from '../etcd/find-line.js';
import { hasOwnTime, type LineKind, type LogWrapper, lineKind, unwrapLine } from './log-line.js';
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
  /** The first lines no shape of etcd's or klog's was found in (at most 3, each cut to 100 characters). */
  unread: string[];
}

interface WriterState extends WriterLog {
  pending: string | undefined;
  pendingAt: string | undefined;
  /** The last line came from a program journald named etcd (`host etcd[pid]: …`). */
  etcdProgram: boolean;
  lastText: string | undefined;
  lastAt: string | undefined;
  /** After a Go crash line: whether its trace was counted as etcd's line yet. */
  trace: 'none' | 'crash' | 'counted';
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
 * A line as read, before it is known whether the next one goes on with it: a web console's copy
 * that puts the date on one line and the message on the next, a terminal that cut a long line in
 * two, mail that re-wrapped the log at 70 columns (issue 37 item 2).
 */
interface Logical {
  text: string;
  at: string | undefined;
  source: string | undefined;
  container: string | undefined;
  host: string | undefined;
  program: string | undefined;
  wrappers: LogWrapper[];
  /** Characters of the last physical line joined: how the next one is joined to it. */
  lastPhysical: number;
  joined: number;
  /** The shape found on the line as read, while no other line was joined to it. */
  found: FoundLine | undefined;
  /** A shape of etcd's (or a program named etcd) starts it: a line after it may go on with it. */
  etcd: boolean;
  /** The text before a head glued to it: the tail of a line whose head was lost, never a line of its own. */
  tail?: boolean;
}

interface StreamState {
  writers: Map<string, WriterState>;
  pending: Logical | undefined;
  opts: StreamScanOptions;
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
  const state: StreamState = { writers: new Map(), pending: undefined, opts };
  let count = 0;
  for await (const raw of lines) {
    if (++count % 4096 === 0) opts.signal?.throwIfAborted();
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.length > 0) consume(line, state);
  }
  flush(state);
  for (const w of state.writers.values()) if (w.pending !== undefined) record(w, w.pending, w.pendingAt);
  return [...state.writers.values()].map(finish);
}

function writerFor(state: StreamState, source: string | undefined): WriterState {
  const { writers, opts } = state;
  // A prefix seen for the first time past the cap is not a new writer (text that only looks like one).
  const prefixed = source !== undefined && (writers.has(source) || writers.size < MAX_WRITERS);
  const name = prefixed && source !== undefined ? source : opts.name;
  let w = writers.get(name);
  if (!w) {
    w = newWriter(name);
    writers.set(name, w);
  }
  return w;
}

function consume(raw: string, state: StreamState): void {
  const u = unwrapLine(raw);
  const held = state.writers.get(u.source ?? state.opts.name);
  if (held?.pending !== undefined && !u.partial) {
    // The last piece of a line CRI or Docker split: the whole line goes on from here.
    u.text = (held.pending + u.text).slice(0, state.opts.maxLineChars);
    const at = held.pendingAt ?? u.at;
    if (at) u.at = at;
    held.pending = undefined;
    held.pendingAt = undefined;
  }
  if (u.partial) {
    const w = writerFor(state, u.source);
    noteWrappers(w, u.wrappers, u.container, u.host);
    w.bytes += raw.length + 1;
    w.pending = ((w.pending ?? '') + u.text).slice(0, state.opts.maxLineChars);
    w.pendingAt ??= u.at;
    return;
  }
  const peeled = u.wrappers.length > 0;
  const found = !peeled && lineKind(u.text) === 'other' ? findEtcdLine(u.text) : undefined;
  const pending = state.pending;
  if (pending && !peeled && isContinuation(u.text, found, pending)) {
    join(state, pending, u.text, raw.length + 1);
    return;
  }
  flush(state);
  const etcd = peeled
    ? isEtcdProgram(u.program) || lineKind(u.text) !== 'other'
    : found !== undefined || lineKind(u.text) !== 'other';
  state.pending = {
    text: u.text,
    at: u.at,
    source: u.source ?? found?.source,
    container: u.container,
    host: u.host,
    program: u.program,
    wrappers: u.wrappers,
    lastPhysical: raw.length,
    joined: 0,
    found,
    etcd,
  };
  writerFor(state, state.pending.source).bytes += raw.length + 1;
  if (found?.glued) splitAtHeads(state, 0);
}

/** Lines joined into one at most, and a line's text shorter than this is a mail client's soft wrap. */
const MAX_JOINED = 16;
const SOFT_WRAP_COLUMNS = 80;
// What starts a line of its own: nothing, an indented or bracketed line (a goroutine trace, a JSON
// document), Go's crash output, a logger's level word (`WARNING:`), a date, a separator.
const STARTS_OWN_LINE =
  /^(?:\s|--|[{[]|panic: |fatal error: |goroutine \d|runtime stack:|created by |\[signal |[A-Z]{3,10}: |\d{4}[-/]\d\d[-/]\d\d)/;
// A capnslog head, or a zap JSON entry's, inside joined text.
const HEAD =
  /\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{1,9} (?:\[[\w.-]{1,64}:\d{1,6}\] )?\\?[DINWEC] \\?\| |\{"level":"/g;

/**
 * A line that goes on with the one before it: nothing was peeled from it, it has no shape of its
 * own (or one glued to the text before it, as re-wrapped mail has), it does not start a line of its
 * own, and the line before it is etcd's, or the two together make an etcd head (a date alone on
 * its line, its message on the next).
 */
function isContinuation(text: string, found: FoundLine | undefined, pending: Logical): boolean {
  if (found && !found.glued) return false;
  if (!found && (lineKind(text) !== 'other' || STARTS_OWN_LINE.test(text))) return false;
  if (pending.joined >= MAX_JOINED) return false;
  if (pending.etcd) return true;
  const junction = pending.text.slice(-48) + joiner(pending) + text.slice(0, 48);
  HEAD.lastIndex = 0;
  return HEAD.test(junction);
}

/** A terminal cuts a long line anywhere (joined as is), mail wraps at a space it took (given back). */
function joiner(pending: Logical): string {
  return pending.lastPhysical > SOFT_WRAP_COLUMNS ? '' : ' ';
}

function join(state: StreamState, pending: Logical, text: string, bytes: number): void {
  const before = pending.text.length;
  pending.text = (pending.text + joiner(pending) + text).slice(0, state.opts.maxLineChars);
  pending.lastPhysical = text.length;
  pending.joined++;
  pending.found = undefined;
  writerFor(state, pending.source).bytes += bytes;
  splitAtHeads(state, Math.max(1, before - 48));
}

/** Each etcd head inside the pending text after its start begins a line of its own: what is before it is recorded. */
function splitAtHeads(state: StreamState, from: number): void {
  const pending = state.pending;
  if (!pending || pending.text.length < 30) return;
  HEAD.lastIndex = Math.max(1, from);
  for (let i = 0; i < MAX_JOINED * 4; i++) {
    const m = HEAD.exec(pending.text);
    if (!m) return;
    // Only a head glued to the text before it was joined into it; after a space it is text a line quotes.
    if (m.index === 0 || /\s/.test(pending.text.charAt(m.index - 1))) continue;
    const rest = pending.text.slice(m.index);
    pending.text = pending.text.slice(0, m.index);
    pending.found = undefined;
    pending.tail = true;
    flush(state);
    state.pending = {
      ...pending,
      text: rest,
      at: undefined,
      found: undefined,
      etcd: true,
      tail: false,
      joined: 0,
      wrappers: [],
    };
    HEAD.lastIndex = 1;
  }
}

/** Records the pending line: its shape found, any prefix of a collector taken off, rsyslog's repeats counted. */
function flush(state: StreamState): void {
  const p = state.pending;
  state.pending = undefined;
  if (!p || p.text.length === 0) return;
  const w = writerFor(state, p.source);
  noteWrappers(w, p.wrappers, p.container, p.host);
  let text = p.text;
  let times = 1;
  const repeated = repeatedMessage(text);
  if (repeated) {
    text = repeated.text;
    times = Math.min(repeated.times, MAX_REPEATS);
  }
  let kind = lineKind(text);
  let at = p.at;
  let program = p.program;
  if (kind === 'other') {
    const found = p.found && !repeated ? p.found : findEtcdLine(text);
    if (found) {
      text = found.text;
      at ??= found.at;
      kind = found.shape === 'klog' ? 'klog' : 'etcd';
    } else if (program === undefined) {
      const named = findProgram(text);
      if (named && isEtcdProgram(named.program)) {
        program = named.program;
        text = named.text;
      } else {
        // `etcdmain: …` reads as a program named etcdmain: its package tag says it is etcd's.
        const packaged = findCapnslogPackage(text);
        if (packaged !== undefined) {
          text = packaged;
          kind = 'etcd';
        } else if (!named && !p.tail && isEtcdMessage(text)) kind = 'etcd';
      }
    }
  }
  w.etcdProgram = isEtcdProgram(program);
  for (let i = 0; i < times; i++) record(w, text, at, kind);
}

/** rsyslog's `message repeated N times` is N lines; past this many it says no more. */
const MAX_REPEATS = 1000;

function noteWrappers(w: WriterState, wrappers: LogWrapper[], container?: string, host?: string): void {
  w.container ??= container;
  w.host ??= host;
  for (const wrapper of wrappers) w.wrappers.add(wrapper);
}

function record(w: WriterState, text: string, at: string | undefined, found?: LineKind): void {
  if (text.length === 0) return;
  w.lines++;
  const shape = found && found !== 'other' ? found : lineKind(text);
  const kind = shape === 'other' && w.etcdProgram ? 'etcd' : shape;
  if (kind === 'etcd') w.etcdLines++;
  else if (kind === 'klog') w.klogLines++;
  else if (isEtcdTrace(w, text)) w.etcdLines++;
  else if (w.unread.length < MAX_UNREAD) w.unread.push(text.slice(0, UNREAD_CHARS));
  readIdentity(text, w.identity);
  // A line without a time of its own (klog has no year) is dated by its wrapper, as kubectl does.
  scanLine(at && !hasOwnTime(text) ? `${at} ${text}` : text, w.signals);
  if (w.firstLineAt === undefined && w.lines <= 20) w.firstLineAt = at ?? lineTimestamp(text);
  w.lastText = text;
  w.lastAt = at;
}

// Go's runtime writes a crash without a logger: `panic: …` or `fatal error: …`, then the goroutine
// trace. It is etcd's when its message or a frame names etcd's module (go.etcd.io/etcd since 3.5,
// github.com/coreos/etcd before; protobuf's `github_com.coreos.etcd…` type names).
const GO_CRASH = /^(?:panic|fatal error): /;
const ETCD_MODULE =
  /\b(?:go\.etcd\.io\/etcd|github\.com\/coreos\/etcd|github_com\.coreos\.etcd|go_etcd_io\.etcd)\b/;

/** A crash and its trace are one event: etcd's line once, at the first line that names etcd's module. */
function isEtcdTrace(w: WriterState, text: string): boolean {
  if (GO_CRASH.test(text)) w.trace = 'crash';
  // bbolt's panic on a damaged db file names no module: bbolt is etcd-io's storage library, and in
  // an etcd log its page check at open is the backend's (scan-faults.ts BOLT_PAGES_DAMAGED).
  if (w.trace !== 'crash' || !(ETCD_MODULE.test(text) || BOLT_PAGES_DAMAGED.test(text))) return false;
  w.trace = 'counted';
  return true;
}

/** The first lines no shape was found in, quoted when nothing in the stream was etcd's. */
const MAX_UNREAD = 3;
const UNREAD_CHARS = 100;

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
    unread: [],
    pending: undefined,
    pendingAt: undefined,
    etcdProgram: false,
    trace: 'none',
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
  const { pending: _p, pendingAt: _pa, etcdProgram: _ep, lastText: _lt, lastAt: _la, trace: _t, ...log } = w;
  return { ...log, lastLineAt: [last, lastSignal].filter(Boolean).sort().at(-1) };
}
