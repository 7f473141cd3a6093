import { renderText } from '../report/render-text.js';
import { type AnalyzeOptions, analyzePaths, type OfflineReport } from './analyze.js';

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
 * says in one line with exit code 2.
 */
export async function runAnalyzeCommand(
  paths: readonly string[],
  options: AnalyzeCommandOptions,
  io: AnalyzeCommandIo,
): Promise<OfflineReport> {
  const opts: AnalyzeOptions = {
    explain: options.explain ?? false,
    ...(io.stdin ? { stdin: io.stdin } : {}),
    ...(io.signal ? { signal: io.signal } : {}),
  };
  const report = await analyzePaths(paths, opts);
  io.stdout(options.json ? JSON.stringify(report, null, 2) : renderText(report));
  return report;
}
