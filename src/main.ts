import { runCli } from './cli.js';

/**
 * Composition root: the only module that reads process.env and process.argv.
 * `bin/etcd-doctor.js` imports this file.
 */
export async function main(): Promise<void> {
  // A reader that stops early (`etcd-doctor digest --now | head -3`) closes the pipe: end quietly
  // with the command's code so far, as Unix tools do, not with an unhandled 'error' event's trace.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
    process.exit(process.exitCode ?? 0);
  });
  const shutdown = new AbortController();
  const stop = () => shutdown.abort();
  process.exitCode = await runCli({
    argv: process.argv.slice(2),
    env: process.env,
    stdout: (text) => process.stdout.write(`${text}\n`),
    stderr: (text) => process.stderr.write(`${text}\n`),
    stdin: process.stdin,
    stdoutStream: process.stdout,
    interactive: Boolean(process.stdin.isTTY),
    // Only the long-running roles ask for this; Ctrl-C keeps killing a one-shot health check.
    shutdownSignal: () => {
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      return shutdown.signal;
    },
  });
  process.off('SIGINT', stop);
  process.off('SIGTERM', stop);
}

await main();
