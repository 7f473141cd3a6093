import type { Readable, Writable } from 'node:stream';
import { alertmanagerRoute } from '../alerts/alertmanager-route.js';
import { createSlackAdapter } from '../chat/slack/slack-adapter.js';
import type { Env } from '../config/env.js';
import type { ConfigFile } from '../config/schema.js';
import { EtcdDoctorError } from '../errors.js';
import type { Logger } from '../logger.js';
import { healthRoutes } from './health-routes.js';
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
}

/**
 * `etcd-doctor bot|worker|serve`: Slack when SLACK_BOT_TOKEN is set (Socket Mode with SLACK_APP_TOKEN,
 * else HTTP at /slack/events on PORT), the shell chat otherwise (serve only: the shell's worker must
 * print to the same terminal). Runs until `shutdown`, or until the shell's input ends.
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
    await runShell({
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
  const routes = [
    ...healthRoutes(() => roles?.redisReady() ?? Promise.resolve(false)),
    alertmanagerRoute({
      token: env.ALERTMANAGER_TOKEN,
      clusterLabel: opts.config.alertmanager?.clusterLabel ?? 'cluster',
      cluster: (name) => opts.config.clusters.find((c) => c.name === name),
      enqueue: () => roles?.enqueue,
      logger: opts.logger,
      now: Date.now,
    }),
  ];
  const chat = createSlackAdapter({
    botToken: env.SLACK_BOT_TOKEN,
    ...(env.SLACK_SIGNING_SECRET ? { signingSecret: env.SLACK_SIGNING_SECRET } : {}),
    ...(env.SLACK_APP_TOKEN ? { appToken: env.SLACK_APP_TOKEN } : {}),
    ...(env.SLACK_API_URL ? { apiUrl: env.SLACK_API_URL } : {}),
    listen: { port: env.PORT },
    routes,
    logger: opts.logger,
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
  });
  opts.logger.info(
    { role: opts.role, mode: env.SLACK_APP_TOKEN ? 'socket' : 'http', port: env.PORT },
    'etcd-doctor started',
  );
  await new Promise<void>((resolve) => {
    if (opts.shutdown.aborted) resolve();
    opts.shutdown.addEventListener('abort', () => resolve(), { once: true });
  });
  await roles.stop();
}
