import type { HttpRoute } from '../http/route.js';
import type { ConfigFile } from '../config/schema.js';
import type { Doctor } from '../doctor.js';
import { doctorFor } from '../history/doctor-for.js';
import type { Logger } from '../logger.js';
import { mcpOfflineAnalysis } from '../offline/mcp-analysis.js';
import type { Secret } from '../secret.js';
import type { Redis } from '../clients/redis.js';
import { createRateLimiter } from '../state/rate-limit.js';
import type { OfflineAnalysis } from './analyze-tool.js';
import { createConnectionAuditReader } from './audit-tool.js';
import { createMcpServer, fileSpaceMeter } from './create-mcp-server.js';
import { createSharedSpaceMeter } from './space-tool.js';
import { createCallGate, DEFAULT_MCP_CALL_LIMITS } from './call-limits.js';
import { mcpRoutes } from './mcp-route.js';
import type { RedisTarget } from '../config/redis-target.js';

export interface McpHttpOptions {
  /** MCP_TOKEN; without it /mcp is not served at all. */
  token: Secret | undefined;
  config: ConfigFile;
  redisUrl: RedisTarget;
  queuePrefix: string;
  logger: Logger;
  /**
   * The process's doctor and Redis connections, from its role (roles/role-base.ts ProcessParts):
   * /mcp builds none of its own, and stopping the roles closes them.
   */
  parts: { doctor: Doctor; connect(name: string): Redis };
  /** Register etcd_analyze; give it `roots`, since HTTP callers are remote. */
  analysis?: OfflineAnalysis;
}

export interface McpHttp {
  /** `/mcp` (POST, GET), or none. */
  routes: HttpRoute[];
}

/**
 * `/mcp` for the serve and bot roles' HTTP server. Refuses to serve it without MCP_TOKEN (and says
 * so in the log): the tools read every configured cluster. The Doctor is the process's (its
 * clusters' clients), run directly: MCP calls neither wait for nor hold the job queue.
 */
export function installMcpHttp(opts: McpHttpOptions): McpHttp {
  if (!opts.token) {
    opts.logger.warn(
      { path: '/mcp' },
      'not serving /mcp: MCP_TOKEN is not set (set it to the bearer token MCP clients must send)',
    );
    return { routes: [] };
  }
  // Diagnoses of watched clusters say since when, from the watch's minute history, as in Slack.
  const doctor = doctorFor(opts.parts.doctor, {
    role: 'mcp',
    config: opts.config,
    where: { redisUrl: opts.redisUrl, prefix: opts.queuePrefix },
  });
  // The chat's rate limiter (state/rate-limit.ts) and the audit trail, on one connection of the role's.
  const connection = opts.parts.connect('etcd-doctor-mcp');
  const audit = createConnectionAuditReader({
    redis: connection,
    redisUrl: opts.redisUrl,
    prefix: opts.queuePrefix,
  });
  // Remote callers read files only inside mcp.analyzeRoots: without them there is no etcd_analyze.
  const roots = opts.config.mcp?.analyzeRoots ?? [];
  const analysis =
    opts.analysis ??
    (roots.length ? mcpOfflineAnalysis(roots, opts.config.offline?.analysisMemoryMb) : undefined);
  const limits = {
    concurrent: opts.config.mcp?.maxConcurrentCalls ?? DEFAULT_MCP_CALL_LIMITS.concurrent,
    perMinute: opts.config.mcp?.callsPerMinute ?? DEFAULT_MCP_CALL_LIMITS.perMinute,
  };
  // Redis down: the count is not read in time and calls go through (the tools do not need Redis).
  const calls = createCallGate(createRateLimiter(connection, opts.queuePrefix), limits);
  // One scan of a cluster at a time across every request's server (each POST gets its own).
  const space = createSharedSpaceMeter(fileSpaceMeter);
  const routes = mcpRoutes({
    token: opts.token,
    logger: opts.logger,
    calls,
    ...(opts.config.mcp?.allowedOrigins ? { allowedOrigins: opts.config.mcp.allowedOrigins } : {}),
    ...(opts.config.mcp?.allowedHosts ? { allowedHosts: opts.config.mcp.allowedHosts } : {}),
    createServer: () =>
      createMcpServer({
        doctor,
        config: opts.config,
        audit,
        space,
        logger: opts.logger,
        ...(analysis ? { analysis } : {}),
      }),
  });
  opts.logger.info({ path: '/mcp' }, 'serving MCP (Streamable HTTP) at /mcp behind MCP_TOKEN');
  return { routes };
}
