import type { OfflineReport } from './analyze.js';
import { analyzeIsolated } from './analyze-isolated.js';
import type { SnapshotReport } from './snapshot/analyze-snapshot.js';

/** What the MCP server's etcd_analyze tool needs (src/mcp/analyze-tool.ts `OfflineAnalysis`). */
export interface McpOfflineAnalysis {
  analyze(paths: string[], opts: { signal: AbortSignal }): Promise<OfflineReport | SnapshotReport>;
  roots?: readonly string[];
}

/**
 * The offline analysis for `etcd-doctor mcp` and `/mcp`, bounded to `roots` (config
 * `mcp.analyzeRoots`) when given. Over HTTP the caller is remote: give none, and there is no tool.
 * The files are read in a process of its own with the limits of files shared in chat: `/mcp` runs
 * in a worker (deploy/ components/mcp), beside its remediations.
 */
export function mcpOfflineAnalysis(
  roots: readonly string[] | undefined,
  /** `offline.analysisMemoryMb`. */
  memoryMb?: number,
): McpOfflineAnalysis {
  return {
    analyze: (paths, { signal }) => analyzeIsolated(paths, { signal, ...(memoryMb ? { memoryMb } : {}) }),
    ...(roots?.length ? { roots: [...roots] } : {}),
  };
}
