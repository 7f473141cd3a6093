import { readFile, writeFile } from 'node:fs/promises';
import { loadConfigFor, requireEnv } from '../config/load-config.js';
import type { ConfigFile } from '../config/schema.js';
import type { CheckDepth } from '../contracts/check-depth.js';
import { createDoctor } from '../doctor.js';
import type { DiagnosisReport } from '../contracts/report-json.js';
import { isWatched } from '../config/watched.js';
import type { MinuteSample } from '../state/minute-sample.js';
import type { Evidence } from '../probes/evidence.js';
import { renderText } from '../report/render-text.js';
import { DEFAULT_QUEUE_PREFIX } from '../roles/role-options.js';
import { type CliIo, exitCodeFor } from './io.js';
import { redisPlaceFromEnv } from '../config/redis-target.js';

export interface CheckOptions {
  config?: string;
  json?: boolean;
  explain?: boolean;
  /** diagnose only: also write a PNG chart of the finding's metric here. */
  chart?: string;
  /** diagnose only: the deployment's Redis key prefix, where the watch keeps its minute history. */
  queuePrefix?: string;
}

/** `etcd-doctor health|diagnose <cluster>`: one check, printed. Loads no chat, queue or Redis code. */
export async function runCheck(
  depth: CheckDepth,
  clusterName: string,
  options: CheckOptions,
  io: CliIo,
): Promise<number> {
  const config = await loadConfigFor(options.config, io.env);
  const doctor = createDoctor({ config, readFileBuffer: (p) => readFile(p) });
  try {
    let evidence: Evidence | undefined;
    const checked = await doctor.run(clusterName, depth, {
      explain: options.explain ?? false,
      onEvidence: (e) => {
        evidence = e;
      },
    });
    const { report, samples } = await withWatchSinceWhen(checked, config, options, io);
    io.stdout(options.json ? JSON.stringify(report, null, 2) : renderText(report));
    // On stderr, so --json output stays one JSON document. Vega and resvg load only for --chart.
    if (options.chart && evidence) {
      const { saveChart } = await import('../charts/save-chart.js');
      io.stderr(await saveChart(options.chart, report, evidence, writeFile, samples));
    }
    return exitCodeFor(report);
  } finally {
    await doctor.close();
  }
}

/**
 * A diagnosis of a watched cluster says since when, from the watch's minute history in Redis (and
 * its chart spans the history's last hour), read as doctorFor's `mcp` role reads it
 * (history/doctor-for.ts), after the run since the chart wants the samples too. Unwatched clusters
 * have none: ioredis is not loaded.
 */
async function withWatchSinceWhen(
  report: DiagnosisReport,
  config: ConfigFile,
  options: CheckOptions,
  io: CliIo,
): Promise<{ report: DiagnosisReport; samples: MinuteSample[] }> {
  if (report.kind !== 'diagnose' || !isWatched(config, report.cluster)) return { report, samples: [] };
  const { withWatchHistory } = await import('../history/watch-history.js');
  const place = redisPlaceFromEnv(requireEnv(io.env), options.queuePrefix ?? DEFAULT_QUEUE_PREFIX);
  const where = { redisUrl: place.target, prefix: place.prefix };
  const read = await withWatchHistory(report, config, where, Date.now());
  if (read.note) io.stderr(`etcd-doctor: ${read.note}`);
  return read;
}
