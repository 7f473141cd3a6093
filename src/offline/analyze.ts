import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { diagnose } from '../diagnosis/diagnose.js';
import { collectedRules, rules } from '../diagnosis/rules/index.js';
import type { DiagnosisReport } from '../contracts/report-json.js';
import { formatSpan } from '../diagnosis/support/logs.js';
import { buildReport } from '../report/diagnosis-report.js';
import type { TimelineEntry } from '../contracts/report-json.js';
import { type CollectionSummary, DEFAULT_READ_LIMITS, type ReadLimits } from './collection.js';
import { OfflineInputError } from '../errors.js';
import { buildOfflineEvidence } from './offline-evidence.js';
import { type Collected, createOfflineSink, type OfflineSink, streamName } from './offline-sink.js';
import {
  looksLikeClusterInfoDump,
  readClusterInfoDumpStream,
  readCollection,
  sniffCollection,
} from './readers/index.js';
import { ByteBudget } from './readers/limits.js';
import { splitLines } from './readers/lines.js';
import { gunzipCounted } from './readers/read-entries.js';
import { readHead } from './readers/sniff.js';
import { hasBboltMagic } from '../etcd/snapshot/bbolt-file.js';
import { buildTimeline } from './timeline.js';
import { boundedMessage } from '../untrusted-text.js';

export type { TimelineEntry } from '../contracts/report-json.js';

/** `etcd-doctor analyze --json`: the `diagnose --json` shape plus what was read and when things happened. */
export interface OfflineReport extends DiagnosisReport {
  source: CollectionSummary[];
  timeline: TimelineEntry[];
}

export interface AnalyzeOptions {
  signal?: AbortSignal;
  explain?: boolean;
  /** Read for the path `-`. */
  stdin?: NodeJS.ReadableStream;
  limits?: ReadLimits;
}

/**
 * Runs the rules on collected evidence: a must-gather (directory, .tar.gz, .tar), a `kubectl
 * cluster-info dump` (directory or its stdout), or log files (`-` for stdin), several at once.
 * Throws OfflineInputError for input it cannot analyse, with the answer to give.
 */
export async function analyzePaths(
  paths: readonly string[],
  opts: AnalyzeOptions = {},
): Promise<OfflineReport> {
  if (paths.length === 0)
    throw new OfflineInputError(
      'give something to analyze: a log file, - for stdin, a must-gather (directory or .tar.gz) or a kubectl cluster-info dump',
    );
  const started = Date.now();
  const limits = opts.limits ?? DEFAULT_READ_LIMITS;
  const sink = createOfflineSink({
    maxLineChars: limits.maxLineBytes,
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  const source: CollectionSummary[] = [];
  const members = memberNames(paths);
  for (const path of paths) source.push(await readPath(path, sink, opts, limits, members.get(path)));
  const collected = sink.collected();
  assertAnalysable(collected, paths);
  const evidence = buildOfflineEvidence(collected, labelOf(paths));
  const diagnosis = diagnose(evidence, [...rules, ...collectedRules], {
    now: evidence.collectedAt,
    offline: true,
  });
  const report = buildReport(evidence, diagnosis, {
    kind: 'analyze',
    durationMs: Date.now() - started,
    ...(opts.explain ? { explain: true } : {}),
  });
  const notEvaluated = notStoodIn(report);
  if (notEvaluated) report.notEvaluated = notEvaluated;
  return { ...report, ...logsVerdict(report, collected), source, timeline: buildTimeline(evidence) };
}

/**
 * A live rule whose cause a log rule found is not "not evaluated": the logs stood in for it
 * (leader churn counted from `elected leader` lines is leader-churn, evaluated).
 */
function notStoodIn(report: DiagnosisReport): DiagnosisReport['notEvaluated'] {
  const found = new Set<string>(report.findings.map((f) => f.cause));
  const causeOf = new Map<string, string>(rules.map((r) => [r.name, r.cause]));
  return report.notEvaluated?.filter((n) => !found.has(causeOf.get(n.rule) ?? n.rule));
}

/** etcd log lines that make a quiet log an answer: a few minutes of a healthy member's log at least. */
export const QUIET_LOG_LINES = 50;

/**
 * Logs without a finding above info are an answer when there are enough of them: healthy as far
 * as the logs show, with the live checks named as not run. Error lines no rule explains (an info
 * finding) keep it from being called healthy, and a handful of lines is not enough (status stays
 * `unknown`): the sentence says how many lines were read.
 */
function logsVerdict(
  report: DiagnosisReport,
  c: Collected,
): Partial<Pick<DiagnosisReport, 'status' | 'verdict'>> {
  if (report.status !== 'unknown' || report.findings.some((f) => f.severity !== 'info')) return {};
  const etcd = c.logs.filter((l) => l.component === 'etcd').map((l) => l.writer);
  const lines = etcd.reduce((n, w) => n + w.etcdLines, 0);
  const first = etcd
    .map((w) => w.firstLineAt)
    .filter((t): t is string => !!t)
    .sort()[0];
  const last = etcd
    .map((w) => w.lastLineAt)
    .filter((t): t is string => !!t)
    .sort()
    .at(-1);
  const span = formatSpan(first, last);
  const read = `${lines} etcd log line${lines === 1 ? '' : 's'}${span ? ` (${span})` : ''}`;
  const live = 'live checks not run: etcd-doctor diagnose <cluster> reads the members themselves';
  if (report.findings.length > 0)
    return {
      verdict: `No known cause in ${read}, but etcd logged errors that etcd-doctor cannot explain (below); ${live}`,
    };
  if (lines >= QUIET_LOG_LINES)
    return {
      status: 'healthy',
      verdict: `Healthy as far as the logs show: nothing wrong in ${read}; ${live}`,
    };
  return {
    verdict: `Too little to judge: nothing wrong in ${read}, under the ${QUIET_LOG_LINES} lines a verdict needs; give a longer log, or run etcd-doctor diagnose <cluster> live`,
  };
}

async function readPath(
  path: string,
  sink: OfflineSink,
  opts: AnalyzeOptions,
  limits: ReadLimits,
  member?: string,
): Promise<CollectionSummary> {
  if (path === '-') {
    if (!opts.stdin)
      throw new OfflineInputError('- means stdin, and there is no stdin here: give a file path');
    return readStdin(opts.stdin, sink, opts, limits);
  }
  const info = await stat(path).catch((err: NodeJS.ErrnoException) => {
    throw new OfflineInputError(
      err.code === 'ENOENT'
        ? `${path}: no such file or directory`
        : `${path}: cannot be read (${err.code ?? err.message})`,
      { cause: err },
    );
  });
  if (info.isFile() && hasBboltMagic(await readHead(path, 64)))
    throw new OfflineInputError(
      `${path} is an etcd snapshot (bbolt): give it alone, as etcd-doctor analyze ${path}`,
    );
  const kind = await sniffCollection(path);
  if (kind) return readCollection(path, sink, { ...(opts.signal ? { signal: opts.signal } : {}), limits });
  if (info.isDirectory())
    throw new OfflineInputError(
      `${path} is a directory but neither a must-gather nor a kubectl cluster-info dump: give the must-gather's root (or its .tar.gz), the cluster-info dump's --output-directory, or the log files themselves`,
    );
  if (info.size === 0)
    throw new OfflineInputError(
      `${path} is empty: give the etcd log itself (journalctl -u etcd, crictl logs <container>, kubectl logs -n kube-system etcd-<node>)`,
    );
  if (info.size > limits.maxTotalBytes)
    throw new OfflineInputError(
      `${path} is ${info.size} bytes, over the ${limits.maxTotalBytes}-byte limit: cut it (tail -n 200000)`,
    );
  const gzipped = await isGzip(path);
  const stream = createReadStream(path);
  // A plain .log.gz is a gzip bomb like any other: its decompressed bytes count against the cap too.
  const input = gzipped ? gunzipCounted(path, stream, new ByteBudget(path, limits)) : stream;
  return readLog(path, input, sink, limits, info.size, member);
}

/** stdin is a pasted log, or `kubectl cluster-info dump` piped in: its first chunk says which. */
async function readStdin(
  stdin: NodeJS.ReadableStream,
  sink: OfflineSink,
  opts: AnalyzeOptions,
  limits: ReadLimits,
): Promise<CollectionSummary> {
  const chunks = (stdin as AsyncIterable<Buffer | string>)[Symbol.asyncIterator]();
  const first = await chunks.next();
  const head = first.done ? Buffer.alloc(0) : Buffer.from(first.value);
  const all = (async function* () {
    yield head;
    for (let next = await chunks.next(); !next.done; next = await chunks.next())
      yield Buffer.from(next.value);
  })();
  // `zcat`-less pipes: `cat etcd.log.gz | etcd-doctor analyze -` is read as the log inside.
  if (head[0] === 0x1f && head[1] === 0x8b)
    return readLog('-', Readable.from(all).pipe(createGunzip()), sink, limits);
  if (looksLikeClusterInfoDump(head))
    return readClusterInfoDumpStream(all, sink, {
      source: '-',
      limits,
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
  return readLog('-', all, sink, limits);
}

async function readLog(
  path: string,
  input: AsyncIterable<Buffer> | NodeJS.ReadableStream,
  sink: OfflineSink,
  limits: ReadLimits,
  size?: number,
  member?: string,
): Promise<CollectionSummary> {
  const before = sink.collected().logs.length;
  await sink.log(
    { source: path, previous: false, ...(member ? { member } : {}) },
    splitLines(input as AsyncIterable<Buffer>, limits.maxLineBytes),
  );
  const writers = sink
    .collected()
    .logs.slice(before)
    .map((l) => l.writer);
  const bytes = writers.reduce((n, w) => n + w.bytes, 0);
  if (writers.every((w) => w.lines === 0))
    throw new OfflineInputError(
      `${path === '-' ? 'stdin' : path} is empty: give the etcd log itself (journalctl -u etcd, crictl logs <container>, kubectl logs -n kube-system etcd-<node>)`,
    );
  return { kind: 'log', path, entries: writers.length, bytes: size ?? bytes, skipped: 0 };
}

async function isGzip(path: string): Promise<boolean> {
  const file = await open(path);
  try {
    const { buffer, bytesRead } = await file.read(Buffer.alloc(2), 0, 2, 0);
    return bytesRead === 2 && buffer[0] === 0x1f && buffer[1] === 0x8b;
  } finally {
    await file.close();
  }
}

/** What the reader looks for, named when it found none of it. */
const TRIED =
  "tried etcd's zap JSON and console, capnslog, Go's log, raft's and klog lines, anywhere after a journald, syslog, docker, CRI, kubectl, container-service or Procfile prefix";
const QUOTED_LINES = 3;

/** Nothing etcd or Kubernetes said: a wrong file, answered with what was tried and the first lines read. */
function assertAnalysable(c: Collected, paths: readonly string[]): void {
  const appLines = c.logs.reduce((n, l) => n + l.writer.etcdLines + l.writer.klogLines, 0);
  // The kernel's OOM killer stopping etcd (or an unnamed container) is etcd's evidence on its own.
  const kernel = c.logs.some((l) => (l.writer.signals.oomKilled?.count ?? 0) > 0);
  if (appLines > 0 || kernel || c.objects > 0 || Object.keys(c.etcdInfo).length > 0) return;
  const what = paths.length === 1 ? '' : ` in ${paths.join(', ')}`;
  const unread = c.logs.flatMap((l) => l.writer.unread).slice(0, QUOTED_LINES);
  const quoted = unread.map((u) => JSON.stringify(boundedMessage(u, 100))).join(', ');
  throw new OfflineInputError(
    `no etcd log lines found${what}: is this the etcd container's log? (${TRIED}${quoted ? `; first lines: ${quoted}` : ''})`,
  );
}

/**
 * Files given together that a file name alone would merge (`m1/etcd.log`, `m2/etcd.log`) are
 * named after their folder instead: one member per file.
 */
function memberNames(paths: readonly string[]): Map<string, string> {
  const byName = new Map<string, string[]>();
  for (const path of paths) {
    if (path === '-') continue;
    const name = streamName({ source: path, previous: false });
    byName.set(name, [...(byName.get(name) ?? []), path]);
  }
  const names = new Map<string, string>();
  for (const same of byName.values())
    if (same.length > 1) for (const path of same) names.set(path, basename(dirname(resolve(path))) || path);
  return names;
}

function labelOf(paths: readonly string[]): string {
  const names = paths.map((p) => (p === '-' ? 'stdin' : basename(p.replace(/\/+$/, '')) || p));
  return names.length <= 3
    ? names.join(', ')
    : `${names.slice(0, 2).join(', ')} and ${names.length - 2} more`;
}
