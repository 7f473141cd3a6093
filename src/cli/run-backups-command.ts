import { readFile } from 'node:fs/promises';
import { loadConfigFor } from '../config/load-config.js';
import type { BackupsJson, FindingJson } from '../contracts/report-json.js';
import { createDoctor } from '../doctor.js';
import { EtcdDoctorError } from '../errors.js';
import { backupsLines } from '../report/backups-view.js';
import { terminalSafe } from '../format.js';
import { type CliIo, EXIT } from './io.js';

export interface BackupsOptions {
  config?: string;
  json?: boolean;
}

/** `etcd-doctor backups <cluster> --json`: the listing (report-json.ts BackupsJson) and the verdict. */
export type BackupsCommandJson = BackupsJson & { finding: FindingJson | null };

/**
 * `etcd-doctor backups <cluster>`: a health check that also reads every listed snapshot, printed.
 * Exit 0 when the newest good backup is within `maxAgeHours`, 1 for `backup-stale` (warning), 2 for
 * usage or config (no `backups`), 3 when neither the directory nor the jobs could be read.
 */
export async function runBackupsCommand(
  clusterName: string,
  options: BackupsOptions,
  io: CliIo,
): Promise<number> {
  const config = await loadConfigFor(options.config, io.env);
  const doctor = createDoctor({ config, readFileBuffer: (p) => readFile(p) });
  try {
    if (!doctor.cluster(clusterName).backups)
      throw new EtcdDoctorError(
        'config_invalid',
        `cluster "${clusterName}" has no backups in the config: add backups: { dir: /path/to/snapshots } to it`,
      );
    const report = await doctor.run(clusterName, 'health', { backups: true });
    const b = report.backups;
    if (!b) throw new Error(`no backups were read for ${clusterName}`);
    const finding = report.findings.find((f) => f.cause === 'backup-stale') ?? null;
    if (options.json) io.stdout(JSON.stringify({ ...b, finding } satisfies BackupsCommandJson, null, 2));
    else io.stdout(backupsLines(report).map(terminalSafe).join('\n'));
    if (finding && finding.severity !== 'info') return EXIT.unhealthy;
    const read = (b.dir !== null && b.error === null) || b.jobs !== null;
    return read ? EXIT.healthy : EXIT.couldNotCheck;
  } finally {
    await doctor.close();
  }
}
