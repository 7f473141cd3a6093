import { connectOneShot } from '../clients/redis.js';
import type { MinuteSample } from '../history/minute-sample.js';
import { readHistory } from '../history/since-when-report.js';
import { redactUrlCredentials } from '../secret.js';
import { createMinuteHistory } from '../state/minute-history.js';

/** Redis answers within this long, or the diagnosis is printed without since-when. */
const CONNECT_MS = 1000;

/**
 * `diagnose` on a watched cluster: the watch's minute history from the deployment's Redis, for the
 * since-when lines and the chart over the last hour. Loaded only for a watched cluster (the watch
 * is what writes it). Never throws: no history is an answer (`note` says why there is none).
 */
export async function readCheckHistory(
  redisUrl: string,
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
