import { Command, CommanderError, Option } from 'commander';
import { VERSION } from './version.js';
import { DEFAULT_CONFIG_PATH, requireEnv } from './config/load-config.js';
import type { CheckDepth } from './contracts/check-depth.js';
import { describeError, isEtcdDoctorError } from './errors.js';
import type { McpCommandOptions } from './cli/run-mcp-command.js';
import type { AnalyzeCommandOptions } from './cli/run-analyze-command.js';
import { DEFAULT_QUEUE_PREFIX, type Role } from './roles/role-options.js';
import type { BackupsOptions } from './cli/run-backups-command.js';
import type { CheckOptions } from './cli/run-check.js';
import type { DigestOptions } from './cli/run-digest-command.js';
import type { PreflightOptions } from './cli/run-preflight.js';
import type { RoleOptions } from './cli/run-role-command.js';
import type { SpaceOptions } from './cli/run-space-command.js';
import type { UpgradeCheckOptions } from './cli/run-upgrade-check-command.js';
import type { RecoverOptions } from './cli/run-recover-command.js';
import type { WatchOptions } from './cli/run-watch-command.js';
import { type CliIo, EXIT, exitCodeFor } from './cli/io.js';
import { redisPlaceFromEnv } from './config/redis-target.js';

export { type CliIo, EXIT, exitCodeFor } from './cli/io.js';

/*
 * Each command imports what it runs only when it runs (`import()` in its action), so `health` and
 * `diagnose` never load Bolt, BullMQ, ioredis, prom-client or the chart renderer; the module-graph
 * test (test/integration/cli-module-graph.etcd.test.ts) fails when one comes back.
 */

/** `-c, --config <file>`: every command that reads the clusters file takes it (loadConfigFor). */
const configOption = () =>
  new Option('-c, --config <file>', `clusters file (default $ETCD_DOCTOR_CONFIG or ${DEFAULT_CONFIG_PATH})`);

/** `analyze <path...>`: its logic lives in src/cli/run-analyze-command.ts. */
function addAnalyzeCommand(program: Command, io: CliIo, setExit: (code: number) => void): void {
  program
    .command('analyze')
    .description(
      'the same rules on collected evidence: log files (- for stdin), a must-gather, a kubectl cluster-info dump; or what fills an etcd snapshot (snapshot.db, member/snap/db)',
    )
    .argument(
      '<path...>',
      'log files (one per member), -, a must-gather directory or tarball, a cluster-info dump',
    )
    .option('--json', 'print the JSON report (the diagnose contract plus source and timeline)')
    .option('--explain', 'print, for every rule, why it fired, stayed quiet or was not evaluated offline')
    .action(async (paths: string[], options: AnalyzeCommandOptions) => {
      const result = await (await import('./cli/run-analyze-command.js')).runAnalyzeCommand(
        paths,
        options,
        io,
      );
      // A snapshot that reads is an answer, not a verdict on the cluster (a damaged one throws).
      setExit(result.kind === 'snapshot' ? EXIT.healthy : exitCodeFor(result));
    });
}

/** `etcd-doctor health <cluster>` and `etcd-doctor diagnose <cluster>`: one check, printed. */
function addCheckCommands(program: Command, io: CliIo, setExit: (code: number) => void): void {
  const check = (name: CheckDepth, description: string) => {
    const cmd = program
      .command(name)
      .description(description)
      .argument('<cluster>', 'cluster name from the config file')
      .addOption(configOption())
      .option('--json', 'print the JSON report (stable contract)');
    if (name === 'diagnose')
      cmd
        .option('--explain', 'print, for every rule, why it fired or not')
        .option('--chart <file>', "also write a PNG chart of the finding's metric per member")
        .option(
          '--queue-prefix <prefix>',
          "Redis key prefix of the deployment whose watch history (since when, the chart's last hour) a watched cluster's diagnosis reads",
          DEFAULT_QUEUE_PREFIX,
        );
    cmd.action(async (cluster: string, options: CheckOptions) =>
      setExit(await (await import('./cli/run-check.js')).runCheck(name, cluster, options, io)),
    );
  };
  check('health', 'fast per-member health: reachable, leader, took, DB size, alarms');
  check('diagnose', 'every probe, then the rules: the root cause first, with evidence and remediation');
}

/** `etcd-doctor space <cluster>`: what fills etcd (src/space/), measured live from a follower. */
function addSpaceCommand(program: Command, io: CliIo, setExit: (code: number) => void): void {
  program
    .command('space')
    .description(
      'what fills etcd: keys and bytes per Kubernetes resource and namespace, the largest objects, writes per second; read from a follower, rate-limited',
    )
    .argument('<cluster>', 'cluster name from the config file')
    .addOption(configOption())
    .option('--json', 'print the JSON report (stable contract)')
    .option('--chart <file>', 'also write a PNG bar chart of the largest resources, with the quota line')
    .option(
      '--rate <MB/s>',
      "read at most this many MB per second (default: the cluster's space.bytesPerSecond, else 5)",
    )
    .option(
      '--max-seconds <seconds>',
      "stop the scan after this long (default: the cluster's space.maxScanSeconds, else 120)",
    )
    .action(async (cluster: string, options: SpaceOptions) => {
      const { runSpaceCommand } = await import('./cli/run-space-command.js');
      setExit(await runSpaceCommand(cluster, options, io));
    });
}

/** `etcd-doctor backups <cluster>`: the snapshots in its backup directory, each read (src/cli/run-backups-command.ts). */
function addBackupsCommand(program: Command, io: CliIo, setExit: (code: number) => void): void {
  program
    .command('backups')
    .description('the backup snapshots, newest first: age, size, revision, how far behind, hash ok')
    .argument('<cluster>', 'cluster name from the config file')
    .addOption(configOption())
    .option('--json', 'print the JSON listing (docs/cli.md)')
    .action(async (cluster: string, options: BackupsOptions) => {
      const { runBackupsCommand } = await import('./cli/run-backups-command.js');
      setExit(await runBackupsCommand(cluster, options, io));
    });
}

/** `etcd-doctor upgrade-check <cluster> --to <minor>`: can it go to that etcd minor now (src/lifecycle/). */
function addUpgradeCheckCommand(program: Command, io: CliIo, setExit: (code: number) => void): void {
  program
    .command('upgrade-check')
    .description(
      'can the cluster go to that etcd minor now: one minor at a time, patch level, v2 data, removed flags, learners, failure margin, backup, kubeadm',
    )
    .argument('<cluster>', 'cluster name from the config file')
    .requiredOption('--to <minor>', 'the etcd minor to upgrade to (3.5, 3.6, 3.7)')
    .addOption(configOption())
    .option('--json', 'print the JSON verdict (docs/cli.md)')
    .action(async (cluster: string, options: UpgradeCheckOptions) => {
      const { runUpgradeCheckCommand } = await import('./cli/run-upgrade-check-command.js');
      setExit(await runUpgradeCheckCommand(cluster, options, io));
    });
}

/** `etcd-doctor recover <cluster>`: the plan to get quorum back, which it never runs (src/lifecycle/). */
function addRecoverCommand(program: Command, io: CliIo, setExit: (code: number) => void): void {
  program
    .command('recover')
    .description(
      'after quorum loss: which member to restore from and why, what each choice loses, and the steps (run by you, never by etcd-doctor)',
    )
    .argument('<cluster>', 'cluster name from the config file')
    .addOption(configOption())
    .option('--json', 'print the JSON plan (docs/cli.md)')
    .action(async (cluster: string, options: RecoverOptions) => {
      const { runRecoverCommand } = await import('./cli/run-recover-command.js');
      setExit(await runRecoverCommand(cluster, options, io));
    });
}

/** `etcd-doctor watch <cluster>`: the live terminal view (src/cli/watch-cli.ts). */
function addWatchCommand(program: Command, io: CliIo, setExit: (code: number) => void): void {
  program
    .command('watch')
    .description('a live view of one cluster, checked every watch interval (Ctrl-C to stop)')
    .argument('<cluster>', 'cluster name from the config file')
    .addOption(configOption())
    .option(
      '--interval <seconds>',
      `seconds between checks (default: the cluster's watch.intervalSeconds, else 10)`,
    )
    .action(async (cluster: string, options: WatchOptions) => {
      const { runWatchCommand } = await import('./cli/run-watch-command.js');
      setExit(await runWatchCommand(cluster, options, io));
    });
}

/** The long-running roles: bot, worker, serve (src/roles/). */
function addRoleCommands(program: Command, io: CliIo, setExit: (code: number) => void): void {
  const role = (name: Role, description: string) =>
    program
      .command(name)
      .description(description)
      .addOption(configOption())
      .option(
        '--queue-prefix <prefix>',
        'Redis key prefix of the job queue; deployments sharing a Redis use their own',
        DEFAULT_QUEUE_PREFIX,
      )
      .action(async (options: RoleOptions) => {
        const { runProcessRole } = await import('./cli/run-role-command.js');
        setExit(await runProcessRole(name, options, io));
      });
  role('bot', 'the chat side: receives /etcd commands and queues jobs (Slack; needs Redis)');
  role('worker', 'runs queued probes and diagnoses and posts the answers (needs Redis)');
  role('serve', 'bot and worker in one process; the shell chat when no Slack tokens are set');
  role(
    'analyzer',
    'analyses files shared in chat and nothing else, in pods that need no etcd or Kubernetes credentials (config offline.analysisIn: analyzer; Slack; needs Redis)',
  );
}

/** `etcd-doctor preflight <cluster>`: before opting into remediation (src/remediation/preflight.ts). */
function addPreflightCommand(program: Command, io: CliIo, setExit: (code: number) => void): void {
  program
    .command('preflight')
    .description(
      'before applying components/remediation: refuses a cluster where its admission policies would not be enforced (Kubernetes < 1.30, another identity, other images); run it in a worker pod',
    )
    .argument('<cluster>', 'cluster name from the config file')
    .addOption(configOption())
    .action(async (cluster: string, options: PreflightOptions) => {
      const { runPreflightCommand } = await import('./cli/run-preflight.js');
      setExit(await runPreflightCommand(cluster, options, io));
    });
}

/** The MCP server and the audit trail. */
function addToolCommands(program: Command, io: CliIo, setExit: (code: number) => void): void {
  program
    .command('mcp')
    .description(
      'the Model Context Protocol on stdio: read-only tools for AI assistants (HolmesGPT, IDE agents)',
    )
    .addOption(configOption())
    .option(
      '--queue-prefix <prefix>',
      'Redis key prefix of the deployment (its audit trail)',
      DEFAULT_QUEUE_PREFIX,
    )
    .action(async (options: McpCommandOptions) => {
      const { runMcpCommand } = await import('./cli/run-mcp-command.js');
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
      const { runAuditCommand } = await import('./cli/run-audit-command.js');
      const place = redisPlaceFromEnv(requireEnv(io.env), options.queuePrefix);
      await runAuditCommand(
        {
          redisUrl: place.target,
          prefix: place.prefix,
          ...(options.cluster ? { cluster: options.cluster } : {}),
          ...(options.since ? { since: options.since } : {}),
          ...(options.json ? { json: true } : {}),
        },
        io.stdout,
      );
      setExit(EXIT.healthy);
    });
}

export function buildProgram(io: CliIo, setExit: (code: number) => void): Command {
  const program = new Command('etcd-doctor')
    .description('Names the root cause of etcd and Kubernetes control-plane incidents.')
    .version(`etcd-doctor ${VERSION}`, '-V, --version', 'print the version and exit')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout(s.trimEnd()), writeErr: (s) => io.stderr(s.trimEnd()) })
    .showHelpAfterError('(run etcd-doctor --help for usage)');

  addCheckCommands(program, io, setExit);
  addAnalyzeCommand(program, io, setExit);
  addSpaceCommand(program, io, setExit);

  addRoleCommands(program, io, setExit);
  addWatchCommand(program, io, setExit);
  addBackupsCommand(program, io, setExit);
  addUpgradeCheckCommand(program, io, setExit);
  addRecoverCommand(program, io, setExit);

  program
    .command('digest')
    .description('the daily health digest, now: to Slack (SLACK_BOT_TOKEN) or printed')
    .requiredOption('--now', 'send it now, outside the schedule')
    .option('--channel <channel>', 'only this channel (default: every subscribed channel)')
    .addOption(configOption())
    .option('--queue-prefix <prefix>', 'Redis key prefix of the deployment', DEFAULT_QUEUE_PREFIX)
    .action(async (options: DigestOptions) => {
      const { runDigestCommand } = await import('./cli/run-digest-command.js');
      setExit(await runDigestCommand(options, io));
    });

  addToolCommands(program, io, setExit);
  addPreflightCommand(program, io, setExit);
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
