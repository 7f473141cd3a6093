import { readFile } from 'node:fs/promises';
import { loadConfigFor } from '../config/load-config.js';
import { createDoctor } from '../doctor.js';
import { runWatchCli } from './watch-cli.js';
import { type CliIo, EXIT, exitCodeFor } from './io.js';

export interface WatchOptions {
  config?: string;
  interval?: string;
}

/** `etcd-doctor watch <cluster>`: a frame per check until Ctrl-C (src/cli/watch-cli.ts). */
export async function runWatchCommand(cluster: string, options: WatchOptions, io: CliIo): Promise<number> {
  const interval = options.interval === undefined ? undefined : Number(options.interval);
  if (interval !== undefined && !(Number.isInteger(interval) && interval >= 5)) {
    io.stderr(
      `etcd-doctor: --interval must be a whole number of seconds, at least 5 (got "${options.interval}")`,
    );
    return EXIT.usage;
  }
  const config = await loadConfigFor(options.config, io.env);
  const doctor = createDoctor({ config, readFileBuffer: (p) => readFile(p) });
  try {
    const last = await runWatchCli({
      cluster,
      config,
      doctor,
      ...(interval ? { intervalSeconds: interval } : {}),
      stdout: io.stdout,
      signal: io.shutdownSignal?.() ?? new AbortController().signal,
      clear: io.interactive === true,
    });
    return last ? exitCodeFor(last) : EXIT.healthy;
  } finally {
    await doctor.close();
  }
}
