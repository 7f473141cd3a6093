import type { IncomingMessage, ServerResponse } from 'node:http';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isAuthorized } from '../http/bearer-auth.js';
import type { HttpRoute } from '../http/route.js';
import { describeError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Secret } from '../secret.js';
import { type CallGate, toolCallsIn } from './call-limits.js';

export interface McpRouteDeps {
  /** MCP_TOKEN: the bearer token every request must carry. */
  token: Secret;
  /** A fresh server for each request (stateless: any replica can answer any request). */
  createServer: () => McpServer;
  logger: Logger;
  /** `mcp.allowedOrigins`: a request with any other Origin is refused (403). */
  allowedOrigins?: readonly string[];
  /** `mcp.allowedHosts`: when set, a request with any other Host is refused (403). */
  allowedHosts?: readonly string[];
  /** How many tool calls run at once and a minute; a POST over either is answered 429. */
  calls: CallGate;
}

/** A tool call is a small JSON-RPC message; 1 MiB leaves room for a batch of them. */
const MAX_BODY_BYTES = 1024 * 1024;

/** JSON-RPC error codes: the spec's parse error, and the "server error" range for auth. */
const PARSE_ERROR = -32700;
const UNAUTHORIZED = -32001;
const FORBIDDEN = -32003;
/** Server-defined range, like the two above: HTTP 429. */
const TOO_MANY_CALLS = -32029;
const INTERNAL_ERROR = -32603;

/**
 * `POST /mcp`: MCP's Streamable HTTP transport, stateless. Each request gets its own
 * server and transport, so the bot's replicas need no sticky sessions. A client that disconnects
 * before its answer cancels the call: the server closes and the request's AbortSignal stops the
 * probes (without a session, a `notifications/cancelled` sent as a separate POST has nothing to
 * cancel; the disconnect is what does it). `GET /mcp` (a server-to-client stream) is 405: stateless
 * servers have nothing to push.
 */
export function mcpRoutes(deps: McpRouteDeps): HttpRoute[] {
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const refused = browserProblem(req, deps);
    if (refused) {
      sendJson(res, 403, rpcError(FORBIDDEN, refused));
      return;
    }
    if (!isAuthorized(req.headers.authorization, deps.token)) {
      sendJson(res, 401, rpcError(UNAUTHORIZED, 'unauthorized: send MCP_TOKEN as a bearer token'), {
        'www-authenticate': 'Bearer realm="etcd-doctor"',
      });
      return;
    }
    const body = await readJson(req);
    if (!body.ok) {
      sendJson(res, body.status, rpcError(PARSE_ERROR, body.error));
      return;
    }
    const admission = await deps.calls.admit(toolCallsIn(body.value));
    if (!admission.ok) {
      sendJson(res, 429, rpcError(TOO_MANY_CALLS, admission.message), {
        'retry-after': String(admission.retryAfterS),
      });
      return;
    }
    const server = deps.createServer();
    // No sessionIdGenerator: stateless, no Mcp-Session-Id. Each POST is answered on its own SSE
    // stream, which also carries the call's progress notifications. DNS rebinding (MCP spec,
    // Streamable HTTP: servers MUST validate Origin) is the SDK's check: Host against
    // mcp.allowedHosts, Origin against mcp.allowedOrigins, each when listed (403).
    const transport = new StreamableHTTPServerTransport({
      enableDnsRebindingProtection: true,
      ...(deps.allowedHosts?.length ? { allowedHosts: [...deps.allowedHosts] } : {}),
      ...(deps.allowedOrigins?.length ? { allowedOrigins: [...deps.allowedOrigins] } : {}),
    });
    res.on('close', () => {
      admission.release();
      void transport.close().catch(() => undefined);
      void server.close().catch(() => undefined);
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body.value);
  };
  return [
    {
      path: '/mcp',
      method: 'POST',
      handler: (req, res) => {
        handle(req, res).catch((err: unknown) => {
          deps.logger.error({ err: describeError(err) }, 'mcp: request failed');
          sendJson(res, 500, rpcError(INTERNAL_ERROR, 'internal error; see the etcd-doctor log'));
        });
      },
    },
    {
      path: '/mcp',
      method: 'GET',
      handler: (_req, res) => {
        res
          .writeHead(405, { allow: 'POST', 'content-type': 'application/json' })
          .end(`${JSON.stringify(rpcError(INTERNAL_ERROR, 'this server is stateless: POST /mcp'))}\n`);
      },
    },
  ];
}

type Parsed = { ok: true; value: unknown } | { ok: false; status: number; error: string };

async function readJson(req: IncomingMessage): Promise<Parsed> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buf.length;
    if (size > MAX_BODY_BYTES)
      return { ok: false, status: 413, error: `body larger than ${MAX_BODY_BYTES} bytes` };
    chunks.push(buf);
  }
  try {
    return { ok: true, value: JSON.parse(Buffer.concat(chunks).toString('utf8')) };
  } catch (err) {
    return {
      ok: false,
      status: 400,
      error: `not JSON: ${describeError(err).replace(/^unexpected error: /, '')}`,
    };
  }
}

function rpcError(code: number, message: string) {
  return { jsonrpc: '2.0', error: { code, message }, id: null };
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: object,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) return;
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(`${JSON.stringify(body)}\n`);
}

/**
 * A browser page on another site sends its Origin; MCP clients that are not browsers send none. The
 * SDK checks an Origin only against a list it is given: with mcp.allowedOrigins empty, every
 * request that has one is refused here, before the token is looked at.
 */
function browserProblem(
  req: IncomingMessage,
  deps: Pick<McpRouteDeps, 'allowedOrigins'>,
): string | undefined {
  const origin = req.headers.origin;
  if (origin !== undefined && !deps.allowedOrigins?.length)
    return `forbidden: Origin ${JSON.stringify(origin).slice(0, 200)} is not in mcp.allowedOrigins`;
  return undefined;
}
