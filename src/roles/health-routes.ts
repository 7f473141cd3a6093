import type { HttpRoute } from '../chat/slack/slack-adapter.js';

/** `/healthz` (the process answers) and `/readyz` (Redis answers too), beside /slack/events. */
export function healthRoutes(ready: () => Promise<boolean>): HttpRoute[] {
  return [
    {
      path: '/healthz',
      method: 'GET',
      handler: (_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok\n'),
    },
    {
      path: '/readyz',
      method: 'GET',
      handler: (_req, res) => {
        void ready()
          .catch(() => false)
          .then((ok) =>
            res
              .writeHead(ok ? 200 : 503, { 'content-type': 'text/plain' })
              .end(ok ? 'ready\n' : 'redis unavailable\n'),
          );
      },
    },
  ];
}
