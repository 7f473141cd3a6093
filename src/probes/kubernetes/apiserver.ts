import type { Outcome } from '../outcome.js';
import { type Histogram, histogramQuantile } from '../../etcd/histogram.js';
import { formatSeconds, type Probe, ProbeError, ProbeTimeoutError, toFailure } from '../probe.js';
import { type ApiserverLists, apiserverLists, keepListLine } from './apiserver-lists.js';
import { compareLists } from './apiserver-lists-window.js';
import type { KubeProbeContext } from './context.js';
import type { ApiserverData, EtcdRequestLatency, ReadyzCheck } from './evidence.js';
import { forbiddenMessage, kubeCall } from './kube-call.js';

const METRIC = 'etcd_request_duration_seconds';

/**
 * The apiserver as a client of etcd (KB §4.2): `/readyz?verbose` (its `etcd` checks), the wall
 * time of a GET served from etcd next to `/version` (served from memory), and
 * `etcd_request_duration_seconds` from /metrics. A 403 on /metrics is a note, not a failure.
 * With a `windowMs`, /metrics is read again that much later, for its LISTs and API Priority and
 * Fairness in the window (apiserver-lists-window.ts).
 */
export function createApiserverProbe(
  timeoutMs: number,
  windowMs = 0,
): Probe<KubeProbeContext, ApiserverData> {
  return {
    kind: 'k8s-apiserver',
    asks: 'the readyz, latency and metrics checks',
    // Two /metrics GETs, each under its own deadline, and the window between them.
    timeoutMs: windowMs > 0 ? 2 * timeoutMs + windowMs : timeoutMs,
    async collect(ctx, signal) {
      const started = performance.now();
      const [readyz, latency, metrics] = await Promise.allSettled([
        readReadyz(ctx, signal),
        measureLatency(ctx, signal),
        readEtcdRequestMetrics(ctx, signal, windowMs),
      ]);
      // Neither readyz nor a plain GET answered: the apiserver itself failed this probe.
      if (readyz.status === 'rejected' && latency.status === 'rejected') {
        // Both ran out of time: that is this probe's timeout, whichever timer fired first.
        if (isTimeout(readyz.reason) && isTimeout(latency.reason))
          throw new ProbeTimeoutError({ cause: latency.reason });
        throw latency.reason;
      }
      const durationMs = performance.now() - started;
      return {
        readyz: outcomeOf(readyz, 'GET /readyz?verbose', durationMs),
        latency: outcomeOf(latency, 'GET /api/v1/namespaces/kube-system', durationMs),
        etcdRequests: outcomeOf(metrics, 'GET /metrics', durationMs),
      };
    },
  };
}

const isTimeout = (err: unknown): boolean => err instanceof ProbeError && err.kind === 'timeout';

/** One part of the probe as its own outcome: `GET /metrics: etcd-doctor is forbidden ...`. */
function outcomeOf<T>(settled: PromiseSettledResult<T>, asks: string, durationMs: number): Outcome<T> {
  if (settled.status === 'fulfilled') return { ok: true, data: settled.value, durationMs };
  return { ok: false, failure: toFailure(settled.reason, asks, asks), durationMs };
}

/** A raw GET under its own deadline; 401/403 name the non-resource URL to allow. */
async function rawGet(
  ctx: KubeProbeContext,
  path: string,
  signal: AbortSignal,
  keepLine?: (line: string) => boolean,
) {
  const timeoutMs = ctx.settings.timeoutMs;
  const deadline = AbortSignal.timeout(timeoutMs);
  const base = path.split('?')[0] ?? path;
  let res: Awaited<ReturnType<typeof ctx.clients.getRaw>>;
  try {
    res = await ctx.clients.getRaw(path, AbortSignal.any([signal, deadline]), {
      maxBytes: ctx.settings.metricsMaxBytes,
      ...(keepLine ? { keepLine } : {}),
    });
  } catch (err) {
    if (deadline.aborted && !signal.aborted)
      throw new ProbeError('timeout', `did not answer GET ${path} in ${formatSeconds(timeoutMs)}`);
    throw err;
  }
  if (res.status === 401 || res.status === 403) {
    throw new ProbeError('forbidden', forbiddenMessage({ verb: 'get', resource: base }));
  }
  return res;
}

async function readReadyz(
  ctx: KubeProbeContext,
  signal: AbortSignal,
): Promise<{ httpStatus: number; checks: ReadyzCheck[] }> {
  const res = await rawGet(ctx, '/readyz?verbose', signal);
  const checks = parseReadyz(res.body);
  if (checks.length === 0 && res.status !== 200) {
    throw new ProbeError('error', `answered /readyz?verbose with HTTP ${res.status} and no checks`);
  }
  return { httpStatus: res.status, checks };
}

/** `[+]etcd ok`, `[-]etcd failed: reason withheld` (K8Sidx healthz.go). */
export function parseReadyz(body: string): ReadyzCheck[] {
  return body.split('\n').flatMap((line) => {
    const match = /^\[([+-])\]([^\s]+)\s+(ok|failed|excluded)/.exec(line.trim());
    return match?.[2] ? [{ name: match[2], ok: match[1] === '+' }] : [];
  });
}

async function measureLatency(ctx: KubeProbeContext, signal: AbortSignal) {
  const action = { verb: 'get', resource: 'namespaces' } as const;
  const versionStarted = performance.now();
  const version = await rawGet(ctx, '/version', signal);
  const versionMs = performance.now() - versionStarted;
  const started = performance.now();
  await kubeCall(ctx.clients, action, signal, ctx.settings.timeoutMs, (o) =>
    ctx.clients.core.readNamespace({ name: 'kube-system' }, o),
  );
  const getNamespaceMs = performance.now() - started;
  return { getNamespaceMs, versionMs, gitVersion: gitVersionOf(version.body) };
}

function gitVersionOf(body: string): string | undefined {
  try {
    const parsed: unknown = JSON.parse(body);
    if (
      typeof parsed === 'object' &&
      parsed !== null &&
      'gitVersion' in parsed &&
      typeof parsed.gitVersion === 'string'
    ) {
      return parsed.gitVersion;
    }
  } catch {
    // not JSON: no version to report
  }
  return undefined;
}

/**
 * /metrics at the start of the window and, with a window, at its end: the latency histogram from
 * the later page, the LISTs and flows of both compared. A later GET that fails leaves the first
 * page's since-start reading: the window is lost, not the evidence.
 */
async function readEtcdRequestMetrics(
  ctx: KubeProbeContext,
  signal: AbortSignal,
  windowMs: number,
): Promise<EtcdRequestLatency> {
  const first = await scrapeApiserverMetrics(ctx, signal);
  if (windowMs <= 0 || !first.lists) return withLists(first.summary, first.lists);
  await ctx.sleep(windowMs, signal);
  const second = await scrapeApiserverMetrics(ctx, signal).catch(() => undefined);
  if (!second?.lists) return withLists(first.summary, first.lists);
  const window = compareLists(first.lists, second.lists, (second.atMs - first.atMs) / 1000);
  return withLists(second.summary, { ...second.lists, window });
}

function withLists(summary: EtcdRequestLatency, lists: ApiserverLists | undefined): EtcdRequestLatency {
  return lists ? { ...summary, lists } : summary;
}

async function scrapeApiserverMetrics(
  ctx: KubeProbeContext,
  signal: AbortSignal,
): Promise<{ summary: EtcdRequestLatency; lists: ApiserverLists | undefined; atMs: number }> {
  const res = await rawGet(ctx, '/metrics', signal, (line) => line.startsWith(METRIC) || keepListLine(line));
  const atMs = ctx.now();
  if (res.status !== 200) throw new ProbeError('error', `answered /metrics with HTTP ${res.status}`);
  const summary = summarizeEtcdRequests(res.body);
  if (!summary) throw new ProbeError('error', `has no ${METRIC} in its /metrics`);
  return { summary, lists: apiserverLists(res.body.split('\n').filter(keepListLine)), atMs };
}

interface Series {
  operation: string;
  resource: string;
  histogram: Histogram;
}

/**
 * p99 and mean of every etcd request the apiserver made since it started, and the slowest
 * (operation, resource) by mean. Labels are `operation`,`resource` (older releases: `type`).
 */
export function summarizeEtcdRequests(text: string): EtcdRequestLatency | undefined {
  const series = new Map<string, Series>();
  for (const line of text.split('\n')) {
    const match = /^etcd_request_duration_seconds_(bucket|sum|count)\{([^}]*)\}\s+(\S+)/.exec(line);
    if (!match?.[2] || match[3] === undefined) continue;
    const labels = parseLabels(match[2]);
    const value = Number(match[3]);
    const operation = labels.get('operation') ?? '';
    const resource = labels.get('resource') ?? labels.get('type') ?? '';
    const key = `${operation}\u0000${resource}`;
    let s = series.get(key);
    if (!s) {
      s = { operation, resource, histogram: { buckets: [], sum: 0, count: 0 } };
      series.set(key, s);
    }
    if (match[1] === 'bucket') {
      const le = labels.get('le') === '+Inf' ? Number.POSITIVE_INFINITY : Number(labels.get('le'));
      s.histogram.buckets.push({ le, count: value });
    } else if (match[1] === 'sum') s.histogram.sum += value;
    else s.histogram.count += value;
  }
  if (series.size === 0) return undefined;
  const total = sumHistograms([...series.values()].map((s) => s.histogram));
  const slowest = [...series.values()]
    .filter((s) => s.histogram.count >= 10)
    .map((s) => ({
      operation: s.operation,
      resource: s.resource,
      meanSeconds: s.histogram.sum / s.histogram.count,
      count: s.histogram.count,
    }))
    .sort((a, b) => b.meanSeconds - a.meanSeconds)[0];
  return {
    p99Seconds: histogramQuantile(0.99, total),
    meanSeconds: total.count > 0 ? total.sum / total.count : undefined,
    count: total.count,
    source: 'since-start',
    slowest,
  };
}

function sumHistograms(histograms: Histogram[]): Histogram {
  const byLe = new Map<number, number>();
  for (const h of histograms) for (const b of h.buckets) byLe.set(b.le, (byLe.get(b.le) ?? 0) + b.count);
  return {
    buckets: [...byLe.entries()].sort((a, b) => a[0] - b[0]).map(([le, count]) => ({ le, count })),
    sum: histograms.reduce((n, h) => n + h.sum, 0),
    count: histograms.reduce((n, h) => n + h.count, 0),
  };
}

function parseLabels(text: string): Map<string, string> {
  const labels = new Map<string, string>();
  for (const m of text.matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
    if (m[1] !== undefined && m[2] !== undefined) labels.set(m[1], m[2]);
  }
  return labels;
}
