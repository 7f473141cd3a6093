import type { Readable, Writable } from 'node:stream';
import { alertmanagerRoute } from '../alerts/alertmanager-route.js';
import { createSlackAdapter, type SlackAdapter } from '../chat/slack/slack-adapter.js';
import type { Env } from '../config/env.js';
import type { ConfigFile } from '../config/schema.js';
import { EtcdDoctorError } from '../errors.js';
import type { Logger } from '../logger.js';
import { installMcpHttp } from '../mcp/install-mcp-http.js';
import type { Metrics } from '../metrics/metrics.js';
import { healthRoutes, metricsRoute } from './health-routes.js';
import { type HttpServer, startHttpServer } from './http-server.js';
import { runShell } from './run-shell.js';
import { type Role, type RoleTuning, type RunningRoles, startRoles } from './start-roles.js';

export interface RunRoleOptions {
  role: Role;
  env: Env;
  /** The whole process env, for names the config points at (tickets.credentialEnv). */
  rawEnv?: Record<string, string | undefined>;
  config: ConfigFile;
  queuePrefix: string;
  logger: Logger;
  stdin: Readable;
  stdout: Writable;
  interactive: boolean;
  /** Resolves when the process is asked to stop (SIGINT, SIGTERM). */
  shutdown: AbortSignal;
  tuning?: RoleTuning;
  /** This process's Prometheus metrics, served on /metrics. */
  metrics?: Metrics;
}

/**
 * `etcd-doctor bot|worker|serve`: Slack when SLACK_BOT_TOKEN is set (Socket Mode with SLACK_APP_TOKEN,
 * else HTTP at /slack/events on PORT), the shell chat otherwise (serve only: the shell's worker must
 * print to the same terminal). Runs until `shutdown`, or until the shell's input ends.
 *
 * Every role answers /healthz, /readyz and /metrics on PORT: beside /slack/events in HTTP mode, on
 * a server of its own otherwise (the worker, Socket Mode; the shell chat only when PORT is set).
 * On shutdown the chat stops taking commands first, running jobs finish, and HTTP closes last.
 */
export async function runRole(opts: RunRoleOptions): Promise<void> {
  const { env } = opts;
  if (!env.SLACK_BOT_TOKEN) {
    if (opts.role !== 'serve') {
      throw new EtcdDoctorError(
        'config_invalid',
        `etcd-doctor ${opts.role} needs SLACK_BOT_TOKEN; without Slack, run "etcd-doctor serve" for the shell chat`,
      );
    }
    const listen = opts.rawEnv?.PORT === undefined ? undefined : { port: env.PORT, host: env.LISTEN_HOST };
    await runShell({
      ...(listen ? { listen, mcpToken: env.MCP_TOKEN } : {}),
      ...(opts.metrics ? { metrics: opts.metrics } : {}),
      config: opts.config,
      input: opts.stdin,
      output: opts.stdout,
      interactive: opts.interactive,
      redisUrl: env.REDIS_URL,
      queuePrefix: opts.queuePrefix,
      logger: opts.logger,
      signal: opts.shutdown,
      ...(opts.tuning ? { tuning: opts.tuning } : {}),
    });
    return;
  }
  if (opts.role !== 'worker' && !env.SLACK_APP_TOKEN && !env.SLACK_SIGNING_SECRET) {
    throw new EtcdDoctorError(
      'config_invalid',
      'Slack needs SLACK_SIGNING_SECRET (HTTP mode) or SLACK_APP_TOKEN (Socket Mode)',
    );
  }
  let roles: RunningRoles | undefined;
  let chat: SlackAdapter | undefined;
  // Bolt's HTTP receiver serves the routes in HTTP mode; the worker and Socket Mode need a server.
  const boltServes = opts.role !== 'worker' && !env.SLACK_APP_TOKEN;
  const mcp =
    opts.role === 'worker'
      ? undefined
      : installMcpHttp({
          token: env.MCP_TOKEN,
          config: opts.config,
          redisUrl: env.REDIS_URL,
          queuePrefix: opts.queuePrefix,
          logger: opts.logger,
          ...(opts.metrics ? { metrics: opts.metrics } : {}),
        });
  const routes = [
    ...healthRoutes({
      redis: () => roles?.redisReady() ?? Promise.resolve(false),
      slack: () => chat?.authOk() ?? Promise.resolve(false),
    }),
    ...(opts.metrics ? [metricsRoute(opts.metrics)] : []),
    alertmanagerRoute({
      token: env.ALERTMANAGER_TOKEN,
      clusterLabel: opts.config.alertmanager?.clusterLabel ?? 'cluster',
      cluster: (name) => opts.config.clusters.find((c) => c.name === name),
      enqueue: () => roles?.enqueue,
      logger: opts.logger,
      now: Date.now,
    }),
    ...(mcp?.routes ?? []),
  ];
  chat = createSlackAdapter({
    botToken: env.SLACK_BOT_TOKEN,
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
    redisUrl: env.REDIS_URL,
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
  await new Promise<void>((resolve) => {
    if (opts.shutdown.aborted) resolve();
    opts.shutdown.addEventListener('abort', () => resolve(), { once: true });
  });
  opts.logger.info({ role: opts.role }, 'shutting down: no new commands, finishing running jobs');
  await roles.stop();
  await server?.close();
  await mcp?.close();
  opts.logger.info({ role: opts.role }, 'etcd-doctor stopped');
}
