import { parentPort, workerData } from 'node:worker_threads';
import { isEtcdDoctorError } from '../errors.js';
import { analyzeInputs } from './analyze-input.js';
import type { ReadLimits } from './collection.js';

/**
 * The body of one isolated analysis (analyze-isolated.ts): reads the paths (or a snapshot) in this worker thread,
 * whose heap has its own limit, and posts the report or the answer for input it cannot analyse.
 */
const { paths, limits } = workerData as { paths: string[]; limits?: ReadLimits };
analyzeInputs(paths, limits ? { limits } : {}).then(
  (report) => parentPort?.postMessage({ ok: true, report }),
  (err: unknown) =>
    parentPort?.postMessage({
      ok: false,
      input: isEtcdDoctorError(err),
      message: err instanceof Error ? err.message : String(err),
    }),
);
