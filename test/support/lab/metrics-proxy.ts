import { createServer, type Server } from 'node:http';

/**
 * A loopback HTTP proxy in front of one member's /metrics that counts the GETs it forwards and
 * how many are in flight, so a test sees how often (and how many at once) etcd-doctor scrapes.
 */
export interface MetricsProxy {
  url: string;
  /** Requests forwarded so far. */
  readonly requests: number;
  /** Calls `fn` each time a request starts (+1) or ends (-1). */
  onChange(fn: (delta: 1 | -1) => void): void;
  close(): Promise<void>;
}

export async function startMetricsProxy(memberMetricsUrl: string): Promise<MetricsProxy> {
  // A lab's metrics URL is the member's base URL; etcd serves /metrics under it.
  const base = new URL(memberMetricsUrl);
  const upstream = base.pathname === '/' ? new URL('/metrics', base).toString() : memberMetricsUrl;
  let requests = 0;
  const listeners: Array<(delta: 1 | -1) => void> = [];
  const emit = (d: 1 | -1) => {
    for (const l of listeners) l(d);
  };
  const server: Server = createServer((_req, res) => {
    requests += 1;
    emit(1);
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      emit(-1);
    };
    res.on('close', end);
    fetch(upstream)
      .then(async (r) => {
        const body = Buffer.from(await r.arrayBuffer());
        res.writeHead(r.status, { 'content-type': r.headers.get('content-type') ?? 'text/plain' });
        res.end(body);
      })
      .catch(() => {
        res.writeHead(502);
        res.end();
      });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/metrics`,
    get requests() {
      return requests;
    },
    onChange: (fn) => {
      listeners.push(fn);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
