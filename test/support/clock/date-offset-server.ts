import { createServer, type IncomingMessage, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A real loopback HTTP server whose `Date` header runs `offsetMs` off our clock. */
export interface DateOffsetServer {
  /** http://127.0.0.1:PORT, no trailing slash. */
  readonly url: string;
  offsetMs: number;
  /** Requests answered so far. */
  readonly requests: number;
  close(): Promise<void>;
}

export interface DateOffsetServerOptions {
  offsetMs: number;
  /**
   * A client URL to forward GETs to (a proxy in front of a real etcd member): the upstream's own
   * `Date` is shifted by offsetMs, so the member's clock is seen `offsetMs` off. Without it the
   * server answers like etcd's /version, with a Date of our clock plus offsetMs.
   */
  upstream?: string;
}

const VERSION_BODY = '{"etcdserver":"3.4.23","etcdcluster":"3.4.0"}';
const UPSTREAM_TIMEOUT_MS = 3000;

export async function startDateOffsetServer(opts: DateOffsetServerOptions): Promise<DateOffsetServer> {
  let requests = 0;
  const state = { offsetMs: opts.offsetMs };
  const server = createServer((req, res) => {
    requests++;
    if (opts.upstream === undefined) answerLocally(res, state.offsetMs);
    else forward(req, res, opts.upstream, state.offsetMs);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get offsetMs() {
      return state.offsetMs;
    },
    set offsetMs(ms: number) {
      state.offsetMs = ms;
    },
    get requests() {
      return requests;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function answerLocally(res: ServerResponse, offsetMs: number): void {
  res.setHeader('Date', new Date(Date.now() + offsetMs).toUTCString());
  res.setHeader('Content-Type', 'application/json');
  res.end(VERSION_BODY);
}

function forward(req: IncomingMessage, res: ServerResponse, upstream: string, offsetMs: number): void {
  const target = new URL(req.url ?? '/', upstream);
  const upstreamReq = request(target, { method: 'GET', timeout: UPSTREAM_TIMEOUT_MS }, (up) => {
    const headers = { ...up.headers };
    const date = Date.parse(up.headers.date ?? '');
    if (!Number.isNaN(date)) headers.date = new Date(date + offsetMs).toUTCString();
    res.writeHead(up.statusCode ?? 502, headers);
    up.pipe(res);
  });
  upstreamReq.on('timeout', () => upstreamReq.destroy(new Error('upstream timed out')));
  upstreamReq.on('error', (err) => {
    if (!res.headersSent) res.writeHead(502, { 'Content-Type': 'text/plain' });
    res.end(`proxy: ${err.message}`);
  });
  upstreamReq.end();
}
