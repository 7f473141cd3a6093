import type { HttpGet } from '../clients/http.js';
import type { ClusterConfig } from '../config/schema.js';
import { metricsUrlOf } from './member-targets.js';
import type { EtcdMetricsSnapshot } from './etcd-metrics.js';
import type { ScrapeMemory } from './member-context.js';
import { scrapeMetrics } from './metrics.js';

/**
 * The first /metrics scrape of each configured member, taken before a digest's run of the cluster:
 * only the numbers the rules read are kept (the snapshot: a few histograms' buckets and counters,
 * a few kB), so a cluster waiting out its metrics window holds no channel, socket or page of text.
 * The run scrapes once more and compares (probes/metrics.ts, `firstScrapes`).
 */
export interface FirstScrapes extends ScrapeMemory {
  firstScrapes: true;
  /** When the window is over (Date.now() ms): a window after the last kept scrape was read. */
  readyAtMs: number;
  /** How many members have a kept scrape. */
  kept: number;
}

/**
 * Scrapes every configured member at once. A member whose scrape fails keeps none: the run then
 * scrapes it twice around the window, so its failure (or its window) reads exactly as without a
 * digest. Undefined when no member has a kept scrape.
 */
export async function takeFirstScrapes(
  cluster: ClusterConfig,
  io: { httpGet: HttpGet; now: () => number },
  settings: { timeoutMs: number; windowMs: number },
): Promise<FirstScrapes | undefined> {
  const kept = new Map<string, EtcdMetricsSnapshot>();
  const never = new AbortController().signal;
  await Promise.all(
    (cluster.etcd.endpoints ?? []).map(async (endpoint, i) => {
      const url = metricsUrlOf(cluster, endpoint, i);
      const snapshot = await scrapeMetrics(io, url, never, settings.timeoutMs).catch(() => undefined);
      if (snapshot) kept.set(url, snapshot);
    }),
  );
  if (kept.size === 0) return undefined;
  return {
    firstScrapes: true,
    readyAtMs: Math.max(...[...kept.values()].map((s) => s.scrapedAtMs)) + settings.windowMs,
    kept: kept.size,
    previous: async (url) => kept.get(url),
    // The run's own scrape is not kept: the window is over once the run has it.
    keep: async () => undefined,
  };
}
