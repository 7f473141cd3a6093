import { readFile } from 'node:fs/promises';
import type { Readable, Writable } from 'node:stream';
import { loadConfigFor, requireEnv } from '../config/load-config.js';
import { createDoctor } from '../doctor.js';
import { doctorFor } from '../history/doctor-for.js';
import { createLogger } from '../logger.js';
import { mcpOfflineAnalysis } from '../offline/mcp-analysis.js';
import type { OfflineAnalysis } from '../mcp/analyze-tool.js';
import { createRedisAuditReader } from '../mcp/audit-tool.js';
import { serveMcpStdio } from '../mcp/serve-stdio.js';
import { redisPlaceFromEnv } from '../config/redis-target.js';

export interface McpCommandOptions {
  config?: string;
  queuePrefix: string;
}

export interface McpCommandIo {
  env: Record<string, string | undefined>;
  stdin?: Readable;
  stdoutStream?: Writable;
  shutdownSignal?: () => AbortSignal;
  /** The offline analysis, when this build has one (registers etcd_analyze). */
  analysis?: OfflineAnalysis;
}

/**
 * `etcd-doctor mcp [--config F]`: the MCP server on stdio. stdout carries only protocol messages;
 * pino logs go to stderr, where MCP clients collect a server's log. It runs no role: it is its own
 * process and so its own composition root, and builds its doctor and its audit reader (a short
 * connection per read) here. /mcp in the serve, bot and worker roles takes the role's instead
 * (mcp/install-mcp-http.ts).
 */
export async function runMcpCommand(options: McpCommandOptions, io: McpCommandIo): Promise<void> {
  const env = requireEnv(io.env);
  const config = await loadConfigFor(options.config, io.env);
  if (!io.stdin || !io.stdoutStream || !io.shutdownSignal)
    throw new Error('etcd-doctor mcp: no stdin/stdout/shutdown given');
  const logger = createLogger(env.LOG_LEVEL);
  const own = createDoctor({ config, readFileBuffer: (p) => readFile(p) });
  // Diagnoses of watched clusters say since when, from the watch's minute history, as in Slack.
  const place = redisPlaceFromEnv(env, options.queuePrefix);
  const where = { redisUrl: place.target, prefix: place.prefix };
  const doctor = doctorFor(own, { role: 'mcp', config, where });
  try {
    await serveMcpStdio({
      doctor,
      config,
      audit: createRedisAuditReader(where),
      // Over stdio the client runs on this machine as this user; mcp.analyzeRoots bounds it when set.
      analysis: io.analysis ?? mcpOfflineAnalysis(config.mcp?.analyzeRoots, config.offline?.analysisMemoryMb),
      logger,
      input: io.stdin,
      output: io.stdoutStream,
      shutdown: io.shutdownSignal(),
    });
  } finally {
    await doctor.close();
  }
}
