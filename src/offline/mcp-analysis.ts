import type { OfflineReport } from './analyze.js';
import { analyzeInputs } from './analyze-input.js';
import type { SnapshotReport } from './snapshot/analyze-snapshot.js';

/** What the MCP server's etcd_analyze tool needs (src/mcp/analyze-tool.ts `OfflineAnalysis`). */
export interface McpOfflineAnalysis {
  analyze(paths: string[], opts: { signal: AbortSignal }): Promise<OfflineReport | SnapshotReport>;
  roots?: readonly string[];
}

/**
 * The offline analysis for `etcd-doctor mcp` and `/mcp`, bounded to `roots` (config
 * `mcp.analyzeRoots`) when given. Over HTTP the caller is remote: give none, and there is no tool.
 */
export function mcpOfflineAnalysis(roots: readonly string[] | undefined): McpOfflineAnalysis {
  return {
    analyze: (paths, opts) => analyzeInputs(paths, { signal: opts.signal }),
    ...(roots?.length ? { roots: [...roots] } : {}),
  };
}
