import { basename } from 'node:path';
import type { ReadSnapshotOptions, SnapshotCheckSummary } from '../etcd/snapshot/read-snapshot.js';
import { SnapshotError } from '../etcd/snapshot/snapshot-error.js';
import { OfflineInputError } from '../errors.js';
import { formatBytes } from '../format.js';
import type { OfflineReport } from './analyze.js';
import type { ReadLimits } from './collection.js';
import { type IsolatedEnd, type ProcessLimits, runIsolated } from './isolated-process.js';
import type { IsolatedAnswer } from './isolated-request.js';
import type { SnapshotReport } from './snapshot/analyze-snapshot.js';

/** The heap one analysis of shared files may use (V8 old generation); its process may hold NODE_OWN_MB more. */
export const DEFAULT_ANALYSIS_MEMORY_MB = 192;
/**
 * How long one analysis may run, in chat (inside its job's 120 s, queue/job-worker.ts, which also
 * downloads the files and answers), in `etcd-doctor analyze` and in MCP's etcd_analyze alike. A
 * must-gather of 200 MiB reads in ~23 s on the shared 2-core VM (docs/BENCHMARKS.md).
 */
export const DEFAULT_ANALYSIS_TIMEOUT_MS = 100_000;
/** File names in an answer: cut, so that an answer stays one short line whatever the file is called. */
const NAME_CHARS = 80;

export interface IsolatedAnalysisOptions {
  signal?: AbortSignal;
  limits?: ReadLimits;
  /** The V8 heap of the analysis process (offline.analysisMemoryMb). */
  memoryMb?: number;
  timeoutMs?: number;
  /** Every rule's verdict (`--explain`). */
  explain?: boolean;
  /** Read for the path `-`. */
  stdin?: NodeJS.ReadableStream;
}

/**
 * Runs `analyzeInputs` (the rules, or a snapshot's breakdown) on untrusted files in a process of its
 * own (isolated-process.ts), with a memory limit that counts everything it holds, a time limit and
 * no credentials in its environment: a file that expands past them (a YAML document of millions of
 * nodes, a crafted snapshot) ends that process, not the worker and the remediations it runs. A
 * process that died is an answer (OfflineInputError, never retried: the same file would kill the
 * next one too).
 */
export async function analyzeIsolated(
  paths: readonly string[],
  opts: IsolatedAnalysisOptions = {},
): Promise<OfflineReport | SnapshotReport> {
  const limits = limitsOf(opts);
  const end = await runIsolated(
    {
      op: 'analyze',
      paths: [...paths],
      ...(opts.limits ? { limits: opts.limits } : {}),
      ...(opts.explain ? { explain: true } : {}),
    },
    {
      ...limits,
      ...(opts.signal ? { signal: opts.signal } : {}),
      ...(opts.stdin ? { stdin: opts.stdin } : {}),
    },
  );
  return answerOf<OfflineReport | SnapshotReport>(end, {
    what: names(paths),
    limits,
    instead: SHARE_ETCD_PARTS,
  });
}

/**
 * verifySnapshot (read-snapshot.ts) on a backup file, in a process of its own as files shared in
 * chat are: a backup volume is written by other hands than etcd-doctor's. Throws SnapshotError for a
 * file it cannot read, as verifySnapshot does, and OfflineInputError when the process ends.
 */
export async function verifySnapshotIsolated(
  path: string,
  opts: { pages: NonNullable<ReadSnapshotOptions['pages']>; timeoutMs: number; signal?: AbortSignal },
): Promise<SnapshotCheckSummary> {
  const limits = { memoryMb: DEFAULT_ANALYSIS_MEMORY_MB, timeoutMs: opts.timeoutMs };
  const end = await runIsolated(
    { op: 'verify-snapshot', path, pages: opts.pages },
    { ...limits, ...(opts.signal ? { signal: opts.signal } : {}) },
  );
  return answerOf<SnapshotCheckSummary>(end, { what: names([path]), limits });
}

function limitsOf(opts: IsolatedAnalysisOptions): ProcessLimits {
  return {
    memoryMb: opts.memoryMb ?? DEFAULT_ANALYSIS_MEMORY_MB,
    timeoutMs: opts.timeoutMs ?? DEFAULT_ANALYSIS_TIMEOUT_MS,
  };
}

function names(paths: readonly string[]): string {
  return paths
    .map((p) => basename(p))
    .map((n) => (n.length > NAME_CHARS ? `${n.slice(0, NAME_CHARS)}…` : n))
    .join(', ');
}

/** What an answer about a stopped run names: the files, the limits, and what to share instead (chat, CLI, MCP). */
interface Stopped {
  what: string;
  limits: ProcessLimits;
  instead?: string;
}

/** Instead of a collection over the memory limit: the parts the rules read. */
const SHARE_ETCD_PARTS =
  'share the etcd parts only (namespaces/openshift-etcd, etcd_info/ and the nodes of a must-gather) or the etcd logs themselves';

/** The run's value; else the error it threw, or how its process ended, as the answer to give. */
function answerOf<T>(end: IsolatedEnd, s: Stopped): T {
  if (end.kind === 'answer') {
    if (end.answer.ok) return end.answer.value as T;
    throw thrown(end.answer, s);
  }
  const instead = s.instead ? `: ${s.instead}` : '';
  if (end.kind === 'out-of-memory') throw overMemory(s);
  if (end.kind === 'timed-out')
    throw new OfflineInputError(
      `the analysis of ${s.what} took longer than the ${Math.round(s.limits.timeoutMs / 1000)} s limit for one analysis and was stopped${instead}`,
    );
  throw new OfflineInputError(`the analysis of ${s.what} stopped (${end.detail})${instead}`);
}

function overMemory(s: Stopped): OfflineInputError {
  return new OfflineInputError(
    `${s.what} needs more than the ${formatBytes(s.limits.memoryMb * 1024 ** 2, 'binary')} memory limit for one analysis${s.instead ? `: ${s.instead}` : ''}`,
  );
}

function thrown(answer: Extract<IsolatedAnswer, { ok: false }>, s: Stopped): Error {
  if (answer.outOfMemory) return overMemory(s);
  if (answer.name === 'SnapshotError') return new SnapshotError(answer.message);
  return answer.input ? new OfflineInputError(answer.message) : new Error(answer.message);
}
