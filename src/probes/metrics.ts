import type { HttpGet } from '../clients/http.js';
import type { MetricsData } from './evidence.js';
import { createMetricsLineFilter, type EtcdMetricsSnapshot, type QuantileSummary } from './etcd-metrics.js';
import { compareSnapshots, type EtcdMetricsWindow } from './metrics-window.js';
import { BACKEND_COMMIT_P99_LIMIT_S, WAL_FSYNC_P99_LIMIT_S } from '../etcd/latency-limits.js';
import type { MemberProbeContext, ScrapeMemory } from './member-context.js';
import { deadlineSignal, formatSeconds, ProbeError, type Probe } from './probe.js';

/**
 * A window too thin for a p99 of its own, while the since-start figures are over etcd's bounds,
 * is widened (scraped again from the same first scrape) up to this long in all, so the verdict
 * describes now: a disk that was slow an hour ago and is fine now must not read as slow.
 * A quiet healthy cluster never widens: its since-start figures are under the bounds.
 */
export const WIDEN_WINDOW_MAX_MS = 10_000;

/**
 * Two scrapes of the member's /metrics, `metricsWindowMs` apart, so the fsync and commit p99
 * describe the last few seconds rather than the member's whole life. When the window holds
 * too few fsyncs (few writes) and the member's since-start figures are slow, it is widened (up
 * to WIDEN_WINDOW_MAX_MS); when it is still too thin, the since-start histogram is used and says
 * so, and the rules word it as the past.
 */
export function createMetricsProbe(
  timeoutMs: number,
  windowMs: number,
): Probe<MemberProbeContext, MetricsData> {
  return {
    kind: 'metrics',
    asks: 'GET /metrics',
    // Two scrapes and the window between them; each scrape also has its own deadline below.
    // A widened window (at most WIDEN_WINDOW_MAX_MS from the first scrape) adds one scrape's deadline.
    timeoutMs: 3 * timeoutMs + Math.max(windowMs, WIDEN_WINDOW_MAX_MS),
    async collect(ctx, signal) {
      // The digest took the window's first scrape before the run (digest/diagnose-clusters.ts): the
      // run scrapes once more and judges the window as the two-scrape path below does.
      const kept = ctx.scrapes?.firstScrapes ? await ctx.scrapes.previous(ctx.target.metricsUrl) : undefined;
      if (kept) {
        const second = await scrape(ctx, signal, timeoutMs);
        return widened(ctx, signal, timeoutMs, kept, compareSnapshots(kept, second));
      }
      const first = await scrape(ctx, signal, timeoutMs);
      // A member without a first scrape (discovered by the member list, or its first GET failed)
      // is scraped twice around the window in the run, as without a digest.
      if (ctx.scrapes && !ctx.scrapes.firstScrapes) return againstPrevious(ctx, ctx.scrapes, first);
      if (ctx.metricsWindowMs <= 0) return compareSnapshots(undefined, first);
      await ctx.sleep(ctx.metricsWindowMs, signal);
      const second = await scrape(ctx, signal, timeoutMs);
      return widened(ctx, signal, timeoutMs, first, compareSnapshots(first, second));
    },
  };
}

/**
 * Scrapes again, a window's length at a time, while the window is thin but the since-start
 * figures are slow, until it holds enough or WIDEN_WINDOW_MAX_MS have passed since the first
 * scrape. A scrape that fails meanwhile ends the widening with the window already had.
 */
async function widened(
  ctx: MemberProbeContext,
  signal: AbortSignal,
  timeoutMs: number,
  first: EtcdMetricsSnapshot,
  window: EtcdMetricsWindow,
): Promise<MetricsData> {
  const step = Math.max(ctx.metricsWindowMs, 1000);
  let current = window;
  if (worthWidening(current) && ctx.now() + step - first.scrapedAtMs <= WIDEN_WINDOW_MAX_MS)
    ctx.onNote?.(
      `waiting up to ${WIDEN_WINDOW_MAX_MS / 1000} s in all for writes on ${ctx.target.name}: its window held too few to time its disk now, and it was slow since it started`,
    );
  while (worthWidening(current) && ctx.now() + step - first.scrapedAtMs <= WIDEN_WINDOW_MAX_MS) {
    await ctx.sleep(step, signal);
    const next = await scrape(ctx, signal, timeoutMs).catch(() => undefined);
    if (!next) break;
    current = compareSnapshots(first, next);
  }
  return current;
}

/** Too few fsyncs or commits in the window for its own figures, while the since-start ones are slow. */
function worthWidening(w: EtcdMetricsWindow): boolean {
  return (
    thinButSlow(w.walFsync, WAL_FSYNC_P99_LIMIT_S) || thinButSlow(w.backendCommit, BACKEND_COMMIT_P99_LIMIT_S)
  );
}

function thinButSlow(s: QuantileSummary, limitSeconds: number): boolean {
  if (s.source !== 'since-start' || s.windowCount === undefined) return false;
  // The slow-disk rule's mean guard: half the bound (rules/slow-disk.ts MEAN_GUARD_RATIO).
  return (s.p99Seconds ?? 0) > limitSeconds || (s.meanSeconds ?? 0) > limitSeconds / 2;
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

function scrape(
  ctx: MemberProbeContext,
  signal: AbortSignal,
  timeoutMs: number,
): Promise<EtcdMetricsSnapshot> {
  return scrapeMetrics({ httpGet: ctx.httpGet, now: ctx.now }, ctx.target.metricsUrl, signal, timeoutMs);
}

/**
 * One GET of a member's /metrics, read into the numbers the rules use. Each scrape has its own
 * deadline, so a hung member fails in `timeoutMs`, not `2 × timeoutMs + window`.
 */
export async function scrapeMetrics(
  io: { httpGet: HttpGet; now: () => number },
  metricsUrl: string,
  signal: AbortSignal,
  timeoutMs: number,
): Promise<EtcdMetricsSnapshot> {
  const deadline = deadlineSignal(timeoutMs);
  let res: Awaited<ReturnType<HttpGet>>;
  // Only the lines the rules read are kept, as they arrive.
  const filter = createMetricsLineFilter();
  try {
    res = await io.httpGet(metricsUrl, AbortSignal.any([signal, deadline.signal]), {
      onBytes: filter.bytes,
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
  const parsed = filter.parse(io.now());
  if (!parsed.ok)
    throw new ProbeError('error', `sent /metrics that are not Prometheus text: ${parsed.error}`);
  return parsed.snapshot;
}
