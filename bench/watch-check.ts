import { readFile, writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';
import { noop } from 'cockatiel';
import { Etcd3 } from 'etcd3';
import { Redis } from 'ioredis';
import { Agent, request } from 'undici';
import { createMemoryAdapter } from '../src/chat/memory/memory-adapter.js';
import { configFileSchema } from '../src/config/schema.js';
import { createDoctor } from '../src/doctor.js';
import { BUSY_CLOCK_SAMPLES } from '../src/probes/collect-options.js';
import { AGREED_CLOCK_SAMPLES, CLOCK_FULL_EVERY_MS } from '../src/watch/clock-sampling.js';
import { silentLogger } from '../src/logger.js';
import { createPlanStore } from '../src/state/plan-store.js';
import { installWatch } from '../src/watch/install.js';
import { type EtcdLab, startEtcdLab } from '../test/support/lab/etcd-lab.js';
import { purgePrefix, REDIS_URL, testPrefix } from '../test/support/redis/redis-prefix.js';
import { recordGoal } from './goals.js';
import { median, row } from './stats.js';
import { testSigner } from '../test/support/redis/signing-key.js';

/**
 * CPU of one watch check (the goal: ≤ 10 ms for 3 members, so one core watches 6,000 clusters at
 * 60 s), in this process: the worker's own `watch` job handler (installWatch: the check, its
 * minute history and last-check writes, the incident step) on CLUSTERS clusters that all point at
 * one real 3-member lab, with real Redis. Beside it, in the same rounds, the raw cost of the
 * requests a steady check sends (per member a Range of one key, Status, one GET /metrics read as
 * text and the clock's GET /version, one while the clocks agree; MemberList once) made with etcd3 and undici directly,
 * on kept connections and on fresh ones. CPU is this process's user + system time (all threads, GC
 * included): wall time on this shared host holds the neighbours' load. WATCH_PROFILE=file writes
 * a V8 CPU profile of the measured checks.
 */
const CLUSTERS = Number(process.env.WATCH_CLUSTERS ?? 20);
const ROUNDS = Number(process.env.WATCH_ROUNDS ?? 10);
const INTERVAL_S = 60;
export const CHECK_CPU_GOAL_MS = 10;

const cpuMsSince = (start: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
};

/** The RPCs and GETs of one check, made directly: the floor the check is built on. */
function rawCheck(lab: EtcdLab, fresh: boolean) {
  let kept: { clients: Etcd3[]; agent: Agent } | undefined;
  // As the doctor's clients: no retries, no circuit breaker.
  const faultHandling = { global: noop, host: () => noop };
  const open = () => ({
    clients: lab.endpoints.map((e) => new Etcd3({ hosts: [e], faultHandling })),
    agent: new Agent(),
  });
  return {
    async run(): Promise<void> {
      if (!fresh) kept ??= open();
      const { clients, agent } = fresh || !kept ? open() : kept;
      await Promise.all([
        clients[0]?.cluster.memberList({}),
        ...clients.map(async (c, i) => {
          await Promise.all([c.get('health').string(), c.maintenance.status()]);
          const metrics = await request(`${lab.metricsUrls[i]}/metrics`, { dispatcher: agent });
          await metrics.body.text();
          for (let k = 0; k < AGREED_CLOCK_SAMPLES; k++) {
            const v = await request(`${lab.endpoints[i]}/version`, { dispatcher: agent });
            await v.body.text();
          }
        }),
      ]);
      if (fresh) {
        for (const c of clients) c.close();
        await agent.close();
      }
    },
    async close() {
      if (!kept) return;
      for (const c of kept.clients) c.close();
      await kept.agent.close();
    },
  };
}

export interface WatchCheckCost {
  checkCpuMs: number;
  rawWarmCpuMs: number;
  rawFreshCpuMs: number;
  checks: number;
  statuses: Record<string, number>;
  /** RSS after the measured checks over RSS before the first check (MiB): what the watched clusters keep. */
  rssGrowthMiB: number;
}

export async function measureWatchCheck(): Promise<WatchCheckCost> {
  const lab = await startEtcdLab();
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  const prefix = testPrefix('bench-watch-check');
  const config = configFileSchema.parse({
    clusters: Array.from({ length: CLUSTERS }, (_, i) => ({
      name: `w${i}`,
      etcd: { endpoints: lab.endpoints, metricsUrls: lab.metricsUrls },
    })),
    watch: { intervalSeconds: INTERVAL_S },
  });
  const doctor = createDoctor({ config, readFileBuffer: (p) => readFile(p) });
  const watch = installWatch({
    redis,
    prefix,
    config,
    doctor,
    chat: createMemoryAdapter(),
    plans: createPlanStore(redis, prefix, testSigner),
    logger: silentLogger,
    now: Date.now,
  });
  const warm = rawCheck(lab, false);
  const fresh = rawCheck(lab, true);
  const statuses: Record<string, number> = {};
  const check = async (cluster: string) => {
    const job = { v: 1, kind: 'watch', cluster, intervalSeconds: INTERVAL_S } as const;
    const info = { jobId: cluster, attempt: 1, signal: new AbortController().signal };
    const last = (await watch.jobs.watch.run(job, info)) as { status: string };
    statuses[last.status] = (statuses[last.status] ?? 0) + 1;
  };
  const rssBefore = process.memoryUsage().rss;
  try {
    // Warm-up: modules loaded, JIT warm, each cluster's first (since-start) check done.
    for (const c of config.clusters) await check(c.name);
    for (let i = 0; i < 5; i++) {
      await warm.run();
      await fresh.run();
    }
    for (const k of Object.keys(statuses)) delete statuses[k];
    const session = process.env.WATCH_PROFILE ? new Session() : undefined;
    session?.connect();
    await session?.post('Profiler.enable');
    await session?.post('Profiler.start');
    const cost = { check: [] as number[], warm: [] as number[], fresh: [] as number[] };
    // Rounds interleave the three, so a change in the host's load hits them alike.
    for (let r = 0; r < ROUNDS; r++) {
      let start = process.cpuUsage();
      for (const c of config.clusters) await check(c.name);
      cost.check.push(cpuMsSince(start) / CLUSTERS);
      if (session) continue;
      start = process.cpuUsage();
      for (let i = 0; i < CLUSTERS; i++) await warm.run();
      cost.warm.push(cpuMsSince(start) / CLUSTERS);
      start = process.cpuUsage();
      for (let i = 0; i < CLUSTERS; i++) await fresh.run();
      cost.fresh.push(cpuMsSince(start) / CLUSTERS);
    }
    if (session && process.env.WATCH_PROFILE) {
      const { profile } = await session.post('Profiler.stop');
      await writeFile(process.env.WATCH_PROFILE, JSON.stringify(profile));
    }
    return {
      checkCpuMs: median(cost.check),
      rawWarmCpuMs: median(cost.warm),
      rawFreshCpuMs: median(cost.fresh),
      checks: CLUSTERS * ROUNDS,
      statuses,
      rssGrowthMiB: (process.memoryUsage().rss - rssBefore) / 1024 / 1024,
    };
  } finally {
    await warm.close();
    await doctor.close();
    await watch.close();
    await purgePrefix(prefix);
    redis.disconnect();
    await lab.destroy();
  }
}

export async function benchWatchCheck(): Promise<string> {
  const loadBefore = loadavg()[0] ?? 0;
  const m = await measureWatchCheck();
  const perCoreSecond = (ms: number) => (1000 / ms).toFixed(0);
  const met = m.checkCpuMs <= CHECK_CPU_GOAL_MS;
  recordGoal({
    figure: 'CPU per watched cluster check (3 members, in-process, median of rounds)',
    measured: `${m.checkCpuMs.toFixed(2)} ms`,
    goal: `<= ${CHECK_CPU_GOAL_MS} ms`,
    met,
    beside: `its raw RPCs and GETs: ${m.rawWarmCpuMs.toFixed(2)} ms on kept connections, ${m.rawFreshCpuMs.toFixed(2)} ms on fresh ones`,
  });
  return [
    `## CPU of one watch check (3 local members, ${CLUSTERS} clusters on one lab, ${INTERVAL_S} s interval)`,
    '',
    row(['what', 'CPU per check (median of rounds)', 'checks per core-second']),
    row(['---', '---', '---']),
    row([
      "the worker's `watch` job: diagnose on one scrape, minute history, last check, incident step",
      `${m.checkCpuMs.toFixed(2)} ms`,
      perCoreSecond(m.checkCpuMs),
    ]),
    row([
      `raw: its RPCs and GETs (etcd3 + undici: per member Range, Status, GET /metrics, ${AGREED_CLOCK_SAMPLES} × GET /version; MemberList once), connections kept`,
      `${m.rawWarmCpuMs.toFixed(2)} ms`,
      perCoreSecond(m.rawWarmCpuMs),
    ]),
    row([
      'raw: the same, fresh connections every time',
      `${m.rawFreshCpuMs.toFixed(2)} ms`,
      perCoreSecond(m.rawFreshCpuMs),
    ]),
    '',
    `- ${m.checks} checks in ${ROUNDS} rounds interleaved with the raw ones; their verdicts: ${Object.entries(
      m.statuses,
    )
      .map(([s, n]) => `${n} ${s}`)
      .join(
        ', ',
      )}. CPU is this process's (user + system, all threads, GC included); Redis and etcd are not in it.`,
    `- Goal (issue 29): ≤ ${CHECK_CPU_GOAL_MS} ms CPU per check (one core watches ${Math.round((INTERVAL_S * 1000) / CHECK_CPU_GOAL_MS).toLocaleString('en-US')} clusters at ${INTERVAL_S} s): ${met ? 'met' : 'NOT met'} (${m.checkCpuMs.toFixed(2)} ms; one core watches ${Math.round((INTERVAL_S * 1000) / m.checkCpuMs).toLocaleString('en-US')} at ${INTERVAL_S} s). The check costs ${(m.checkCpuMs / m.rawWarmCpuMs).toFixed(1)}× its raw requests on kept connections.`,
    `- The warm-up check of each cluster takes the clock's full ${BUSY_CLOCK_SAMPLES} samples a member; the measured ones, with every clock agreeing, take ${AGREED_CLOCK_SAMPLES} (src/watch/clock-sampling.ts). At ${INTERVAL_S} s one check in ${Math.round(CLOCK_FULL_EVERY_MS / 1000 / INTERVAL_S)} takes the full samples again (about 6-8 ms more of CPU on this host, 2026-12-05).`,
    `- RSS grew ${m.rssGrowthMiB.toFixed(0)} MiB from before the first check to after the last (${CLUSTERS} clusters' kept state, modules and JIT code).`,
    `- Load average (1 min): ${loadBefore.toFixed(1)} at the start, ${(loadavg()[0] ?? 0).toFixed(1)} at the end (2 shared cores).`,
    '',
  ].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.stdout.write(await benchWatchCheck());
}
