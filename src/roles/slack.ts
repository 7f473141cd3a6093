import { alertmanagerRoute } from '../alerts/alertmanager-route.js';
import { createSlackAdapter, type SlackAdapter } from '../chat/slack/slack-adapter.js';
import type { HttpRoute } from '../http/route.js';
import { installMcpHttp, type McpHttp } from '../mcp/install-mcp-http.js';
import { healthRoutes, metricsRoute } from '../http/health-routes.js';
import { type HttpServer, startHttpServer } from '../http/server.js';
import type { RunningRoles, RunRoleOptions } from './role-options.js';
import { startRoles } from './start-roles.js';
import { whenAborted } from '../timing.js';
import { redisTargetFromEnv } from '../config/redis-target.js';

type BotToken = NonNullable<RunRoleOptions['env']['SLACK_BOT_TOKEN']>;

/**
 * `etcd-doctor bot|worker|serve` with Slack: the Slack adapter (Socket Mode with SLACK_APP_TOKEN,
 * else HTTP), the roles on it, and the HTTP routes (/healthz, /readyz, /metrics, /alertmanager,
 * /mcp): on Bolt's own server in HTTP mode, on one of their own otherwise. Runs until `shutdown`.
 */
export async function runSlackRole(opts: RunRoleOptions, botToken: BotToken): Promise<void> {
  const { env } = opts;
  let roles: RunningRoles | undefined;
  let chat: SlackAdapter | undefined;
  // Bolt's HTTP receiver serves the routes in HTTP mode; the worker and Socket Mode need a server.
  const boltServes = opts.role !== 'worker' && !env.SLACK_APP_TOKEN;
  // A worker serves /mcp only when asked to (MCP_TOKEN): it has the access the tools need (the etcd
  // client certificate, the kubeconfig), which the bot pods of deploy/ do not (components/mcp).
  const mcp =
    opts.role === 'worker' && !env.MCP_TOKEN
      ? undefined
      : installMcpHttp({
          token: env.MCP_TOKEN,
          config: opts.config,
          redisUrl: redisTargetFromEnv(env),
          queuePrefix: opts.queuePrefix,
          logger: opts.logger,
          ...(opts.metrics ? { metrics: opts.metrics } : {}),
        });
  const routes = processRoutes(opts, mcp, {
    redisReady: () => roles?.redisReady() ?? Promise.resolve(false),
    slackReady: () => chat?.authOk() ?? Promise.resolve(false),
    enqueue: () => roles?.enqueue,
  });
  chat = createSlackAdapter({
    botToken,
    ...(env.SLACK_SIGNING_SECRET ? { signingSecret: env.SLACK_SIGNING_SECRET } : {}),
    ...(env.SLACK_APP_TOKEN ? { appToken: env.SLACK_APP_TOKEN } : {}),
    ...(env.SLACK_API_URL ? { apiUrl: env.SLACK_API_URL } : {}),
    listen: { port: env.PORT, host: env.LISTEN_HOST },
    routes,
    logger: opts.logger,
    ...(opts.metrics ? { metrics: opts.metrics } : {}),
  });
  roles = await startRoles({
    ...(opts.rawEnv ? { env: opts.rawEnv } : {}),
    role: opts.role,
    chat,
    config: opts.config,
    redisUrl: redisTargetFromEnv(env),
    queuePrefix: opts.queuePrefix,
    logger: opts.logger,
    ...(opts.tuning ? { tuning: opts.tuning } : {}),
    ...(opts.metrics ? { metrics: opts.metrics } : {}),
  });
  const server: HttpServer | undefined = boltServes
    ? undefined
    : await startHttpServer({ port: env.PORT, host: env.LISTEN_HOST, routes });
  const address = server?.address() ?? chat.address();
  opts.logger.info(
    {
      role: opts.role,
      mode: env.SLACK_APP_TOKEN ? 'socket' : 'http',
      port: address?.port ?? env.PORT,
      host: address?.host ?? env.LISTEN_HOST,
    },
    'etcd-doctor started',
  );
  await whenAborted(opts.shutdown);
  opts.logger.info({ role: opts.role }, 'shutting down: no new commands, finishing running jobs');
  await roles.stop();
  await server?.close();
  await mcp?.close();
  opts.logger.info({ role: opts.role }, 'etcd-doctor stopped');
}

/** The process's HTTP routes beside Slack's: health, metrics, the Alertmanager webhook and MCP. */
function processRoutes(
  opts: RunRoleOptions,
  mcp: McpHttp | undefined,
  live: {
    redisReady: () => Promise<boolean>;
    slackReady: () => Promise<boolean>;
    enqueue: () => RunningRoles['enqueue'];
  },
): HttpRoute[] {
  return [
    ...healthRoutes({ redis: live.redisReady, slack: live.slackReady }),
    ...(opts.metrics ? [metricsRoute(opts.metrics)] : []),
    alertmanagerRoute({
      token: opts.env.ALERTMANAGER_TOKEN,
      clusterLabel: opts.config.alertmanager?.clusterLabel ?? 'cluster',
      cluster: (name) => opts.config.clusters.find((c) => c.name === name),
      enqueue: live.enqueue,
      logger: opts.logger,
      now: Date.now,
    }),
    ...(mcp?.routes ?? []),
  ];
}
