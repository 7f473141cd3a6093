import { readFile } from 'node:fs/promises';
import { Command, CommanderError, Option } from 'commander';
import { DEFAULT_CONFIG_PATH, loadConfig } from './config/load-config.js';
import { createDoctor } from './doctor.js';
import { describeError, isEtcdDoctorError } from './errors.js';
import type { ProbeDepth } from './probes/collect-evidence.js';
import type { DiagnosisReport } from './report/diagnosis-report.js';
import { renderText } from './report/render-text.js';

/** Exit codes (DESIGN.md): 0 healthy, 1 degraded or critical, 2 usage or config error. */
export const EXIT = { healthy: 0, unhealthy: 1, usage: 2 } as const;

export interface CliIo {
  argv: string[];
  env: Record<string, string | undefined>;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

interface CheckOptions {
  config?: string;
  json?: boolean;
  explain?: boolean;
}

export function exitCodeFor(report: DiagnosisReport): number {
  if (report.status === 'healthy') return EXIT.healthy;
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
    const report = await doctor.run(clusterName, depth, { explain: options.explain ?? false });
    io.stdout(options.json ? JSON.stringify(report, null, 2) : renderText(report));
    return exitCodeFor(report);
  } finally {
    await doctor.close();
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
    if (name === 'diagnose') cmd.option('--explain', 'print, for every rule, why it fired or not');
    cmd.action(async (cluster: string, options: CheckOptions) =>
      setExit(await runCheck(name, cluster, options, io)),
    );
  };
  check('health', 'fast per-member health: reachable, leader, took, DB size, alarms');
  check('diagnose', 'every probe, then the rules: the root cause first, with evidence and remediation');
  return program;
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
