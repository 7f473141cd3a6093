import { EtcdDoctorError } from '../errors.js';
import type { RunRoleOptions } from './role-options.js';
import { runShell } from './shell.js';
import { runSlackRole } from './slack.js';
import { keyPrefixFor, redisTargetFromEnv } from '../config/redis-target.js';

/**
 * `etcd-doctor bot|worker|serve`: Slack when SLACK_BOT_TOKEN is set (Socket Mode with SLACK_APP_TOKEN,
 * else HTTP at /slack/events on PORT), the shell chat otherwise (serve only: the shell's worker must
 * print to the same terminal). Runs until `shutdown`, or until the shell's input ends.
 *
 * Every role answers /healthz, /readyz and /metrics on PORT: beside /slack/events in HTTP mode, on
 * a server of its own otherwise (the worker, Socket Mode; the shell chat only when PORT is set).
 * On shutdown the chat stops taking commands first, running jobs finish, and HTTP closes last
 * (roles/shutdown.ts).
 */
export async function runRole(given: RunRoleOptions): Promise<void> {
  const { env } = given;
  // On a Redis Cluster the deployment's keys share one hash tag (config/redis-target.ts).
  const opts = { ...given, queuePrefix: keyPrefixFor(redisTargetFromEnv(env), given.queuePrefix) };
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
      redisUrl: redisTargetFromEnv(env),
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
  await runSlackRole(opts, env.SLACK_BOT_TOKEN);
}
