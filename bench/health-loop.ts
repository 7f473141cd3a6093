import { readFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { Etcd3 } from 'etcd3';
import { createDoctor } from '../src/doctor.js';
import { startEtcdLab } from '../test/support/lab/etcd-lab.js';
import { DIAGNOSIS_PROBES, labConfig } from '../test/support/lab/lab-config.js';
import { median } from './stats.js';

/**
 * Warm health against raw etcd3 in one process, for profiling and quick comparisons
 * (`node --cpu-prof --import tsx bench/health-loop.ts [rounds] [modes]`): each round runs a block
 * of every mode, in a rotating order, so load changes on the shared host hit them alike.
 * Modes: ours (doctor.run health), get (raw linearizable get per member), status (get + Status).
 */
const rounds = Number(process.argv[2] ?? 20);
const modes = (process.argv[3] ?? 'ours,get,status').split(',');
const BLOCK = 50;
const lab = await startEtcdLab();
const doctor = createDoctor({
  config: labConfig(lab, { name: 'lab', probes: DIAGNOSIS_PROBES }),
  readFileBuffer: (p) => readFile(p),
});
const raw = lab.endpoints.map((endpoint) => new Etcd3({ hosts: [endpoint] }));
const runs: Record<string, () => Promise<unknown>> = {
  ours: () => doctor.run('lab', 'health'),
  get: () => Promise.all(raw.map((c) => c.get('health').string())),
  status: () => Promise.all(raw.flatMap((c) => [c.get('health').string(), c.maintenance.status()])),
};
const walls = new Map<string, number[]>(modes.map((m) => [m, []]));
const cpus = new Map<string, number>(modes.map((m) => [m, 0]));
try {
  for (const m of modes) for (let i = 0; i < 20; i++) await runs[m]?.();
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < modes.length; k++) {
      const mode = modes[(r + k) % modes.length] as string;
      const run = runs[mode] as () => Promise<unknown>;
      const cpu0 = process.cpuUsage();
      for (let i = 0; i < BLOCK; i++) {
        const t0 = performance.now();
        await run();
        walls.get(mode)?.push(performance.now() - t0);
      }
      const cpu = process.cpuUsage(cpu0);
      cpus.set(mode, (cpus.get(mode) ?? 0) + (cpu.user + cpu.system) / 1000);
    }
  }
  for (const m of modes) {
    const w = walls.get(m) ?? [];
    console.log(
      `${m.padEnd(7)} median ${median(w).toFixed(3)} ms wall, ${((cpus.get(m) ?? 0) / w.length).toFixed(3)} ms CPU/run (${w.length} runs)`,
    );
  }
  console.log(
    `load ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
} finally {
  for (const c of raw) c.close();
  await doctor.close();
  await lab.destroy();
}
