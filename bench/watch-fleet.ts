import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Redis } from 'ioredis';
import { stringify } from 'yaml';
import { watchCheckSlots } from '../src/watch/watched-clusters.js';
import { configFileSchema } from '../src/config/schema.js';
import { deployedNodeOptions } from './fleet.js';
import { startFakeSlack } from '../test/support/slack/fake-slack.js';
import { type EtcdLab, startEtcdLab } from '../test/support/lab/etcd-lab.js';
import { purgePrefix, REDIS_URL, testPrefix } from '../test/support/redis/redis-prefix.js';
import { checkTimes, countSlots, type SlotCount } from '../test/support/chat/watch-slots.js';
import { startWorkerProcess, type WorkerProcess, waitUntil } from '../test/support/process/worker-process.js';
import { row } from './stats.js';

/**
 * Watching a fleet every 60 s with `etcd-doctor worker` processes on one Redis (goals: one
 * worker watches 200 clusters within 0.5 core and 300 MiB; 2,000 clusters split across 2
 * and 4 workers, the cost per check flat, no cluster checked twice in an interval and none
 * skipped). The clusters point at two real local 3-member labs. After a warm-up (every cluster
 * checked once), CPU time is read from /proc over MEASURE_INTERVALS intervals, and each
 * cluster's check times are read back from its minute history.
 */
export interface WatchFleetShape {
  clusters: number;
  workers: number[];
  intervalS: number;
  measureIntervals: number;
}

export const WATCH_200: WatchFleetShape = { clusters: 200, workers: [1], intervalS: 60, measureIntervals: 2 };
export const WATCH_2000_SCALE: WatchFleetShape = {
  clusters: 2000,
  workers: [2, 4],
  intervalS: 60,
  measureIntervals: 2,
};

async function cpuSeconds(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function statusMiB(pid: number, field: 'VmHWM' | 'VmRSS'): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) / 1024;
}

/** The workers' RSS every second until `stop`: the steady state, apart from start-up. */
function sampleRss(pids: number[]): { stop(): { max: number; last: number } } {
  let max = 0;
  let last = 0;
  const timer = setInterval(() => {
    Promise.all(pids.map((pid) => statusMiB(pid, 'VmRSS'))).then(
      (mibs) => {
        last = Math.max(...mibs);
        max = Math.max(max, last);
      },
      () => undefined,
    );
  }, 1000);
  return {
    stop() {
      clearInterval(timer);
      return { max, last };
    },
  };
}

interface WatchRun {
  workers: number;
  cores: number;
  cpuPerCheckMs: number;
  peakRssMiB: number[];
  steady: { max: number; last: number };
  schedule: SlotCount;
  expected: number;
}

async function runWatch(
  shape: WatchFleetShape,
  workers: number,
  setup: { configPath: string; names: string[]; slackUrl: string; nodeOptions: string; redis: Redis },
): Promise<WatchRun> {
  const prefix = testPrefix('bench-watch');
  const procs: WorkerProcess[] = [];
  const intervalMs = shape.intervalS * 1000;
  try {
    for (let w = 0; w < workers; w += 1)
      procs.push(
        startWorkerProcess({
          configPath: setup.configPath,
          prefix,
          slackApiUrl: setup.slackUrl,
          nodeOptions: setup.nodeOptions,
        }),
      );
    await waitUntil(() => procs.every((p) => p.started()), 60_000, 'the workers started');
    const pids = procs.map((p) => p.child.pid ?? 0);
    // Warm-up: every cluster checked once (clients open, schedulers spread over the interval).
    const startedAt = Date.now();
    const warmDeadline = startedAt + 3 * intervalMs;
    const checkedOnce = async () =>
      [...(await checkTimes(setup.redis, prefix, setup.names)).values()].every((t) => t.length > 0);
    while (!(await checkedOnce()) && Date.now() < warmDeadline) await new Promise((r) => setTimeout(r, 2000));
    const cpuBefore = await Promise.all(pids.map(cpuSeconds));
    const from = Date.now();
    const rss = sampleRss(pids);
    await new Promise((r) => setTimeout(r, shape.measureIntervals * intervalMs));
    const cpuAfter = await Promise.all(pids.map(cpuSeconds));
    const to = Date.now();
    const steady = rss.stop();
    // The checks due just before `to` land within a few seconds: wait half an interval, then judge.
    await new Promise((r) => setTimeout(r, intervalMs / 2));
    const schedule = countSlots(await checkTimes(setup.redis, prefix, setup.names), from, to, intervalMs);
    const cpu = cpuAfter.reduce((n, c, i) => n + c - (cpuBefore[i] ?? 0), 0);
    return {
      workers,
      cores: cpu / ((to - from) / 1000),
      cpuPerCheckMs: (cpu / Math.max(1, schedule.checks)) * 1000,
      peakRssMiB: await Promise.all(pids.map((pid) => statusMiB(pid, 'VmHWM'))),
      steady,
      schedule,
      expected: schedule.slots,
    };
  } finally {
    for (const p of procs) p.child.kill('SIGTERM');
    await Promise.all(
      procs.map((p) => new Promise((r) => (p.child.exitCode === null ? p.child.once('exit', r) : r(0)))),
    );
    await purgePrefix(prefix);
  }
}

export async function benchWatchFleet(shape: WatchFleetShape = WATCH_200): Promise<string> {
  const labs: EtcdLab[] = await Promise.all([startEtcdLab(), startEtcdLab()]);
  const fake = await startFakeSlack();
  const dir = await mkdtemp(join(tmpdir(), 'etcd-doctor-watch-bench-'));
  const redis = new Redis(REDIS_URL);
  const configPath = join(dir, 'clusters.yaml');
  const clusters = Array.from({ length: shape.clusters }, (_, i) => {
    const lab = labs[i % 2] as EtcdLab;
    return { name: `c${i}`, etcd: { endpoints: lab.endpoints, metricsUrls: lab.metricsUrls } };
  });
  const file = { clusters, watch: { intervalSeconds: shape.intervalS } };
  await writeFile(configPath, stringify(file, { aliasDuplicateObjects: false }));
  // As deployed: the worker Deployment's NODE_OPTIONS (its heap cap), as the digest fleet bench runs.
  const nodeOptions = process.env.FLEET_NODE_OPTIONS ?? (await deployedNodeOptions());
  const loadBefore = loadavg()[0] ?? 0;
  const runs: WatchRun[] = [];
  try {
    const names = clusters.map((c) => c.name);
    for (const workers of shape.workers)
      runs.push(
        await runWatch(shape, workers, { configPath, names, slackUrl: fake.url, nodeOptions, redis }),
      );
  } finally {
    redis.disconnect();
    await Promise.all([fake.close(), ...labs.map((l) => l.destroy())]);
    await rm(dir, { recursive: true, force: true });
  }
  return watchReport(shape, runs, {
    nodeOptions,
    loadBefore,
    slots: watchCheckSlots(configFileSchema.parse(file)),
  });
}

function watchReport(
  shape: WatchFleetShape,
  runs: WatchRun[],
  at: { nodeOptions: string; loadBefore: number; slots: number },
): string {
  const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met');
  const perCheck = runs.map((r) => r.cpuPerCheckMs);
  const goals =
    shape.workers.length === 1 && runs[0]
      ? [
          `- Goal (issue 17: one worker, ${shape.clusters} clusters): ≤ 0.5 core: ${verdict(runs[0].cores <= 0.5)} (${runs[0].cores.toFixed(3)}); ≤ 300 MiB: ${verdict(Math.max(...runs[0].peakRssMiB) <= 300)}.`,
        ]
      : [
          `- Goal (issue 29: scale-out on one Redis): CPU per check flat (within 25 %): ${verdict(Math.max(...perCheck) <= 1.25 * Math.min(...perCheck))}; no cluster checked twice in an interval: ${verdict(runs.every((r) => r.schedule.twice === 0))}; none skipped: ${verdict(runs.every((r) => r.schedule.skipped === 0))}.`,
        ];
  return [
    `## Watching ${shape.clusters.toLocaleString('en-US')} clusters every ${shape.intervalS} s (${shape.workers.join(' and ')} worker process${shape.workers.length > 1 || shape.workers[0] !== 1 ? 'es' : ''}, two 3-member labs, one Redis)`,
    '',
    row([
      'workers',
      'CPU (all workers) over the window',
      'CPU per check',
      'checks in the window',
      'checked twice in an interval',
      'skipped',
      'peak RSS per worker (VmHWM)',
      'RSS in the window (max, last)',
    ]),
    row(['---', '---', '---', '---', '---', '---', '---', '---']),
    ...runs.map((r) =>
      row([
        r.workers,
        `${r.cores.toFixed(3)} core`,
        `${r.cpuPerCheckMs.toFixed(1)} ms`,
        `${r.schedule.checks} (expected ${r.expected})`,
        r.schedule.twice,
        r.schedule.skipped,
        r.peakRssMiB.map((m) => `${m.toFixed(0)} MiB`).join(' + '),
        `${r.steady.max.toFixed(0)}, ${r.steady.last.toFixed(0)} MiB`,
      ]),
    ),
    '',
    ...goals,
    `- Window: ${shape.measureIntervals} intervals after a warm-up in which every cluster was checked once. Each cluster's scheduler fires at its slots (k × interval + its offset); a slot with two checks in the minute history is a cluster checked twice in one interval, a slot with none a skipped check (test/support/watch-slots.ts). CPU is the worker processes' user + system time (/proc), all job kinds included (BullMQ's own work with it); each worker runs 4 jobs at once plus ${at.slots} for the watch's checks (src/watch/watched-clusters.ts).`,
    `- Workers: ${process.env.ETCD_DOCTOR_COMPILED === '1' ? 'compiled (dist/)' : 'bin/etcd-doctor.js (dist/ if fresh, else tsx)'}, NODE_OPTIONS \`${at.nodeOptions || 'none'}\`. Load average (1 min) ${at.loadBefore.toFixed(1)} at the start, ${(loadavg()[0] ?? 0).toFixed(1)} at the end (2 shared cores; the labs and Redis run on them too).`,
    '',
  ].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const big = process.argv.includes('--2000');
  process.stdout.write(await benchWatchFleet(big ? WATCH_2000_SCALE : WATCH_200));
}
