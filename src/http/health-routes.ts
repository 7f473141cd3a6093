import type { HttpRoute } from './route.js';
import type { Metrics } from '../metrics/metrics.js';

/** What /readyz checks: each answers true when that dependency is usable. */
export interface ReadinessChecks {
  redis: () => Promise<boolean>;
  /** Slack `auth.test` (cached by the adapter); absent without Slack. */
  slack?: () => Promise<boolean>;
}

/**
 * `/healthz` (the process answers) and `/readyz` (Redis answers, and Slack takes the token), beside
 * /slack/events or on the roles' own server. A bare function is the Redis check alone.
 */
export function healthRoutes(ready: ReadinessChecks | (() => Promise<boolean>)): HttpRoute[] {
  const checks: ReadinessChecks = typeof ready === 'function' ? { redis: ready } : ready;
  const failing = async (): Promise<string[]> => {
    const [redis, slack] = await Promise.all([
      checks.redis().catch(() => false),
      checks.slack ? checks.slack().catch(() => false) : Promise.resolve(true),
    ]);
    return [...(redis ? [] : ['redis unavailable']), ...(slack ? [] : ['slack auth.test failed'])];
  };
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
        void failing().then((problems) =>
          res
            .writeHead(problems.length ? 503 : 200, { 'content-type': 'text/plain' })
            .end(problems.length ? `${problems.join('\n')}\n` : 'ready\n'),
        );
      },
    },
  ];
}

/** `/metrics`: the Prometheus text exposition of this process's registry. */
export function metricsRoute(metrics: Pick<Metrics, 'scrape' | 'error'>): HttpRoute {
  return {
    path: '/metrics',
    method: 'GET',
    handler: (_req, res) => {
      metrics.scrape().then(
        ({ contentType, body }) => res.writeHead(200, { 'content-type': contentType }).end(body),
        (err: unknown) => {
          metrics.error('http');
          res.writeHead(500, { 'content-type': 'text/plain' }).end(`${String(err)}\n`);
        },
      );
    },
  };
}
