import { analyzePaths, type OfflineReport } from './analyze.js';

/** What the MCP server's etcd_analyze tool needs (src/mcp/analyze-tool.ts `OfflineAnalysis`). */
export interface McpOfflineAnalysis {
  analyze(paths: string[], opts: { signal: AbortSignal }): Promise<OfflineReport>;
  roots?: readonly string[];
}

/**
 * The offline analysis for `etcd-doctor mcp` and `/mcp`, bounded to `roots` (config
 * `mcp.analyzeRoots`) when given. Over HTTP the caller is remote: give none, and there is no tool.
 */
export function mcpOfflineAnalysis(roots: readonly string[] | undefined): McpOfflineAnalysis {
  return {
    analyze: (paths, opts) => analyzePaths(paths, { signal: opts.signal }),
    ...(roots?.length ? { roots: [...roots] } : {}),
  };
}
