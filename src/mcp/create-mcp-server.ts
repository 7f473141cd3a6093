import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ConfigFile } from '../config/schema.js';
import type { Doctor } from '../doctor.js';
import type { Logger } from '../logger.js';
import { type OfflineAnalysis, registerAnalyzeTool } from './analyze-tool.js';
import { type AuditReader, registerAuditTool } from './audit-tool.js';
import { registerClusterTools } from './cluster-tools.js';

/** package.json's version (a unit test keeps them equal). */
export const MCP_SERVER_VERSION = '0.1.0';

export interface McpServerDeps {
  doctor: Doctor;
  config: ConfigFile;
  /** The remediation audit trail; without it there is no etcd_audit_trail tool. */
  audit?: AuditReader;
  /** The offline analysis; without it there is no etcd_analyze tool. */
  analysis?: OfflineAnalysis;
  logger: Logger;
  now?: () => number;
}

const INSTRUCTIONS = [
  'etcd-doctor names the root cause of etcd and Kubernetes control-plane incidents, and the member behind it, with evidence.',
  'Start with etcd_list_clusters or etcd_status, then etcd_diagnose the cluster in trouble; findings[0] is the root cause.',
  'Every tool only reads. Remediation (defragment, restart a static pod, disarm an alarm) is done by people in Slack, with confirmation; etcd_audit_trail shows what they did.',
].join(' ');

/**
 * The MCP server: read-only tools over the same Doctor the CLI and the worker use. One instance
 * per stdio session, or per HTTP request (stateless Streamable HTTP).
 */
export function createMcpServer(deps: McpServerDeps): McpServer {
  const server = new McpServer(
    { name: 'etcd-doctor', version: MCP_SERVER_VERSION },
    { capabilities: { tools: {} }, instructions: INSTRUCTIONS },
  );
  registerClusterTools(server, deps);
  if (deps.audit)
    registerAuditTool(server, {
      audit: deps.audit,
      knownClusters: deps.config.clusters.map((c) => c.name),
      logger: deps.logger,
      now: deps.now ?? Date.now,
    });
  if (deps.analysis) registerAnalyzeTool(server, { analysis: deps.analysis, logger: deps.logger });
  return server;
}
