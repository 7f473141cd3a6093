import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { type ConfigFile, configFileSchema } from '../../src/config/schema.js';
import { runDigestNow } from '../../src/digest/digest-now.js';
import { clusterCostBytes } from '../../src/digest/memory-budget.js';
import { createDoctor, type Doctor } from '../../src/doctor.js';
import { COL, type MinuteSample } from '../../src/state/minute-sample.js';
import { silentLogger } from '../../src/logger.js';
import { createHistoryStore } from '../../src/state/history-store.js';
import { createMinuteHistory } from '../../src/state/minute-history.js';
import { createWatchState } from '../../src/state/watch-state.js';
import { createWatchCheck } from '../../src/watch/run-watch-check.js';
import { type EtcdLab, startEtcdLab } from '../support/lab/etcd-lab.js';
import { type MetricsProxy, startMetricsProxy } from '../support/lab/metrics-proxy.js';
import { purgePrefix, REDIS_URL, testPrefix } from '../support/redis/redis-prefix.js';

/**
 * The digest of watched clusters (issue 17/18): the day's trends from the watch's minute history
 * in real Redis, one /metrics scrape per member instead of two around the window, and the number
 * of clusters diagnosed at once bounded by the memory budget. /metrics is scraped through loopback
 * proxies in front of a real 3-member lab, which count the requests.
 */

let lab: EtcdLab;
let redis: Redis;
const proxies: MetricsProxy[] = [];
const prefixes: string[] = [];
const doctors: Doctor[] = [];

beforeAll(async () => {
  lab = await startEtcdLab();
  redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
});
afterAll(async () => {
  await Promise.all(doctors.map((d) => d.close()));
  await Promise.all(proxies.map((p) => p.close()));
  for (const p of prefixes) await purgePrefix(p);
  redis.disconnect();
  await lab?.destroy();
});

async function proxiesFor(): Promise<MetricsProxy[]> {
  const list = await Promise.all(lab.metricsUrls.map((u) => startMetricsProxy(u)));
  proxies.push(...list);
  return list;
}

function clusterOn(name: string, metrics: MetricsProxy[]) {
  return { name, etcd: { endpoints: lab.endpoints, metricsUrls: metrics.map((p) => p.url) } };
}

function doctorFor(config: ConfigFile): Doctor {
  const doctor = createDoctor({ config, readFileBuffer: (p) => readFile(p) });
  doctors.push(doctor);
  return doctor;
}

async function digestNow(config: ConfigFile, doctor: Doctor, prefix: string): Promise<string> {
  const out: string[] = [];
  await runDigestNow({
    config,
    doctor,
    redis,
    prefix,
    chat: undefined,
    print: (t) => out.push(t),
    logger: silentLogger,
    now: Date.now,
  });
  return out.join('\n');
}

const sum = (ps: MetricsProxy[]) => ps.reduce((n, p) => n + p.requests, 0);

describe('the digest of a watched cluster', () => {
  it("reads the day's p99 from the stored buckets and scrapes each member once; an unwatched one twice", async () => {
    const prefix = testPrefix('digest-history');
    prefixes.push(prefix);
    const watchedMetrics = await proxiesFor();
    const plainMetrics = await proxiesFor();
    const config = configFileSchema.parse({
      clusters: [clusterOn('watched', watchedMetrics), clusterOn('plain', plainMetrics)],
      probes: { timeoutMs: 2000, metricsWindowMs: 500 },
    });
    const doctor = doctorFor(config);
    const minutes = createMinuteHistory(redis, prefix, Date.now);
    const state = createWatchState(redis, prefix);
    const check = createWatchCheck({ doctor, history: minutes, state, logger: silentLogger });
    // Two real watch checks: the second one's window is the time since the first.
    await check({ v: 1, kind: 'watch', cluster: 'watched', intervalSeconds: 60 });
    await check({ v: 1, kind: 'watch', cluster: 'watched', intervalSeconds: 60 });
    const [real] = await minutes.samples('watched', 0);
    const names = (real?.m ?? []).map((m) => m[COL.name]);
    expect(names).toHaveLength(3);
    // Earlier today (3 h ago, injected into the history) the second member's disk was slow: 300
    // fsyncs in the 64 ms bucket. Today's live view of the lab is fast; the day is not.
    const slowName = names[1] as string;
    const slow: MinuteSample = {
      v: 1,
      t: Date.now() - 3 * 3600_000,
      s: 'degraded',
      m: names.map((name) => [
        name,
        name === slowName ? 60 : 1,
        1,
        0.5,
        name === slowName ? 1 : 0,
        1_000_000,
        800_000,
        2,
        0,
        name === slowName ? [[64, 300]] : [[1, 300]],
        [[2, 100]],
        [[0.5, 4]],
      ]),
      f: [['slow-disk', 'warning', [slowName]]],
    };
    await minutes.record('watched', slow);
    const keptBefore = await state.scrapes('watched', 0).previous(watchedMetrics[0]?.url ?? '');
    const watchedBefore = sum(watchedMetrics);
    const plainBefore = sum(plainMetrics);

    const text = await digestNow(config, doctor, prefix);

    // One scrape per member for the watched cluster, two for the other (the metrics window).
    expect(sum(watchedMetrics) - watchedBefore).toBe(3);
    expect(sum(plainMetrics) - plainBefore).toBe(6);
    const watchedLine = text.split('\n').find((l) => l.includes(' watched ')) ?? '';
    const plainLine = text.split('\n').find((l) => l.includes(' plain ')) ?? '';
    // Three checks: the two real ones and the slow one (roll-ups add up their counts).
    expect(watchedLine).toMatch(/fsync p99 [\d.]+ ms \(day p99 of 3 checks\)/);
    const p99 = Number(/fsync p99 ([\d.]+) ms/.exec(watchedLine)?.[1]);
    // 300 slow fsyncs of the slow member's day put its p99 inside the 32-64 ms bucket.
    expect(p99).toBeGreaterThan(32);
    expect(p99).toBeLessThanOrEqual(64);
    expect(watchedLine).toMatch(/commit p99 [\d.]+ ms · peer RTT p99 [\d.]+ ms/);
    expect(watchedLine).toMatch(/leader changes 1 \(in 3 checks\)/);
    expect(plainLine).toMatch(/fsync p99 /);
    expect(plainLine).not.toMatch(/day p99/);
    expect(text).toContain('For watched clusters today is the day of watch checks');
    // The digest's own history sample keeps that day, so tomorrow's 1d arrow compares a day of
    // checks with a day of checks; the unwatched cluster's sample has none.
    const history = createHistoryStore(redis, prefix, Date.now);
    const kept = (await history.samples('watched', 0)).at(-1);
    expect(kept?.d?.slice(1)).toEqual([1, 3]);
    expect(Math.abs((kept?.d?.[0] ?? 0) - p99)).toBeLessThan(1);
    expect((await history.samples('plain', 0)).at(-1)?.d).toBeUndefined();
    // The digest read the watch's kept scrape and left it alone (the watch's next window is intact).
    const keptAfter = await state.scrapes('watched', 0).previous(watchedMetrics[0]?.url ?? '');
    expect(keptBefore?.scrapedAtMs).toBeGreaterThan(0);
    expect(keptAfter?.scrapedAtMs).toBe(keptBefore?.scrapedAtMs);
  });
});

/** Most intervals open at one time; an interval ending as another starts does not overlap it. */
function maxOverlap(intervals: Array<[number, number]>): number {
  const edges = intervals.flatMap(
    ([from, to]): Array<[number, number]> => [
      [from, 1],
      [to, -1],
    ],
  );
  // Ends before starts at the same instant.
  edges.sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  let open = 0;
  let most = 0;
  for (const [, d] of edges) {
    open += d;
    most = Math.max(most, open);
  }
  return most;
}

/**
 * The most clusters waiting out their windows at once, seen from outside (each cluster has its own
 * /metrics proxies and counts from its first GET to the last answer it was sent), and the most runs
 * in flight at once (each holds its cluster's gRPC channels and sockets: keepClients false closes
 * them when it ends), counted around the real doctor's run.
 */
async function atOnce(clusters: number, budgetMiB: number): Promise<{ windows: number; runs: number }> {
  const prefix = testPrefix('digest-budget');
  prefixes.push(prefix);
  const perCluster = await Promise.all(Array.from({ length: clusters }, () => proxiesFor()));
  const config = configFileSchema.parse({
    clusters: perCluster.map((ps, i) => clusterOn(`b${i}`, ps)),
    probes: { timeoutMs: 5000, metricsWindowMs: 1000 },
    digest: { memoryBudgetMiB: budgetMiB },
  });
  const spans = perCluster.map((ps) => {
    const span: [number, number] = [Number.POSITIVE_INFINITY, 0];
    for (const p of ps)
      p.onChange((d) => {
        const t = performance.now();
        if (d === 1) span[0] = Math.min(span[0], t);
        else span[1] = Math.max(span[1], t);
      });
    return span;
  });
  const doctor = doctorFor(config);
  let running = 0;
  let runs = 0;
  const counted: Doctor = {
    ...doctor,
    async run(name, depth, opts) {
      running += 1;
      runs = Math.max(runs, running);
      try {
        return await doctor.run(name, depth, opts);
      } finally {
        running -= 1;
      }
    },
  };
  const text = await digestNow(config, counted, prefix);
  expect(text).toMatch(new RegExp(`^etcd daily digest: ${clusters} clusters`));
  // Every member was scraped twice: the window's first scrape, then the run's.
  for (const ps of perCluster) expect(sum(ps)).toBe(2 * ps.length);
  return { windows: maxOverlap(spans), runs };
}

describe('the memory budget', () => {
  it('bounds how many clusters run at once, while many more wait out their windows together; a larger budget lets more run', async () => {
    // The smallest budget the config takes: seven eighths of it for runs of 3-member clusters.
    const fits = Math.floor((7 * 1024 * 1024) / clusterCostBytes(3));
    expect(fits).toBeGreaterThanOrEqual(1);
    const bounded = await atOnce(12, 8);
    expect(bounded.runs).toBeGreaterThanOrEqual(1);
    expect(bounded.runs).toBeLessThanOrEqual(fits);
    // Waiting costs a few kB a cluster: all 12 waited out their 1 s windows at the same time.
    expect(bounded.windows).toBe(12);
    // The same 12 clusters with room for all: more runs at once than the small budget allowed.
    const roomy = await atOnce(12, 256);
    expect(roomy.runs).toBeGreaterThan(fits);
  });
});
