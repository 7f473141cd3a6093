import { type ChildProcess, spawn } from 'node:child_process';
import { analyzeChildEntry } from './analyze-child-entry.js';
import type { IsolatedAnswer, IsolatedRequest } from './isolated-request.js';

export interface ProcessLimits {
  /** V8's heap (old generation) in MiB; everything the process holds is limited to this plus NODE_OWN_MB. */
  memoryMb: number;
  /** Wall clock, from the start of the process to its answer. */
  timeoutMs: number;
}

export interface RunIsolatedOptions extends ProcessLimits {
  signal?: AbortSignal;
  /** Piped to the process (the path `-`). */
  stdin?: NodeJS.ReadableStream;
}

/** How one isolated run ended. */
export type IsolatedEnd =
  | { kind: 'answer'; answer: IsolatedAnswer }
  | { kind: 'out-of-memory' }
  | { kind: 'timed-out' }
  | { kind: 'died'; detail: string };

/*
 * The memory limit is RLIMIT_DATA, set by the shell that execs Node (`ulimit -d`): since Linux 4.7
 * it counts every private writable mapping as it is made writable (malloc, Buffers, V8's heap as it
 * commits it, thread stacks) and refuses the allocation past it at once: a Buffer is a RangeError,
 * V8's heap a fatal out-of-memory, and the process ends. Measured on this code (issue 38): RSS
 * polled from /proc overshoots by what the process allocates between two polls and stops when the
 * parent's event loop does; RLIMIT_AS (`ulimit -v`) counts V8's and WebAssembly's reservations, which
 * are no memory (Node starts at ~760 MB of address space, 33 GB with tsx's loader), and V8 cannot
 * even start under a limit near what it uses.
 */
/** What Node and the analysis code commit before it reads a byte: 88 MiB measured from dist/cli/. */
export const NODE_OWN_MB = 128;
/** stderr looked at for the cause of a death (V8's "JavaScript heap out of memory"), at most this much at once. */
const STDERR_TAIL_CHARS = 4096;
/** What V8 and Node print when an allocation fails past the limit. */
const OUT_OF_MEMORY = /out of memory|allocation failed|bad_alloc|Cannot allocate memory/i;
/**
 * The shell (itself: `echo` is a builtin) asks to be the kernel's first choice when the pod or host
 * runs out of memory (oom_score_adj 1000; raising it needs no privilege), sets `ulimit -d <KiB>`, then
 * execs Node with the arguments that follow: both hold for Node's whole life.
 */
const WITH_DATA_LIMIT =
  '{ echo 1000 > /proc/self/oom_score_adj; } 2>/dev/null; ulimit -d "$1" && shift && exec "$@"';

function start(entry: string, opts: RunIsolatedOptions): ChildProcess {
  const dataKib = (opts.memoryMb + NODE_OWN_MB) * 1024;
  const node = [process.execPath, `--max-old-space-size=${opts.memoryMb}`, entry];
  return spawn('/bin/sh', ['-c', WITH_DATA_LIMIT, 'sh', String(dataKib), ...node], {
    // Nothing of this process's environment: no Slack, Redis, MCP or ticket secret, no kubeconfig.
    env: {},
    stdio: [opts.stdin ? 'pipe' : 'ignore', 'ignore', 'pipe', 'ipc'],
    serialization: 'advanced',
  });
}

/**
 * Runs one request in a process of its own (analyze-child.ts) under `opts`' memory and time
 * limits: whatever the input does, it ends that process only. Resolves with how it ended; rejects
 * only with the signal's reason, or when the process cannot be started.
 */
export async function runIsolated(request: IsolatedRequest, opts: RunIsolatedOptions): Promise<IsolatedEnd> {
  const entry = await analyzeChildEntry();
  opts.signal?.throwIfAborted();
  const child = start(entry, opts);
  const outOfMemory = watchStderr(child);
  if (opts.stdin && child.stdin) {
    // The process may end before it reads all of it: a broken pipe is no error of ours.
    child.stdin.on('error', () => undefined);
    opts.stdin.pipe(child.stdin);
  }
  return new Promise<IsolatedEnd>((resolve, reject) => {
    let timedOut = false;
    let settled = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, opts.timeoutMs);
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', abort);
      if (opts.stdin && child.stdin) opts.stdin.unpipe(child.stdin);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      fn();
    };
    const abort = () => settle(() => reject(opts.signal?.reason));
    opts.signal?.addEventListener('abort', abort, { once: true });
    child.on('error', (err) => settle(() => reject(err)));
    child.on('message', (answer: IsolatedAnswer) => settle(() => resolve({ kind: 'answer', answer })));
    // 'close', not 'exit': stderr has been read to its end.
    child.on('close', (code, signal) =>
      settle(() =>
        resolve(ended(timedOut, outOfMemory(), signal ? `killed by ${signal}` : `exit code ${code}`)),
      ),
    );
    // A process that died before it read the request ends in 'close' all the same.
    child.send(request, () => undefined);
  });
}

/** Whether the process said it ran out of memory on stderr (read as it comes, its tail kept). */
function watchStderr(child: ChildProcess): () => boolean {
  let tail = '';
  let outOfMemory = false;
  child.stderr?.on('data', (chunk: Buffer) => {
    tail = (tail + chunk.toString('utf8')).slice(-STDERR_TAIL_CHARS);
    outOfMemory ||= OUT_OF_MEMORY.test(tail);
  });
  return () => outOfMemory;
}

function ended(timedOut: boolean, outOfMemory: boolean, how: string): IsolatedEnd {
  if (timedOut) return { kind: 'timed-out' };
  if (outOfMemory) return { kind: 'out-of-memory' };
  return { kind: 'died', detail: how };
}
