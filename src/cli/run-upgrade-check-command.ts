import { readFile } from 'node:fs/promises';
import { loadConfigFor } from '../config/load-config.js';
import { createDoctor } from '../doctor.js';
import { terminalSafe } from '../format.js';
import { checkUpgrade, parseTarget } from '../lifecycle/gather-upgrade.js';
import { upgradeLines } from '../lifecycle/render-upgrade.js';
import { type CliIo, EXIT } from './io.js';

export interface UpgradeCheckOptions {
  config?: string;
  json?: boolean;
  to: string;
}

/**
 * `etcd-doctor upgrade-check <cluster> --to <minor>`: whether the cluster can go to that etcd minor
 * now (src/lifecycle/). Exit 0 ready, 1 not ready, 2 usage (an unknown cluster, a target that is no
 * known minor), 3 when no member answered.
 */
export async function runUpgradeCheckCommand(
  clusterName: string,
  options: UpgradeCheckOptions,
  io: CliIo,
): Promise<number> {
  parseTarget(options.to); // a bad --to is refused before anything is read
  const config = await loadConfigFor(options.config, io.env);
  const readFileBuffer = (p: string) => readFile(p);
  const doctor = createDoctor({ config, readFileBuffer });
  try {
    doctor.cluster(clusterName); // throws cluster_unknown, listing the known ones
    const { result, report } = await checkUpgrade(
      { doctor, config, readFileBuffer },
      clusterName,
      options.to,
    );
    if (!result) {
      io.stderr(
        `could not check ${clusterName}: no member answered Status (etcd-doctor health ${clusterName} says why)`,
      );
      return EXIT.couldNotCheck;
    }
    if (options.json) io.stdout(JSON.stringify(result, null, 2));
    else io.stdout(upgradeLines(result).map(terminalSafe).join('\n'));
    void report;
    return result.ready ? EXIT.healthy : EXIT.unhealthy;
  } finally {
    await doctor.close();
  }
}
