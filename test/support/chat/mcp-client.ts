import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { REDIS_URL } from '../redis/redis-prefix.js';

export const BIN = fileURLToPath(new URL('../../../bin/etcd-doctor.js', import.meta.url));

/** The least of an environment a spawned etcd-doctor needs; no Slack variables unless given. */
export function baseEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', REDIS_URL, ...extra };
}

/** An MCP client of the official SDK, talking to `etcd-doctor mcp` over the child's stdio. */
export interface StdioSession {
  client: Client;
  /** Everything the server wrote to stderr so far (pino JSON lines). */
  stderr(): string;
  /** Every message the client received, in the order it arrived on the wire. */
  received(): JSONRPCMessage[];
  /** The server process's pid, while it runs. */
  pid(): number | null;
  close(): Promise<void>;
}

export async function connectStdio(args: string[], env: Record<string, string>): Promise<StdioSession> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', ...args],
    env,
    stderr: 'pipe',
  });
  let log = '';
  transport.stderr?.on('data', (b: Buffer) => {
    log += b.toString('utf8');
  });
  const client = new Client({ name: 'etcd-doctor-test', version: '1.0.0' });
  await client.connect(transport);
  // The SDK hands a notification to its handler a microtask later but a response at once, so a
  // progress notification that arrives in the same read as the result never reaches `onprogress`.
  // What the server sent, and in which order, is read here, before the SDK dispatches it.
  const received: JSONRPCMessage[] = [];
  const dispatch = transport.onmessage;
  transport.onmessage = (message: JSONRPCMessage) => {
    if (received.length < 10_000) received.push(message);
    dispatch?.(message);
  };
  return {
    client,
    stderr: () => log,
    received: () => received,
    pid: () => transport.pid,
    close: () => client.close(),
  };
}

/** An SDK client over Streamable HTTP, sending `token` as the bearer token (none when undefined). */
export async function connectHttp(url: string, token: string | undefined): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: token ? { headers: { authorization: `Bearer ${token}` } } : {},
  });
  const client = new Client({ name: 'etcd-doctor-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

/** The text blocks of a tool result, the summary first. */
export function texts(result: CallToolResult): string[] {
  return result.content.flatMap((c) => (c.type === 'text' ? [c.text] : []));
}

/** A report's fields the tests read from a tool's structured content. */
export interface ReportContent {
  cluster: string;
  status: string;
  members: Array<{ name: string; reachable: boolean | null; error?: string | null }>;
  findings: Array<{
    cause: string;
    members: string[];
    severity: string;
    summary: string;
    evidence: string[];
  }>;
  explain?: Array<{ rule: string; fired: boolean }>;
}

export function reportOf(result: CallToolResult): ReportContent {
  if (result.isError) throw new Error(`tool error: ${texts(result).join(' ')}`);
  return result.structuredContent as unknown as ReportContent;
}

/** A long-running etcd-doctor role as a real process, with its stderr log. */
export interface RoleProcess {
  child: ChildProcess;
  logged(text: string): boolean;
  log(): string;
  stop(): Promise<void>;
}

export function spawnRole(
  role: 'serve' | 'bot' | 'worker',
  args: string[],
  env: Record<string, string>,
  /** `closed`: stdin is /dev/null, as `serve </dev/null` or a container without a tty has it. */
  stdin: 'open' | 'closed' = 'open',
): RoleProcess {
  // stdin stays open by default: `serve` with piped input would run the commands and exit at its end.
  const child = spawn(process.execPath, [BIN, role, ...args], {
    env,
    stdio: [stdin === 'open' ? 'pipe' : 'ignore', 'ignore', 'pipe'],
  });
  let log = '';
  child.stderr?.on('data', (b: Buffer) => {
    if (log.length < 1_000_000) log += b.toString('utf8');
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    child,
    log: () => log,
    logged: (text) => log.includes(text),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
