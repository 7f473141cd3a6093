import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Redis } from 'ioredis';
import { stringify } from 'yaml';
import { createMinuteHistory } from '../src/state/minute-history.js';
import { deployedNodeOptions } from './fleet.js';
import { startFakeSlack } from '../test/support/fake-slack.js';
import { type EtcdLab, startEtcdLab } from '../test/support/lab/etcd-lab.js';
import { purgePrefix, REDIS_URL, testPrefix } from '../test/support/redis-prefix.js';
import { startWorkerProcess, waitUntil } from '../test/support/worker-process.js';

/**
 * Watching 200 clusters every 60 s with one `etcd-doctor worker` process (the goal: at most 0.5
 * core and 300 MiB per worker). The clusters point at two real local 3-member labs (100 each), as
 * the digest fleet bench does. After one warm-up interval, CPU time is read from /proc over
 * MEASURE_INTERVALS intervals; peak RSS is VmHWM.
 */
const CLUSTERS = 200;
const INTERVAL_S = 60;
const MEASURE_INTERVALS = 2;

async function cpuSeconds(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function statusMiB(pid: number, field: 'VmHWM' | 'VmRSS'): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) / 1024;
}

const peakRssMiB = (pid: number) => statusMiB(pid, 'VmHWM');

/** The worker's RSS every second until `stop` resolves: the steady state, apart from start-up. */
function sampleRss(pid: number): { stop(): Promise<{ max: number; last: number }> } {
  let max = 0;
  let last = 0;
  const timer = setInterval(() => {
    statusMiB(pid, 'VmRSS').then(
      (mib) => {
        last = mib;
        max = Math.max(max, mib);
      },
      () => undefined,
    );
  }, 1000);
  return {
    async stop() {
      clearInterval(timer);
      return { max, last };
    },
  };
}

export async function benchWatchFleet(): Promise<string> {
  const labs: EtcdLab[] = await Promise.all([startEtcdLab(), startEtcdLab()]);
  const fake = await startFakeSlack();
  const prefix = testPrefix('bench-watch');
  const dir = await mkdtemp(join(tmpdir(), 'etcd-doctor-watch-bench-'));
  const redis = new Redis(REDIS_URL);
  const configPath = join(dir, 'clusters.yaml');
  const clusters = Array.from({ length: CLUSTERS }, (_, i) => {
    const lab = labs[i % 2] as EtcdLab;
    return { name: `c${i}`, etcd: { endpoints: lab.endpoints, metricsUrls: lab.metricsUrls } };
  });
  await writeFile(configPath, stringify({ clusters, watch: { intervalSeconds: INTERVAL_S } }));
  // As deployed: the worker Deployment's NODE_OPTIONS (its heap cap), as the digest fleet bench runs.
  const nodeOptions = process.env.FLEET_NODE_OPTIONS ?? (await deployedNodeOptions());
  const worker = startWorkerProcess({ configPath, prefix, slackApiUrl: fake.url, nodeOptions });
  try {
    const pid = worker.child.pid ?? 0;
    const history = createMinuteHistory(redis, prefix, Date.now);
    const checked = async () =>
      (await Promise.all(clusters.map(async (c) => (await history.samples(c.name, 0)).length))).reduce(
        (a, b) => a + b,
        0,
      );
    await waitUntil(() => worker.started(), 30_000, 'the worker started');
    // Warm-up: every cluster checked once (clients open, schedulers spread over the minute).
    const warmDeadline = Date.now() + 2 * INTERVAL_S * 1000;
    while ((await checked()) < CLUSTERS && Date.now() < warmDeadline)
      await new Promise((r) => setTimeout(r, 1000));
    const before = { cpu: await cpuSeconds(pid), at: Date.now(), checks: await checked() };
    const rssSamples = sampleRss(pid);
    await new Promise((r) => setTimeout(r, MEASURE_INTERVALS * INTERVAL_S * 1000));
    const after = { cpu: await cpuSeconds(pid), at: Date.now(), checks: await checked() };
    const steady = await rssSamples.stop();
    const cores = (after.cpu - before.cpu) / ((after.at - before.at) / 1000);
    const rss = await peakRssMiB(pid);
    const checks = after.checks - before.checks;
    return [
      `## Watching ${CLUSTERS} clusters every ${INTERVAL_S} s (one worker process, two 3-member labs)`,
      '',
      '| measured | value | goal |',
      '|---|---|---|',
      `| CPU over ${MEASURE_INTERVALS} intervals | ${cores.toFixed(3)} core | ≤ 0.5 core |`,
      `| peak RSS (VmHWM) | ${rss.toFixed(0)} MiB | ≤ 300 MiB |`,
      `| RSS over the ${MEASURE_INTERVALS} intervals (max, last) | ${steady.max.toFixed(0)}, ${steady.last.toFixed(0)} MiB | |`,
      `| worker | ${process.env.ETCD_DOCTOR_COMPILED === '1' ? 'compiled (dist/)' : 'bin/etcd-doctor.js (dist/ if fresh, else tsx)'} | |`,
      `| NODE_OPTIONS | \`${nodeOptions || 'none'}\` | |`,
      `| load average at the end | ${loadavg()
        .map((l) => l.toFixed(1))
        .join(', ')} | |`,
      `| checks in the window | ${checks} (expected ${CLUSTERS * MEASURE_INTERVALS}) | |`,
      `| CPU per check | ${(((after.cpu - before.cpu) / Math.max(1, checks)) * 1000).toFixed(1)} ms | |`,
      '',
    ].join('\n');
  } finally {
    worker.child.kill('SIGTERM');
    redis.disconnect();
    await Promise.all([fake.close(), ...labs.map((l) => l.destroy())]);
    await purgePrefix(prefix);
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.stdout.write(await benchWatchFleet());
}
