import { readFile } from 'node:fs/promises';
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { loadavg } from 'node:os';
import { configFileSchema } from '../src/config/schema.js';
import { createDoctor } from '../src/doctor.js';
import { startEtcdLab } from '../test/support/lab/etcd-lab.js';

/**
 * What one cluster holds in the digest (the memory budget's per-member estimates,
 * src/digest/memory-budget.ts): N 3-member clusters on one real lab. First every cluster's first
 * /metrics scrapes are taken and held (what a cluster waiting out its window holds), then, the
 * window later, the N runs go at once with keepClients false (what a run holds). Heap and RSS are
 * sampled every 50 ms against the idle figures. Run with
 * `node --expose-gc --import tsx bench/digest-memory.ts [N] [windowMs]`.
 */
const N = Number(process.argv[2] ?? 100);
const WINDOW_MS = Number(process.argv[3] ?? 3000);
const lab = await startEtcdLab();
try {
  const config = configFileSchema.parse({
    probes: { metricsWindowMs: WINDOW_MS },
    clusters: Array.from({ length: N }, (_, i) => ({
      name: `c${i}`,
      etcd: { endpoints: lab.endpoints, metricsUrls: lab.metricsUrls },
    })),
  });
  const doctor = createDoctor({ config, readFileBuffer: (p) => readFile(p) });
  // Warm: modules loaded, one cluster diagnosed.
  await doctor.run('c0', 'diagnose', { keepClients: false });
  globalThis.gc?.();
  const idle = process.memoryUsage();
  let peakHeap = 0;
  let peakRss = 0;
  const timer = setInterval(() => {
    const m = process.memoryUsage();
    peakHeap = Math.max(peakHeap, m.heapUsed);
    peakRss = Math.max(peakRss, m.rss);
  }, 50);
  // DIGEST_PROFILE=file.cpuprofile: a CPU profile of the diagnoses alone (not the start-up).
  const session = process.env.DIGEST_PROFILE ? new Session() : undefined;
  session?.connect();
  await session?.post('Profiler.enable');
  await session?.post('Profiler.start');
  const started = performance.now();
  const cpu = process.cpuUsage();
  const firsts = await Promise.all(config.clusters.map((c) => doctor.firstScrapes(c.name)));
  await new Promise((r) => setTimeout(r, 200));
  globalThis.gc?.();
  const waiting = process.memoryUsage();
  const readyAt = Math.max(...firsts.map((f) => f?.readyAtMs ?? 0));
  await new Promise((r) => setTimeout(r, Math.max(0, readyAt - Date.now())));
  const runStart = performance.now();
  peakHeap = 0;
  peakRss = 0;
  const reports = await Promise.all(
    config.clusters.map((c, i) => {
      const scrapes = firsts[i];
      return doctor.run(c.name, 'diagnose', { keepClients: false, ...(scrapes ? { scrapes } : {}) });
    }),
  );
  const runWall = performance.now() - runStart;
  const wall = performance.now() - started;
  const cpuUsed = process.cpuUsage(cpu);
  const cpuMs = (cpuUsed.user + cpuUsed.system) / 1000;
  clearInterval(timer);
  if (session && process.env.DIGEST_PROFILE) {
    const { profile } = await session.post('Profiler.stop');
    await writeFile(process.env.DIGEST_PROFILE, JSON.stringify(profile));
  }
  const mib = (b: number) => (b / 1024 / 1024).toFixed(1);
  const per = (b: number) => (b / N / 3 / 1024).toFixed(0);
  console.log(
    `${N} clusters, window ${WINDOW_MS} ms: ${wall.toFixed(0)} ms wall (runs ${runWall.toFixed(0)} ms), ${(cpuMs / N).toFixed(1)} ms CPU per cluster; heap idle ${mib(idle.heapUsed)} MiB; waiting on first scrapes +${mib(waiting.heapUsed - idle.heapUsed)} MiB (${per(waiting.heapUsed - idle.heapUsed)} KiB per member, rss +${mib(waiting.rss - idle.rss)} MiB); runs at once peak heap +${mib(peakHeap - waiting.heapUsed)} MiB (${per(peakHeap - waiting.heapUsed)} KiB per member); rss peak +${mib(peakRss - waiting.rss)} MiB (${per(peakRss - waiting.rss)} KiB per member); ${firsts.filter(Boolean).length} of ${N} kept first scrapes; load ${loadavg()[0]?.toFixed(1)}`,
  );
  // Probes that failed (a loaded host makes some time out): the figures above include their cost.
  const failed = new Map<string, number>();
  for (const r of reports)
    for (const p of r.probes.filter((x) => !x.ok)) {
      const k = `${p.name.split(' ')[0]}: ${(p.error ?? '').replace(/\d+/g, 'N').slice(0, 80)}`;
      failed.set(k, (failed.get(k) ?? 0) + 1);
    }
  if (failed.size) console.log('failed probes:', Object.fromEntries(failed));
  await doctor.close();
} finally {
  await lab.destroy();
}
