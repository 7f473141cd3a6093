import { runCli } from '../../../src/cli.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The CLI's own entry (runCli) in this process: the same parsing, config loading, doctor and exit
 * codes as `npx etcd-doctor`, without a Node start-up per call. Tests that must see the real
 * process's stderr spawn bin/etcd-doctor.js instead.
 */
export async function cliInProcess(argv: string[], env: Record<string, string> = {}): Promise<CliResult> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli({
    argv,
    env,
    stdout: (text) => out.push(text),
    stderr: (text) => err.push(text),
  });
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}
