import { connectOneShot } from '../clients/redis.js';
import type { ConfigFile } from '../config/schema.js';
import type { DiagnosisReport } from '../contracts/report-json.js';
import { redactUrlCredentials } from '../secret.js';
import { createMinuteHistory } from '../state/minute-history.js';
import { isWatched } from '../config/watched.js';
import type { MinuteSample } from '../state/minute-sample.js';
import { addFromHistory, readHistory } from './since-when-report.js';
import type { RedisTarget } from '../config/redis-target.js';

/** Redis answers within this long, or the diagnosis is printed without since-when. */
const CONNECT_MS = 1000;

/**
 * A diagnosis of a watched cluster, read outside the worker (the CLI, MCP): the report with since
 * when from the watch's minute history in the deployment's Redis, and the samples (a chart spans
 * their last hour). Anything else comes back as it was. Never throws.
 */
export async function withWatchHistory(
  report: DiagnosisReport,
  config: ConfigFile,
  where: { redisUrl: RedisTarget; prefix: string },
  now: number,
): Promise<{ report: DiagnosisReport; samples: MinuteSample[]; note?: string }> {
  if (report.kind !== 'diagnose' || !isWatched(config, report.cluster)) return { report, samples: [] };
  const read = await readCheckHistory(where.redisUrl, where.prefix, report.cluster, now);
  return { ...read, report: addFromHistory(report, read.samples, now) };
}

/**
 * `diagnose` on a watched cluster: the watch's minute history from the deployment's Redis, for the
 * since-when lines and the chart over the last hour. Loaded only for a watched cluster (the watch
 * is what writes it). Never throws: no history is an answer (`note` says why there is none).
 */
export async function readCheckHistory(
  redisUrl: RedisTarget,
  prefix: string,
  cluster: string,
  now: number,
): Promise<{ samples: MinuteSample[]; note?: string }> {
  const redis = connectOneShot(redisUrl, CONNECT_MS);
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    const samples = await readHistory(
      createMinuteHistory(redis, prefix, () => now),
      cluster,
      now,
    );
    return { samples };
  } catch (err) {
    return {
      samples: [],
      note: `no watch history: Redis did not answer (${redactUrlCredentials(err instanceof Error ? err.message : String(err))})`,
    };
  } finally {
    redis.disconnect();
  }
}
