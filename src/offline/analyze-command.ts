import { stat } from 'node:fs/promises';
import { renderText } from '../report/render-text.js';
import { type AnalyzeOptions, analyzePaths, type OfflineReport } from './analyze.js';
import { OfflineInputError } from './collection.js';
import { readHead } from './readers/sniff.js';
import {
  analyzeSnapshot,
  hashMismatch,
  looksLikeSnapshot,
  renderSnapshotText,
  type SnapshotReport,
} from './snapshot/analyze-snapshot.js';

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
 * whose SHA-256 trailer does not match is printed, then refused in one line.
 */
export async function runAnalyzeCommand(
  paths: readonly string[],
  options: AnalyzeCommandOptions,
  io: AnalyzeCommandIo,
): Promise<OfflineReport | SnapshotReport> {
  const snapshots = await snapshotPaths(paths);
  if (snapshots.length > 0) return runSnapshot(paths, snapshots, options, io);
  const opts: AnalyzeOptions = {
    explain: options.explain ?? false,
    ...(io.stdin ? { stdin: io.stdin } : {}),
    ...(io.signal ? { signal: io.signal } : {}),
  };
  const report = await analyzePaths(paths, opts);
  io.stdout(options.json ? JSON.stringify(report, null, 2) : renderText(report));
  return report;
}

async function runSnapshot(
  paths: readonly string[],
  snapshots: string[],
  options: AnalyzeCommandOptions,
  io: AnalyzeCommandIo,
): Promise<SnapshotReport> {
  const [path] = snapshots;
  if (paths.length > 1 || path === undefined)
    throw new OfflineInputError(
      `${snapshots.join(', ')} ${snapshots.length > 1 ? 'are snapshots' : 'is a snapshot'}: analyze one snapshot at a time, on its own`,
    );
  const report = await analyzeSnapshot(path);
  io.stdout(options.json ? JSON.stringify(report, null, 2) : renderSnapshotText(report, path));
  if (report.snapshot.hashOk === false) throw hashMismatch(path);
  return report;
}

async function snapshotPaths(paths: readonly string[]): Promise<string[]> {
  const found: string[] = [];
  for (const path of paths) {
    if (path === '-') continue;
    const info = await stat(path).catch(() => undefined);
    if (info?.isFile() && looksLikeSnapshot(path, await readHead(path, 64))) found.push(path);
  }
  return found;
}
