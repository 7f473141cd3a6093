import { readFile } from 'node:fs/promises';
import { loadConfigFor } from '../config/load-config.js';
import { createDoctor } from '../doctor.js';
import { terminalSafe } from '../format.js';
import { recoveryPlanFor } from '../lifecycle/gather-recovery.js';
import { recoveryLines } from '../lifecycle/render-recovery.js';
import { type CliIo, EXIT } from './io.js';

export interface RecoverOptions {
  config?: string;
  json?: boolean;
}

/**
 * `etcd-doctor recover <cluster>`: the plan to get quorum back (src/lifecycle/recovery-plan.ts);
 * it runs none of the steps. Exit 1 with a plan (the cluster lost quorum), 2 for usage (an unknown
 * cluster, or a cluster that has quorum: one line saying what to run instead), 3 when nothing
 * answered and there is no backup.
 */
export async function runRecoverCommand(
  clusterName: string,
  options: RecoverOptions,
  io: CliIo,
): Promise<number> {
  const config = await loadConfigFor(options.config, io.env);
  const doctor = createDoctor({ config, readFileBuffer: (p) => readFile(p) });
  try {
    doctor.cluster(clusterName); // throws cluster_unknown, listing the known ones
    const out = await recoveryPlanFor({ doctor }, clusterName);
    if (out.kind === 'has-quorum') {
      io.stderr(out.line);
      return EXIT.usage;
    }
    if (out.kind === 'could-not-check') {
      io.stderr(out.line);
      return EXIT.couldNotCheck;
    }
    if (options.json) io.stdout(JSON.stringify(out.plan, null, 2));
    else io.stdout(recoveryLines(out.plan).map(terminalSafe).join('\n'));
    return EXIT.unhealthy;
  } finally {
    await doctor.close();
  }
}
