import { readFile, writeFile } from 'node:fs/promises';
import { redactUrlCredentials } from './secret.js';
import type { Readable, Writable } from 'node:stream';
import { Command, CommanderError, Option } from 'commander';
import { saveChart } from './charts/save-chart.js';
import { createSlackAdapter } from './chat/slack/slack-adapter.js';
import { runAuditCommand } from './audit/audit-command.js';
import { createRedisConnections } from './clients/redis.js';
import { DEFAULT_CONFIG_PATH, loadConfig, parseEnv } from './config/load-config.js';
import { runDigestNow } from './digest/digest-now.js';
import { createDoctor } from './doctor.js';
import { describeError, EtcdDoctorError, isEtcdDoctorError } from './errors.js';
import { createLogger } from './logger.js';
import { createMetrics } from './metrics/metrics.js';
import { type McpCommandOptions, runMcpCommand } from './mcp/mcp-command.js';
import { type AnalyzeCommandOptions, runAnalyzeCommand } from './offline/analyze-command.js';
import type { ProbeDepth } from './probes/collect-evidence.js';
import type { Evidence } from './probes/evidence.js';
import type { DiagnosisReport } from './report/diagnosis-report.js';
import { renderText } from './report/render-text.js';
import { runRole } from './roles/run-role.js';
import { DEFAULT_QUEUE_PREFIX, type Role } from './roles/start-roles.js';

/**
 * Exit codes (DESIGN.md): 0 healthy, 1 degraded or critical, 2 usage or config error, 3 could not
 * check (etcd-doctor's own access failed: TLS, credentials, URLs, network path; status `unknown`).
 */
export const EXIT = { healthy: 0, unhealthy: 1, usage: 2, couldNotCheck: 3 } as const;

export interface CliIo {
  argv: string[];
  env: Record<string, string | undefined>;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** For the process roles (bot, worker, serve): the shell chat reads stdin and writes stdout. */
  stdin?: Readable;
  stdoutStream?: Writable;
  /** stdin is a terminal. */
  interactive?: boolean;
  /** Starts listening for SIGINT/SIGTERM; the signal aborts on either, and the roles shut down. */
  shutdownSignal?: () => AbortSignal;
}

interface CheckOptions {
  config?: string;
  json?: boolean;
  explain?: boolean;
  /** diagnose only: also write a PNG chart of the finding's metric here. */
  chart?: string;
}

export function exitCodeFor(report: DiagnosisReport): number {
  if (report.status === 'healthy') return EXIT.healthy;
  if (report.status === 'unknown') return EXIT.couldNotCheck;
  return EXIT.unhealthy;
}

async function runCheck(
  depth: ProbeDepth,
  clusterName: string,
  options: CheckOptions,
  io: CliIo,
): Promise<number> {
  const path = options.config ?? io.env.ETCD_DOCTOR_CONFIG ?? DEFAULT_CONFIG_PATH;
  const config = await loadConfig(path, { readFile: (p) => readFile(p, 'utf8') });
  const doctor = createDoctor({ config, readFileBuffer: (p) => readFile(p) });
  try {
    let evidence: Evidence | undefined;
    const report = await doctor.run(clusterName, depth, {
      explain: options.explain ?? false,
      onEvidence: (e) => {
        evidence = e;
      },
    });
    io.stdout(options.json ? JSON.stringify(report, null, 2) : renderText(report));
    // On stderr, so --json output stays one JSON document.
    if (options.chart && evidence) io.stderr(await saveChart(options.chart, report, evidence, writeFile));
    return exitCodeFor(report);
  } finally {
    await doctor.close();
  }
}

interface RoleOptions {
  config?: string;
  queuePrefix: string;
}

async function runProcessRole(role: Role, options: RoleOptions, io: CliIo): Promise<number> {
  const env = parseEnv(io.env);
  if (!env.ok) throw new EtcdDoctorError('config_invalid', env.error);
  const path = options.config ?? io.env.ETCD_DOCTOR_CONFIG ?? DEFAULT_CONFIG_PATH;
  const config = await loadConfig(path, { readFile: (p) => readFile(p, 'utf8') });
  if (!io.stdin || !io.stdoutStream || !io.shutdownSignal)
    throw new Error(`etcd-doctor ${role}: no stdin/stdout/shutdown given`);
  // The shell chat owns the terminal: only warnings go to stderr unless LOG_LEVEL says otherwise.
  const shell = !env.value.SLACK_BOT_TOKEN;
  const level = shell && io.env.LOG_LEVEL === undefined ? 'warn' : env.value.LOG_LEVEL;
  await runRole({
    role,
    env: env.value,
    rawEnv: io.env,
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

interface DigestOptions {
  now: true;
  channel?: string;
  config?: string;
  queuePrefix: string;
}

/** Redis answers PING within this long, or the digest goes out without trends. */
const DIGEST_REDIS_WAIT_MS = 2000;

async function runDigestCommand(options: DigestOptions, io: CliIo): Promise<number> {
  const env = parseEnv(io.env);
  if (!env.ok) throw new EtcdDoctorError('config_invalid', env.error);
  const path = options.config ?? io.env.ETCD_DOCTOR_CONFIG ?? DEFAULT_CONFIG_PATH;
  const config = await loadConfig(path, { readFile: (p) => readFile(p, 'utf8') });
  const logger = createLogger(io.env.LOG_LEVEL === undefined ? 'warn' : env.value.LOG_LEVEL);
  const connections = createRedisConnections(env.value.REDIS_URL);
  const redis = connections.connect('etcd-doctor-digest-now');
  redis.on('error', () => undefined);
  const timeout = new Promise<'timeout'>((resolve) =>
    setTimeout(resolve, DIGEST_REDIS_WAIT_MS, 'timeout').unref(),
  );
  const up = (await Promise.race([redis.ping().catch(() => 'down'), timeout])) === 'PONG';
  if (!up)
    io.stderr(
      `etcd-doctor: Redis at ${redactUrlCredentials(env.value.REDIS_URL)} does not answer; the digest has no trends`,
    );
  const token = env.value.SLACK_BOT_TOKEN;
  const chat = token
    ? createSlackAdapter({
        botToken: token,
        ...(env.value.SLACK_API_URL ? { apiUrl: env.value.SLACK_API_URL } : {}),
        logger,
      })
    : undefined;
  const doctor = createDoctor({ config, readFileBuffer: (p) => readFile(p) });
  try {
    const results = await runDigestNow({
      config,
      doctor,
      redis: up ? redis : undefined,
      prefix: options.queuePrefix,
      chat,
      print: io.stdout,
      ...(options.channel ? { channel: options.channel } : {}),
      logger,
      now: Date.now,
    });
    if (chat) for (const r of results) io.stdout(`digest sent to ${r.channel}`);
    return EXIT.healthy;
  } finally {
    await doctor.close();
    connections.shutdown();
  }
}

export function buildProgram(io: CliIo, setExit: (code: number) => void): Command {
  const program = new Command('etcd-doctor')
    .description('Names the root cause of etcd and Kubernetes control-plane incidents.')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout(s.trimEnd()), writeErr: (s) => io.stderr(s.trimEnd()) })
    .showHelpAfterError('(run etcd-doctor --help for usage)');

  const check = (name: ProbeDepth, description: string) => {
    const cmd = program
      .command(name)
      .description(description)
      .argument('<cluster>', 'cluster name from the config file')
      .addOption(
        new Option(
          '-c, --config <file>',
          `clusters file (default $ETCD_DOCTOR_CONFIG or ${DEFAULT_CONFIG_PATH})`,
        ),
      )
      .option('--json', 'print the JSON report (stable contract)');
    if (name === 'diagnose')
      cmd
        .option('--explain', 'print, for every rule, why it fired or not')
        .option('--chart <file>', "also write a PNG chart of the finding's metric per member");
    cmd.action(async (cluster: string, options: CheckOptions) =>
      setExit(await runCheck(name, cluster, options, io)),
    );
  };
  check('health', 'fast per-member health: reachable, leader, took, DB size, alarms');
  check('diagnose', 'every probe, then the rules: the root cause first, with evidence and remediation');

  program
    .command('analyze')
    .description(
      'the same rules on collected evidence: log files (- for stdin), a must-gather, a kubectl cluster-info dump',
    )
    .argument(
      '<path...>',
      'log files (one per member), -, a must-gather directory or tarball, a cluster-info dump',
    )
    .option('--json', 'print the JSON report (the diagnose contract plus source and timeline)')
    .option('--explain', 'print, for every rule, why it fired, stayed quiet or was not evaluated offline')
    .action(async (paths: string[], options: AnalyzeCommandOptions) =>
      setExit(exitCodeFor(await runAnalyzeCommand(paths, options, io))),
    );

  const role = (name: Role, description: string) => {
    program
      .command(name)
      .description(description)
      .addOption(
        new Option(
          '-c, --config <file>',
          `clusters file (default $ETCD_DOCTOR_CONFIG or ${DEFAULT_CONFIG_PATH})`,
        ),
      )
      .option(
        '--queue-prefix <prefix>',
        'Redis key prefix of the job queue; deployments sharing a Redis use their own',
        DEFAULT_QUEUE_PREFIX,
      )
      .action(async (options: RoleOptions) => setExit(await runProcessRole(name, options, io)));
  };
  role('bot', 'the chat side: receives /etcd commands and queues jobs (Slack; needs Redis)');
  role('worker', 'runs queued probes and diagnoses and posts the answers (needs Redis)');
  role('serve', 'bot and worker in one process; the shell chat when no Slack tokens are set');

  program
    .command('digest')
    .description('the daily health digest, now: to Slack (SLACK_BOT_TOKEN) or printed')
    .requiredOption('--now', 'send it now, outside the schedule')
    .option('--channel <channel>', 'only this channel (default: every subscribed channel)')
    .addOption(
      new Option(
        '-c, --config <file>',
        `clusters file (default $ETCD_DOCTOR_CONFIG or ${DEFAULT_CONFIG_PATH})`,
      ),
    )
    .option('--queue-prefix <prefix>', 'Redis key prefix of the deployment', DEFAULT_QUEUE_PREFIX)
    .action(async (options: DigestOptions) => setExit(await runDigestCommand(options, io)));

  program
    .command('mcp')
    .description(
      'the Model Context Protocol on stdio: read-only tools for AI assistants (HolmesGPT, IDE agents)',
    )
    .addOption(
      new Option(
        '-c, --config <file>',
        `clusters file (default $ETCD_DOCTOR_CONFIG or ${DEFAULT_CONFIG_PATH})`,
      ),
    )
    .option(
      '--queue-prefix <prefix>',
      'Redis key prefix of the deployment (its audit trail)',
      DEFAULT_QUEUE_PREFIX,
    )
    .action(async (options: McpCommandOptions) => {
      await runMcpCommand(options, io);
      setExit(EXIT.healthy);
    });

  program
    .command('audit')
    .description('print the remediation audit trail (who pressed what, when, and the outcome)')
    .option('--cluster <cluster>', 'only this cluster')
    .option('--since <duration>', 'how far back: 30m, 1h, 7d', '24h')
    .option('--json', 'one JSON object per line')
    .option('--queue-prefix <prefix>', 'Redis key prefix of the deployment', DEFAULT_QUEUE_PREFIX)
    .action(async (options: AuditOptions) => {
      const env = parseEnv(io.env);
      if (!env.ok) throw new EtcdDoctorError('config_invalid', env.error);
      await runAuditCommand(
        {
          redisUrl: env.value.REDIS_URL,
          prefix: options.queuePrefix,
          ...(options.cluster ? { cluster: options.cluster } : {}),
          ...(options.since ? { since: options.since } : {}),
          ...(options.json ? { json: true } : {}),
        },
        io.stdout,
      );
      setExit(EXIT.healthy);
    });
  return program;
}

interface AuditOptions {
  cluster?: string;
  since?: string;
  json?: boolean;
  queuePrefix: string;
}

export async function runCli(io: CliIo): Promise<number> {
  let code: number = EXIT.healthy;
  const program = buildProgram(io, (c) => {
    code = c;
  });
  try {
    await program.parseAsync(io.argv, { from: 'user' });
    return code;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : EXIT.usage;
    io.stderr(`etcd-doctor: ${describeError(err)}`);
    return isEtcdDoctorError(err) ? EXIT.usage : EXIT.unhealthy;
  }
}
