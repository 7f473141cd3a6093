import { EtcdDoctorError } from '../errors.js';
import { type RoleSetup, type RunRoleOptions, receivesChat } from './role-options.js';
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
export async function runRole(opts: RunRoleOptions): Promise<void> {
  const { env, role } = opts;
  const setup = roleSetup(opts);
  if (!env.SLACK_BOT_TOKEN) {
    if (role !== 'serve') {
      throw new EtcdDoctorError(
        'config_invalid',
        `etcd-doctor ${role} needs SLACK_BOT_TOKEN; without Slack, run "etcd-doctor serve" for the shell chat`,
      );
    }
    const listen =
      opts.processEnv?.PORT === undefined ? undefined : { port: env.PORT, host: env.LISTEN_HOST };
    // The shell reads no names from the process env (no ticket credential): only the Slack roles pass it.
    const { processEnv: _unread, ...shellSetup } = setup;
    await runShell({
      ...shellSetup,
      ...(listen ? { listen, mcpToken: env.MCP_TOKEN } : {}),
      input: opts.stdin,
      output: opts.stdout,
      interactive: opts.interactive,
      signal: opts.shutdown,
    });
    return;
  }
  // Plans are signed by the worker that renders a button and checked by the bot; a job is signed by
  // the bot and checked by the worker: two processes, so one key they share (a Secret).
  // The analyzer signs and checks nothing: it answers analyses, which carry no buttons.
  if ((role === 'bot' || role === 'worker') && !env.REMEDIATION_SIGNING_KEY) {
    throw new EtcdDoctorError(
      'config_invalid',
      `etcd-doctor ${role} needs REMEDIATION_SIGNING_KEY, the key that signs remediation plans and jobs: the same in the bot and every worker, at least 32 characters (openssl rand -hex 32), kept in a Secret, never in Redis`,
    );
  }
  if (role === 'serve' && !env.REMEDIATION_SIGNING_KEY)
    setup.logger.warn(
      {},
      'REMEDIATION_SIGNING_KEY is not set: buttons are signed with a key of this process only, so they work only in it; set the key when more than one etcd-doctor process shares this Redis',
    );
  if (receivesChat(role) && !env.SLACK_APP_TOKEN && !env.SLACK_SIGNING_SECRET) {
    throw new EtcdDoctorError(
      'config_invalid',
      'Slack needs SLACK_SIGNING_SECRET (HTTP mode) or SLACK_APP_TOKEN (Socket Mode)',
    );
  }
  await runSlackRole({ role, env, setup, shutdown: opts.shutdown }, env.SLACK_BOT_TOKEN);
}

/** The process's setup, once: the Redis target from the env, the deployment's key prefix on it. */
function roleSetup(opts: RunRoleOptions): RoleSetup {
  const redisUrl = redisTargetFromEnv(opts.env);
  return {
    config: opts.config,
    redisUrl,
    // On a Redis Cluster the deployment's keys share one hash tag (config/redis-target.ts).
    queuePrefix: keyPrefixFor(redisUrl, opts.queuePrefix),
    logger: opts.logger,
    ...(opts.tuning ? { tuning: opts.tuning } : {}),
    ...(opts.metrics ? { metrics: opts.metrics } : {}),
    ...(opts.processEnv ? { processEnv: opts.processEnv } : {}),
    ...(opts.env.REMEDIATION_SIGNING_KEY ? { signingKey: opts.env.REMEDIATION_SIGNING_KEY } : {}),
  };
}
