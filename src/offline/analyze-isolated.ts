import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { OfflineReport } from './analyze.js';
import type { SnapshotReport } from './snapshot/analyze-snapshot.js';
import type { ReadLimits } from './collection.js';
import { OfflineInputError } from '../errors.js';
import { formatBytes } from '../format.js';

/** The heap one analysis of shared files may use (V8 old generation), apart from the worker's own. */
export const DEFAULT_ANALYSIS_MEMORY_MB = 192;

export interface IsolatedAnalysisOptions {
  signal?: AbortSignal;
  limits?: ReadLimits;
  /** `maxOldGenerationSizeMb` of the analysis thread. */
  memoryMb?: number;
}

type ThreadAnswer =
  | { ok: true; report: OfflineReport | SnapshotReport }
  | { ok: false; input: boolean; message: string };

const TSX_LOADER = 'tsx/esm/api';

/** The thread's entry: tsc's and esbuild's output hold analyze-thread.js beside this file; the sources run it through tsx. */
function threadEntry(): { entry: URL | string; eval: boolean } {
  const js = new URL('./analyze-thread.js', import.meta.url);
  if (existsSync(fileURLToPath(js))) return { entry: js, eval: false };
  const ts = new URL('./analyze-thread.ts', import.meta.url).href;
  // Only the sources (tests) get here: a worker takes no --import, so the thread registers tsx's
  // loader (a dev dependency) itself, then imports the entry. The built code never reaches it.
  const code = `import(${JSON.stringify(TSX_LOADER)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(ts)}); })`;
  return { entry: code, eval: true };
}

/**
 * Runs `analyzeInputs` (the rules, or a snapshot's breakdown) on untrusted files in a worker thread with its own heap limit: a file that
 * expands past it (a YAML document of millions of nodes, a log of millions of streams) ends that
 * thread, not the worker and the remediations it runs. A thread that died is an answer
 * (OfflineInputError, never retried: the same file would kill the next one too).
 */
export function analyzeIsolated(
  paths: readonly string[],
  opts: IsolatedAnalysisOptions = {},
): Promise<OfflineReport | SnapshotReport> {
  const memoryMb = opts.memoryMb ?? DEFAULT_ANALYSIS_MEMORY_MB;
  const { entry, eval: isCode } = threadEntry();
  const thread = new Worker(entry, {
    eval: isCode,
    workerData: { paths: [...paths], ...(opts.limits ? { limits: opts.limits } : {}) },
    resourceLimits: { maxOldGenerationSizeMb: memoryMb },
    stdout: true,
    stderr: true,
  });
  return new Promise<OfflineReport | SnapshotReport>((resolve, reject) => {
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      opts.signal?.removeEventListener('abort', abort);
      fn();
      void thread.terminate();
    };
    const abort = () => settle(() => reject(opts.signal?.reason));
    opts.signal?.addEventListener('abort', abort, { once: true });
    if (opts.signal?.aborted) abort();
    thread.on('message', (answer: ThreadAnswer) =>
      settle(() =>
        answer.ok
          ? resolve(answer.report)
          : reject(answer.input ? new OfflineInputError(answer.message) : new Error(answer.message)),
      ),
    );
    thread.on('error', (err: Error & { code?: string }) => settle(() => reject(died(paths, memoryMb, err))));
    thread.on('exit', (code) =>
      settle(() => reject(died(paths, memoryMb, new Error(`the analysis thread exited with code ${code}`)))),
    );
  });
}

function died(paths: readonly string[], memoryMb: number, err: Error & { code?: string }): OfflineInputError {
  const what = paths.map((p) => p.split('/').pop()).join(', ');
  if (err.code === 'ERR_WORKER_OUT_OF_MEMORY')
    return new OfflineInputError(
      `${what} needs more than the ${formatBytes(memoryMb * 1024 ** 2, 'binary')} memory limit for one analysis: ` +
        'share the etcd parts only (namespaces/openshift-etcd, etcd_info/ and the nodes of a must-gather) or the etcd logs themselves',
      { cause: err },
    );
  return new OfflineInputError(
    `the analysis of ${what} stopped (${err.message}): share the etcd logs themselves`,
    {
      cause: err,
    },
  );
}
