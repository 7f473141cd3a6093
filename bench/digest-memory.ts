import { readFile } from 'node:fs/promises';
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { loadavg } from 'node:os';
import { configFileSchema } from '../src/config/schema.js';
import { createDoctor } from '../src/doctor.js';
import { startEtcdLab } from '../test/support/lab/etcd-lab.js';

/**
 * What one cluster holds while the digest diagnoses it (the memory budget's per-member estimate,
 * src/digest/memory-budget.ts): N 3-member clusters on one real lab diagnosed at once with
 * keepClients false, heap and RSS sampled every 50 ms against the idle figures. Run with
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
  const reports = await Promise.all(
    config.clusters.map((c) => doctor.run(c.name, 'diagnose', { keepClients: false })),
  );
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
    `${N} clusters at once, window ${WINDOW_MS} ms: ${wall.toFixed(0)} ms wall, ${(cpuMs / N).toFixed(1)} ms CPU per cluster; heap idle ${mib(idle.heapUsed)} MiB peak +${mib(peakHeap - idle.heapUsed)} MiB (${per(peakHeap - idle.heapUsed)} KiB per member); rss idle ${mib(idle.rss)} peak +${mib(peakRss - idle.rss)} MiB (${per(peakRss - idle.rss)} KiB per member); load ${loadavg()[0]?.toFixed(1)}`,
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
