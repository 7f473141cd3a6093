import { stat } from 'node:fs/promises';
import { type AnalyzeOptions, analyzePaths, type OfflineReport } from './analyze.js';
import { OfflineInputError } from '../errors.js';
import { readHead } from './readers/sniff.js';
import { analyzeSnapshot, looksLikeSnapshot, type SnapshotReport } from './snapshot/analyze-snapshot.js';

/**
 * What `analyze` answers for any input: a snapshot file (bbolt, given alone) gets the snapshot and
 * space report; anything else the rules' report. The analysis process of the CLI, of files shared
 * in chat and of MCP's etcd_analyze (analyze-child.ts) comes through here. Throws OfflineInputError (SnapshotError for a
 * damaged or truncated snapshot) with the answer to give.
 */
export async function analyzeInputs(
  paths: readonly string[],
  opts: AnalyzeOptions = {},
): Promise<OfflineReport | SnapshotReport> {
  const snapshots = await snapshotPaths(paths);
  const [path] = snapshots;
  if (path === undefined) return analyzePaths(paths, opts);
  if (paths.length > 1)
    throw new OfflineInputError(
      `${snapshots.join(', ')} ${snapshots.length > 1 ? 'are snapshots' : 'is a snapshot'}: analyze one snapshot at a time, on its own`,
    );
  return analyzeSnapshot(path);
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
