import { runCli } from './cli.js';

/**
 * Composition root: the only module that reads process.env and process.argv.
 * `bin/etcd-doctor.js` imports this file.
 */
export async function main(): Promise<void> {
  process.exitCode = await runCli({
    argv: process.argv.slice(2),
    env: process.env,
    stdout: (text) => process.stdout.write(`${text}\n`),
    stderr: (text) => process.stderr.write(`${text}\n`),
  });
}

await main();
