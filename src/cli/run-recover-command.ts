import { readFile } from 'node:fs/promises';
import { loadConfigFor, requireEnv } from '../config/load-config.js';
import { redisPlaceFromEnv } from '../config/redis-target.js';
import type { ConfigFile } from '../config/schema.js';
import { isWatched } from '../config/watched.js';
import { createDoctor } from '../doctor.js';
import { terminalSafe } from '../format.js';
import { type LastKnownReader, recoveryPlanFor } from '../lifecycle/gather-recovery.js';
import { DEFAULT_QUEUE_PREFIX } from '../roles/role-options.js';
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
    const lastKnown = watchHistoryReader(config, clusterName, io);
    const out = await recoveryPlanFor({ doctor, ...(lastKnown ? { lastKnown } : {}) }, clusterName);
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

/**
 * A watched cluster's members as the watch last saw them, from its minute history in the
 * deployment's Redis (read as `diagnose` reads since when, cli/run-check.ts): the plan shows a down
 * member's last revision, term and index. Unwatched clusters have none: ioredis is not loaded.
 */
function watchHistoryReader(config: ConfigFile, clusterName: string, io: CliIo): LastKnownReader | undefined {
  if (!isWatched(config, clusterName)) return undefined;
  // Read when asked, never before: a plan without the history is still a plan (gather-recovery.ts).
  return async (cluster, now) => {
    const place = redisPlaceFromEnv(requireEnv(io.env), DEFAULT_QUEUE_PREFIX);
    const [{ readCheckHistory }, { lastKnownStates }] = await Promise.all([
      import('../history/watch-history.js'),
      import('../history/last-known.js'),
    ]);
    const read = await readCheckHistory(place.target, place.prefix, cluster, now);
    if (read.note) io.stderr(`etcd-doctor: ${read.note}`);
    return lastKnownStates(read.samples);
  };
}
