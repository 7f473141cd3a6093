import type { MetricsData } from './evidence.js';
import { compareSnapshots, createMetricsLineFilter, type EtcdMetricsSnapshot } from './etcd-metrics.js';
import type { MemberProbeContext, ScrapeMemory } from './member-context.js';
import { deadlineSignal, formatSeconds, ProbeError, type Probe } from './probe.js';

/**
 * Two scrapes of the member's /metrics, `metricsWindowMs` apart, so the fsync and commit p99
 * describe the last few seconds rather than the member's whole life. When the window holds
 * too few fsyncs (no writes), the since-start histogram is used and says so.
 */
export function createMetricsProbe(
  timeoutMs: number,
  windowMs: number,
): Probe<MemberProbeContext, MetricsData> {
  return {
    kind: 'metrics',
    asks: 'GET /metrics',
    // Two scrapes and the window between them; each scrape also has its own deadline below.
    timeoutMs: 2 * timeoutMs + windowMs,
    async collect(ctx, signal) {
      const first = await scrape(ctx, signal, timeoutMs);
      if (ctx.scrapes) return againstPrevious(ctx, ctx.scrapes, first);
      if (ctx.metricsWindowMs <= 0) return compareSnapshots(undefined, first);
      await ctx.sleep(ctx.metricsWindowMs, signal);
      const second = await scrape(ctx, signal, timeoutMs);
      return compareSnapshots(first, second);
    },
  };
}

/**
 * A watch check: the window runs from the previous check's scrape to this one. A kept scrape that
 * cannot be read (Redis away) or is not older than this one gives the since-start figures, as a
 * first check does; this scrape is kept for the next check either way.
 */
async function againstPrevious(
  ctx: MemberProbeContext,
  scrapes: ScrapeMemory,
  now: EtcdMetricsSnapshot,
): Promise<MetricsData> {
  const url = ctx.target.metricsUrl;
  const previous = await scrapes.previous(url).catch(() => undefined);
  await scrapes.keep(url, now).catch(() => undefined);
  const usable = previous !== undefined && previous.scrapedAtMs < now.scrapedAtMs ? previous : undefined;
  return compareSnapshots(usable, now);
}

/** Each scrape has its own deadline, so a hung member fails in `timeoutMs`, not `2 × timeoutMs + window`. */
async function scrape(
  ctx: MemberProbeContext,
  signal: AbortSignal,
  timeoutMs: number,
): Promise<EtcdMetricsSnapshot> {
  const deadline = deadlineSignal(timeoutMs);
  let res: Awaited<ReturnType<typeof ctx.httpGet>>;
  // Only the lines the rules read are kept, as they arrive.
  const filter = createMetricsLineFilter();
  try {
    res = await ctx.httpGet(ctx.target.metricsUrl, AbortSignal.any([signal, deadline.signal]), {
      onLine: filter.line,
    });
  } catch (err) {
    if (deadline.signal.aborted)
      throw new ProbeError('timeout', `did not answer GET /metrics in ${formatSeconds(timeoutMs)}`);
    throw err;
  } finally {
    deadline.clear();
  }
  if (res.status === 401 || res.status === 403) {
    throw new ProbeError(
      'forbidden',
      `refused /metrics with HTTP ${res.status} (needs a client certificate?)`,
    );
  }
  if (res.status !== 200) throw new ProbeError('error', `answered /metrics with HTTP ${res.status}`);
  const parsed = filter.parse(ctx.now());
  if (!parsed.ok)
    throw new ProbeError('error', `sent /metrics that are not Prometheus text: ${parsed.error}`);
  return parsed.snapshot;
}
