import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Doctor } from '../doctor.js';
import type { Logger } from '../logger.js';
import { createMcpServer, type McpServerDeps } from './create-mcp-server.js';

export interface ServeStdioOptions extends McpServerDeps {
  doctor: Doctor;
  input: Readable;
  /** Only protocol messages go here; logs go to the logger (stderr). */
  output: Writable;
  /** SIGINT/SIGTERM. */
  shutdown: AbortSignal;
  logger: Logger;
}

/**
 * `etcd-doctor mcp`: one MCP session on stdin/stdout until the client closes stdin or the process
 * is asked to stop. Closing the server aborts the tool calls still running (their probes stop).
 */
export async function serveMcpStdio(opts: ServeStdioOptions): Promise<void> {
  const server = createMcpServer(opts);
  const ended = new Promise<string>((resolve) => {
    opts.input.once('end', () => resolve('the client closed stdin'));
    opts.input.once('close', () => resolve('the client closed stdin'));
    server.server.onclose = () => resolve('the session closed');
    if (opts.shutdown.aborted) resolve('asked to stop');
    opts.shutdown.addEventListener('abort', () => resolve('asked to stop'), { once: true });
  });
  await server.connect(new StdioServerTransport(opts.input, opts.output));
  opts.logger.info({ transport: 'stdio' }, 'etcd-doctor MCP server ready');
  const why = await ended;
  await server.close();
  opts.logger.info({ reason: why }, 'etcd-doctor MCP server stopped');
}
