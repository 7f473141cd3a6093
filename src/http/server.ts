import { createServer, type Server } from 'node:http';
import type { HttpRoute } from './route.js';

export interface HttpServer {
  address(): { host: string; port: number };
  close(): Promise<void>;
}

/**
 * A bare node:http server for the roles that have no Slack HTTP receiver (the worker, Socket Mode,
 * the shell chat): /healthz, /readyz and /metrics for Kubernetes and Prometheus. Anything else is 404.
 */
export async function startHttpServer(opts: {
  port: number;
  /** 0.0.0.0 in a container; tests bind 127.0.0.1. */
  host: string;
  routes: HttpRoute[];
}): Promise<HttpServer> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const route = opts.routes.find((r) => r.path === path && r.method === req.method);
    if (!route) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    route.handler(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    address() {
      const a = server.address();
      return a && typeof a === 'object'
        ? { host: a.address, port: a.port }
        : { host: opts.host, port: opts.port };
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
