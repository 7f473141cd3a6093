import { isEtcdDoctorError } from '../errors.js';
import type { IsolatedAnswer, IsolatedRequest } from './isolated-request.js';

/**
 * The body of one isolated analysis (isolated-process.ts): a process of its own, started per
 * request with a memory limit that counts everything it holds and no environment. It takes one
 * request over its IPC channel, answers it, and exits; a parent that goes away ends it too.
 */
async function run(request: IsolatedRequest): Promise<unknown> {
  // Each loads what it runs: a backup check needs the snapshot reader only, not the rules.
  if (request.op === 'verify-snapshot') {
    const { verifySnapshot } = await import('../etcd/snapshot/read-snapshot.js');
    return verifySnapshot(request.path, { pages: request.pages });
  }
  const { analyzeInputs } = await import('./analyze-input.js');
  return analyzeInputs(request.paths, {
    // `-` is the parent's stdin, piped here.
    ...(request.paths.includes('-') ? { stdin: process.stdin } : {}),
    ...(request.limits ? { limits: request.limits } : {}),
    ...(request.explain ? { explain: true } : {}),
  });
}

/** Node refuses an allocation past the limit with a RangeError ("Array buffer allocation failed"). */
const ALLOCATION_FAILED = /allocation failed|out of memory|Cannot allocate memory/i;

function failure(err: unknown): IsolatedAnswer {
  const message = err instanceof Error ? err.message : String(err);
  return {
    ok: false,
    name: err instanceof Error ? err.name : 'Error',
    message,
    input: isEtcdDoctorError(err),
    outOfMemory: err instanceof RangeError && ALLOCATION_FAILED.test(message.slice(0, 200)),
  };
}

function answer(value: IsolatedAnswer): void {
  process.send?.(value, undefined, {}, () => process.exit(0));
}

process.on('disconnect', () => process.exit(70));
process.once('message', (request: IsolatedRequest) => {
  run(request).then(
    (value) => answer({ ok: true, value }),
    (err: unknown) => answer(failure(err)),
  );
});
