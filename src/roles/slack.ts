import { alertmanagerRoute } from '../alerts/alertmanager-route.js';
import { createSlackAdapter, type SlackAdapter } from '../chat/slack/slack-adapter.js';
import type { HttpRoute } from '../http/route.js';
import { installMcpHttp, type McpHttp } from '../mcp/install-mcp-http.js';
import { healthRoutes, metricsRoute } from '../http/health-routes.js';
import { type HttpServer, startHttpServer } from '../http/server.js';
import { mcpHttpOptions } from './mcp-options.js';
import { createProcessParts } from './role-base.js';
import { type RoleProcess, type RunningRoles, receivesChat } from './role-options.js';
import { startRoles } from './start-roles.js';
import { whenAborted } from '../timing.js';

type BotToken = NonNullable<RoleProcess['env']['SLACK_BOT_TOKEN']>;

/**
 * `etcd-doctor bot|worker|serve` with Slack: the Slack adapter (Socket Mode with SLACK_APP_TOKEN,
 * else HTTP), the roles on it, and the HTTP routes (/healthz, /readyz, /metrics, /alertmanager,
 * /mcp): on Bolt's own server in HTTP mode, on one of their own otherwise. Runs until `shutdown`.
 * The composition root of the process: its parts (the doctor, Redis) are built once, here, before the
 * routes (the adapter takes them at creation), and the roles and /mcp both run on them.
 */
export async function runSlackRole(proc: RoleProcess, botToken: BotToken): Promise<void> {
  const { env, setup } = proc;
  const { logger } = setup;
  let roles: RunningRoles | undefined;
  let chat: SlackAdapter | undefined;
  // Bolt's HTTP receiver serves the routes in HTTP mode; the worker and Socket Mode need a server.
  const boltServes = receivesChat(proc.role) && !env.SLACK_APP_TOKEN;
  const parts = createProcessParts(setup);
  // A worker serves /mcp only when asked to (MCP_TOKEN): it has the access the tools need (the etcd
  // client certificate, the kubeconfig), which the bot pods of deploy/ do not (components/mcp).
  const mcp =
    proc.role === 'analyzer' || (proc.role === 'worker' && !env.MCP_TOKEN)
      ? undefined
      : installMcpHttp(mcpHttpOptions(setup, parts, env.MCP_TOKEN));
  const routes = processRoutes(proc, mcp, {
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
    logger,
    ...(setup.metrics ? { metrics: setup.metrics } : {}),
  });
  roles = await startRoles({ ...setup, role: proc.role, chat }, parts);
  const server: HttpServer | undefined = boltServes
    ? undefined
    : await startHttpServer({ port: env.PORT, host: env.LISTEN_HOST, routes });
  const address = server?.address() ?? chat.address();
  logger.info(
    {
      role: proc.role,
      mode: env.SLACK_APP_TOKEN ? 'socket' : 'http',
      port: address?.port ?? env.PORT,
      host: address?.host ?? env.LISTEN_HOST,
    },
    'etcd-doctor started',
  );
  await whenAborted(proc.shutdown);
  logger.info({ role: proc.role }, 'shutting down: no new commands, finishing running jobs');
  await roles.stop();
  await server?.close();
  logger.info({ role: proc.role }, 'etcd-doctor stopped');
}

/** The process's HTTP routes beside Slack's: health, metrics, the Alertmanager webhook and MCP. */
function processRoutes(
  { env, setup }: RoleProcess,
  mcp: McpHttp | undefined,
  live: {
    redisReady: () => Promise<boolean>;
    slackReady: () => Promise<boolean>;
    enqueue: () => RunningRoles['enqueue'];
  },
): HttpRoute[] {
  return [
    ...healthRoutes({ redis: live.redisReady, slack: live.slackReady }),
    ...(setup.metrics ? [metricsRoute(setup.metrics)] : []),
    alertmanagerRoute({
      token: env.ALERTMANAGER_TOKEN,
      clusterLabel: setup.config.alertmanager?.clusterLabel ?? 'cluster',
      cluster: (name) => setup.config.clusters.find((c) => c.name === name),
      enqueue: live.enqueue,
      logger: setup.logger,
      now: Date.now,
    }),
    ...(mcp?.routes ?? []),
  ];
}
