import { loadConfigFor, requireEnv } from '../config/load-config.js';
import { createLogger } from '../logger.js';
import { createMetrics } from '../metrics/metrics.js';
import type { Role } from '../roles/role-options.js';
import { runRole } from '../roles/run-role.js';
import { type CliIo, EXIT } from './io.js';

export interface RoleOptions {
  config?: string;
  queuePrefix: string;
}

/** `etcd-doctor bot|worker|serve|analyzer`: runs until SIGINT/SIGTERM. */
export async function runProcessRole(role: Role, options: RoleOptions, io: CliIo): Promise<number> {
  const env = requireEnv(io.env);
  const config = await loadConfigFor(options.config, io.env);
  if (!io.stdin || !io.stdoutStream || !io.shutdownSignal)
    throw new Error(`etcd-doctor ${role}: no stdin/stdout/shutdown given`);
  // The shell chat owns the terminal: only warnings go to stderr unless LOG_LEVEL says otherwise.
  const shell = !env.SLACK_BOT_TOKEN;
  const level = shell && io.env.LOG_LEVEL === undefined ? 'warn' : env.LOG_LEVEL;
  await runRole({
    role,
    env,
    processEnv: io.env,
    config,
    queuePrefix: options.queuePrefix,
    logger: createLogger(level),
    // One registry per process, with the default process metrics (no prom-client global).
    metrics: createMetrics(),
    stdin: io.stdin,
    stdout: io.stdoutStream,
    interactive: io.interactive ?? false,
    shutdown: io.shutdownSignal(),
  });
  return EXIT.healthy;
}
