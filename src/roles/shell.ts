import type { Readable, Writable } from 'node:stream';
import { createShellAdapter } from '../chat/shell/shell-adapter.js';
import type { ConfigFile } from '../config/schema.js';
import type { Doctor } from '../doctor.js';
import { silentLogger } from '../logger.js';
import { type McpHttp, installMcpHttp } from '../mcp/install-mcp-http.js';
import type { Secret } from '../secret.js';
import { healthRoutes, metricsRoute } from '../http/health-routes.js';
import { type HttpServer, startHttpServer } from '../http/server.js';
import { mcpHttpOptions } from './mcp-options.js';
import { createProcessParts } from './role-base.js';
import { DEFAULT_QUEUE_PREFIX, type RoleSetup, type RunningRoles } from './role-options.js';
import { startRoles } from './start-roles.js';
import { whenAborted } from '../timing.js';

/**
 * The shell's own options, and the role setup (roles/role-options.ts) with defaults for a local
 * run: redis://127.0.0.1:6379, the default key prefix, no log. It reads nothing from the process env.
 */
export interface RunShellOptions extends Partial<Omit<RoleSetup, 'config' | 'processEnv'>> {
  config: ConfigFile;
  input: Readable;
  output: Writable;
  /** A terminal: prompt and live progress. Default: `input.isTTY`. */
  interactive?: boolean;
  /** Who types: the id remediation.responders must list for the buttons that change something. Default `you`. */
  user?: string;
  /** The terminal's first line and its line on leaving (the shell adapter has defaults). */
  greeting?: string;
  farewell?: string;
  /** Where pictures (charts) are written; default the system's temp dir's etcd-doctor-files/. */
  fileDir?: string;
  doctor?: Doctor;
  /** Stops early (Ctrl-C, SIGTERM). */
  signal?: AbortSignal;
  /** Serve /healthz, /readyz and /metrics here (`etcd-doctor serve` with PORT set). */
  listen?: { port: number; host: string };
  /** MCP_TOKEN: with `listen`, /mcp is served too (never without a token). */
  mcpToken?: Secret | undefined;
}

/**
 * The whole product without Slack (`etcd-doctor serve` with no Slack tokens, `npm run demo`): the
 * shell chat, the command layer, the queue and a worker in one process. Piped input runs every
 * command, waits until each has answered, then returns; a terminal runs until Ctrl-D or `exit`.
 * The process's parts (the doctor, Redis) are built once, here: the roles and /mcp both run on them.
 */
export async function runShell(opts: RunShellOptions): Promise<void> {
  let roles: RunningRoles | undefined;
  const setup = shellSetup(opts);
  const { logger } = setup;
  const interactive = opts.interactive ?? Boolean((opts.input as { isTTY?: boolean }).isTTY);
  const chat = createShellAdapter({
    input: opts.input,
    output: opts.output,
    interactive,
    whenIdle: () => roles?.idle() ?? Promise.resolve(),
    ...(opts.user ? { user: opts.user } : {}),
    ...(opts.greeting ? { greeting: opts.greeting } : {}),
    ...(opts.farewell ? { farewell: opts.farewell } : {}),
    ...(opts.fileDir ? { fileDir: opts.fileDir } : {}),
  });
  const parts = createProcessParts({ ...setup, ...(opts.doctor ? { doctor: opts.doctor } : {}) });
  roles = await startRoles({ ...setup, role: 'serve', chat }, parts);
  const started = roles;
  let server: HttpServer | undefined;
  let mcp: McpHttp | undefined;
  if (opts.listen) {
    mcp = installMcpHttp(mcpHttpOptions(setup, parts, opts.mcpToken));
    server = await startHttpServer({
      ...opts.listen,
      routes: [
        ...healthRoutes({ redis: () => started.redisReady() }),
        ...(setup.metrics ? [metricsRoute(setup.metrics)] : []),
        ...mcp.routes,
      ],
    }).catch(async (err: unknown) => {
      await started.stop();
      throw err;
    });
    const routes = `/healthz, /readyz and /metrics${mcp.routes.length ? ', and /mcp' : ''}`;
    logger.info({ ...server.address() }, `serving ${routes}`);
  }
  try {
    const lines = await Promise.race([chat.finished, whenAborted(opts.signal).then(() => undefined)]);
    if (lines !== undefined && server && !interactive) {
      // stdin closed (`serve </dev/null`, a container without a tty): the HTTP routes are the service;
      // in a terminal, Ctrl-D or exit still means leave.
      logger.info({}, 'stdin ended: the shell takes no more commands; HTTP is still served until SIGTERM');
      await whenAborted(opts.signal);
    } else if (lines === 0)
      logger.warn(
        {},
        'stdin ended before any command and PORT is not set, so there is nothing to serve: type commands on stdin, set PORT for /healthz, /metrics and /mcp, or set SLACK_BOT_TOKEN for Slack',
      );
  } finally {
    await roles.stop();
    await server?.close();
  }
}

/** The setup of the shell's process, with the local defaults filled in. */
function shellSetup(opts: RunShellOptions): RoleSetup {
  return {
    config: opts.config,
    redisUrl: opts.redisUrl ?? 'redis://127.0.0.1:6379',
    queuePrefix: opts.queuePrefix ?? DEFAULT_QUEUE_PREFIX,
    logger: opts.logger ?? silentLogger,
    ...(opts.tuning ? { tuning: opts.tuning } : {}),
    ...(opts.metrics ? { metrics: opts.metrics } : {}),
    ...(opts.signingKey ? { signingKey: opts.signingKey } : {}),
  };
}
