import { readFile } from 'node:fs/promises';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { measureSpace } from '../space/measure-space.js';
import type { ConfigFile } from '../config/schema.js';
import type { Doctor } from '../doctor.js';
import type { Logger } from '../logger.js';
import { type OfflineAnalysis, registerAnalyzeTool } from './analyze-tool.js';
import { type AuditReader, registerAuditTool } from './audit-tool.js';
import { registerClusterTools } from './cluster-tools.js';
import { registerLifecycleTools } from './lifecycle-tools.js';
import { createSharedSpaceMeter, registerSpaceTool, type SpaceMeter } from './space-tool.js';

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
  /** What fills etcd (etcd_space); default: measured with this process's file reader. */
  space?: SpaceMeter;
}

const INSTRUCTIONS = [
  'etcd-doctor names the root cause of etcd and Kubernetes control-plane incidents, and the member behind it, with evidence.',
  'Start with etcd_list_clusters or etcd_status, then etcd_diagnose the cluster in trouble; findings[0] is the root cause.',
  'Before an etcd upgrade, etcd_upgrade_check says what blocks it.',
  'For a database near its quota, etcd_space says what fills it (per Kubernetes resource and namespace, the largest objects, writes per second).',
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
  registerSpaceTool(server, {
    config: deps.config,
    logger: deps.logger,
    measure: deps.space ?? createSharedSpaceMeter(fileSpaceMeter),
  });
  registerLifecycleTools(server, deps);
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

/** measureSpace with this process's file reader (TLS files, a kubeconfig). */
export function fileSpaceMeter(cluster: Parameters<SpaceMeter>[0], opts: Parameters<SpaceMeter>[1]) {
  return measureSpace(cluster, { readFileBuffer: (p) => readFile(p) }, opts);
}
