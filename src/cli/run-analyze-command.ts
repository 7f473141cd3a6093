import { terminalSafe } from '../format.js';
import { renderText } from '../report/render-text.js';
import type { OfflineReport } from '../offline/analyze.js';
import { analyzeIsolated } from '../offline/analyze-isolated.js';
import {
  hashMismatch,
  renderSnapshotText,
  type SnapshotReport,
} from '../offline/snapshot/analyze-snapshot.js';

export interface AnalyzeCommandOptions {
  json?: boolean;
  explain?: boolean;
}

export interface AnalyzeCommandIo {
  stdout: (text: string) => void;
  stdin?: NodeJS.ReadableStream;
  signal?: AbortSignal;
}

/**
 * `etcd-doctor analyze <path...> [--json] [--explain]`: prints the report (text, or the JSON
 * contract) and returns it for the exit code. Bad input throws OfflineInputError, which the CLI
 * says in one line with exit code 2. A snapshot file (given alone) gets the snapshot report; one
 * whose SHA-256 trailer does not match is printed, then refused in one line. The files are read in
 * a process of its own with the memory and time limits of a file shared in chat (analyze-isolated.ts).
 */
export async function runAnalyzeCommand(
  paths: readonly string[],
  options: AnalyzeCommandOptions,
  io: AnalyzeCommandIo,
): Promise<OfflineReport | SnapshotReport> {
  const report = await analyzeIsolated(paths, {
    ...(options.explain ? { explain: true } : {}),
    ...(io.stdin && paths.includes('-') ? { stdin: io.stdin } : {}),
    ...(io.signal ? { signal: io.signal } : {}),
  });
  if (report.kind !== 'snapshot') {
    io.stdout(options.json ? JSON.stringify(report, null, 2) : renderText(report));
    return report;
  }
  const [path = ''] = paths;
  // Keys come from the file: a terminal must not act on what they hold.
  io.stdout(options.json ? JSON.stringify(report, null, 2) : terminalSafe(renderSnapshotText(report, path)));
  if (report.snapshot.hashOk === false) throw hashMismatch(path);
  return report;
}
