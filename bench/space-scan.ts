import { execFile, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Etcd3 } from 'etcd3';
import { stringify } from 'yaml';
import type { SpaceReport } from '../src/space/space-report.js';
import { type EtcdLab, startEtcdLab } from '../test/support/lab/etcd-lab.js';
import { ms, percentile, row } from './stats.js';

const run = promisify(execFile);

/**
 * The cost of `etcd-doctor space` (docs/space.md): a 3-member lab filled with Kubernetes-shaped keys to
 * BENCH_SPACE_BYTES (default 1 GB: three members of that on the lab's tmpfs is what this shared
 * machine can hold beside the other sessions; 2 GB with BENCH_SPACE_BYTES=2000000000), then
 *  - the scan's speed and the load it adds to the follower it reads (the member's own counters:
 *    etcd_mvcc_range_total, etcd_network_client_grpc_sent_bytes_total, process_cpu_seconds_total),
 *    beside `etcdctl get "" --prefix --keys-only | wc -l` on the same data;
 *  - the writes-slowdown check: put latency at a steady rate, in alternating windows without and
 *    with a scan at the default 5 MB/s, in its own process (the goal: at most 10 % slower).
 */
const TARGET_BYTES = Number(process.env.BENCH_SPACE_BYTES ?? 1_000_000_000);
const WINDOW_MS = Number(process.env.BENCH_SPACE_WINDOW_MS ?? 20_000);
const WINDOW_PAIRS = Number(process.env.BENCH_SPACE_ROUNDS ?? 3);
const PUTS_PER_SECOND = 100;
const FILL_CONCURRENCY = 24;
const LAB_DIR = process.env.BENCH_SPACE_DIR ?? tmpdir();
const say = (line: string) => console.error(`bench space-scan: ${line}`);

function keyAt(i: number): { key: string; bytes: number } {
  const ns = `ns-${i % 50}`;
  if (i % 200 === 0) return { key: `/registry/configmaps/${ns}/helm-release-${i}`, bytes: 250_000 };
  if (i % 10 === 1) return { key: `/registry/example.com/widgets/${ns}/w-${i}`, bytes: 60_000 };
  if (i % 3 === 0) return { key: `/registry/pods/${ns}/pod-${i}`, bytes: 8_000 };
  return { key: `/registry/events/${ns}/ev-${i}`, bytes: 1_500 };
}

async function fill(endpoints: string[]): Promise<{ puts: number; seconds: number }> {
  const client = new Etcd3({ hosts: endpoints });
  const started = performance.now();
  try {
    let written = 0;
    let next = 0;
    const worker = async () => {
      while (written < TARGET_BYTES) {
        const { key, bytes } = keyAt(next++);
        written += bytes;
        await client.put(key).value(Buffer.alloc(bytes, 0x61 + (next % 26)));
      }
    };
    await Promise.all(Array.from({ length: FILL_CONCURRENCY }, worker));
    return { puts: next, seconds: (performance.now() - started) / 1000 };
  } finally {
    client.close();
  }
}

/** The member's own counters, summed over their label sets. */
async function counters(metricsUrl: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${metricsUrl}/metrics`)).text();
  const names = [
    'etcd_mvcc_range_total',
    'etcd_network_client_grpc_sent_bytes_total',
    'process_cpu_seconds_total',
  ];
  const out: Record<string, number> = {};
  for (const name of names)
    out[name] = text
      .split('\n')
      .filter((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`))
      .reduce((sum, l) => sum + Number(l.split(/\s+/).at(-1)), 0);
  return out;
}

interface Measured {
  what: string;
  wallMs: number;
  keys: number;
  bytes: number;
  /** The scan's own time (without the process start and the churn window), when it reports one. */
  scanMs?: number;
  complete?: boolean;
  ranges: number;
  sentBytes: number;
  cpuSeconds: number;
}

async function measured(
  what: string,
  metricsUrl: string,
  work: () => Promise<{ keys: number; bytes: number; scanMs?: number; complete?: boolean }>,
) {
  const before = await counters(metricsUrl);
  const started = performance.now();
  const done = await work();
  const wallMs = performance.now() - started;
  const after = await counters(metricsUrl);
  const d = (k: string) => (after[k] ?? 0) - (before[k] ?? 0);
  return {
    what,
    wallMs,
    ...done,
    ranges: d('etcd_mvcc_range_total'),
    sentBytes: d('etcd_network_client_grpc_sent_bytes_total'),
    cpuSeconds: d('process_cpu_seconds_total'),
  } satisfies Measured;
}

/**
 * `etcd-doctor space` in its own process (as a user runs it), so its CPU is not the write load's;
 * `reading` resolves once it says it reads values (its progress line), `cpuSeconds()` is its own
 * CPU so far (/proc). `nice` runs it at the lowest priority.
 */
function spaceProcess(configPath: string, extra: string[], nice = false) {
  const args = ['--import', 'tsx', 'src/main.ts', 'space', 'lab', '-c', configPath, '--json', ...extra];
  const child = nice
    ? spawn('nice', ['-n', '19', process.execPath, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
    : spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => {
    out += c.toString();
  });
  const reading = new Promise<void>((resolve) => {
    child.stderr.on('data', (c: Buffer) => {
      if (c.toString().includes('Reading the values')) resolve();
    });
    child.on('exit', () => resolve());
  });
  const done = new Promise<SpaceReport>((resolve, reject) => {
    child.on('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out) as SpaceReport) : reject(new Error(`space exited ${code}`)),
    );
  });
  const cpuSeconds = (): number => {
    try {
      // utime and stime, fields 14 and 15 of /proc/<pid>/stat, in clock ticks (100 per second).
      const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
      return (Number(fields[11]) + Number(fields[12])) / 100;
    } catch {
      return Number.NaN;
    }
  };
  return { done, reading, cpuSeconds, kill: () => child.kill('SIGTERM') };
}

/** Puts at a steady rate for `windowMs`; each put's latency. */
async function writeWindow(client: Etcd3, windowMs: number, tag: string): Promise<number[]> {
  const latencies: number[] = [];
  const end = Date.now() + windowMs;
  const value = Buffer.alloc(1000, 0x62);
  let i = 0;
  const inflight: Promise<void>[] = [];
  while (Date.now() < end) {
    const at = performance.now();
    inflight.push(
      client
        .put(`/registry/leases/bench/${tag}-${i++ % 500}`)
        .value(value)
        .then(() => {
          latencies.push(performance.now() - at);
        }),
    );
    await new Promise((r) => setTimeout(r, 1000 / PUTS_PER_SECOND));
  }
  await Promise.all(inflight);
  return latencies;
}

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;
const mbps = (bytes: number, wallMs: number) => `${(bytes / 1e6 / (wallMs / 1000)).toFixed(1)} MB/s`;

function loadRows(rows: Measured[]): string[] {
  return rows.map((r) =>
    row([
      r.what,
      `${(r.wallMs / 1000).toFixed(1)} s${r.scanMs === undefined ? '' : ` (scan ${(r.scanMs / 1000).toFixed(1)} s)`}`,
      r.keys.toLocaleString('en-US'),
      `${mb(r.bytes)}${r.complete === false ? ' (time box: partial)' : ''}`,
      r.scanMs === undefined ? 'keys only' : mbps(r.bytes, r.scanMs),
      r.ranges.toLocaleString('en-US'),
      `${mb(r.sentBytes)} (${mbps(r.sentBytes, r.wallMs)})`,
      `${r.cpuSeconds.toFixed(1)} s (${((100 * r.cpuSeconds) / (r.wallMs / 1000)).toFixed(0)} % of a core)`,
    ]),
  );
}

async function scanCosts(lab: EtcdLab, configPath: string, follower: number): Promise<Measured[]> {
  const endpoint = lab.endpoints[follower] ?? '';
  const metricsUrl = lab.metricsUrls[follower] ?? '';
  const etcdctl = await measured(
    '`etcdctl get "" --prefix --keys-only --consistency=s \\| wc -l`',
    metricsUrl,
    async () => {
      const { stdout } = await run(
        'sh',
        [
          '-c',
          `ETCDCTL_API=3 etcdctl --command-timeout=120s --endpoints=${endpoint} get "" --prefix --keys-only --consistency=s | wc -l`,
        ],
        { maxBuffer: 1024 ** 2 },
      );
      // keys-only prints each key and an empty line.
      return { keys: Math.round(Number(stdout.trim()) / 2), bytes: 0 };
    },
  );
  const space = async (what: string, extra: string[]) =>
    measured(what, metricsUrl, async () => {
      const r = await spaceProcess(configPath, extra).done;
      return {
        keys: r.totalKeys,
        bytes: r.scan.bytesRead,
        scanMs: r.scan.durationMs,
        complete: r.scan.complete,
      };
    });
  return [
    etcdctl,
    await space('`etcd-doctor space` unthrottled (`--rate 1000`): count, keys-only, values', [
      '--rate',
      '1000',
      '--max-seconds',
      '600',
    ]),
    await space('`etcd-doctor space` at the default 5 MB/s, 30 s time box', ['--max-seconds', '30']),
  ];
}

interface Windows {
  without: number[];
  with: number[];
  niced: number[];
  /** The scan process's own CPU, seconds per second of window, normal and niced. */
  scanCpu: number[];
  nicedCpu: number[];
}

/** One window of puts while a scan reads values (started, and reading, before the window opens). */
async function withScan(client: Etcd3, configPath: string, tag: string, nice: boolean) {
  const scan = spaceProcess(configPath, ['--max-seconds', String(Math.ceil(WINDOW_MS / 1000) + 60)], nice);
  await scan.reading;
  const cpuBefore = scan.cpuSeconds();
  const latencies = await writeWindow(client, WINDOW_MS, tag);
  const cpu = (scan.cpuSeconds() - cpuBefore) / (WINDOW_MS / 1000);
  scan.kill();
  await scan.done.catch(() => undefined);
  return { latencies, cpu };
}

async function slowdown(lab: EtcdLab, configPath: string): Promise<Windows> {
  const leaderName = await lab.leaderName();
  const leader = lab.members.findIndex((m) => m.name === leaderName);
  const client = new Etcd3({ hosts: [lab.endpoints[Math.max(0, leader)] ?? ''] });
  const w: Windows = { without: [], with: [], niced: [], scanCpu: [], nicedCpu: [] };
  try {
    await writeWindow(client, 2000, 'warm');
    for (let round = 0; round < WINDOW_PAIRS; round++) {
      w.without.push(...(await writeWindow(client, WINDOW_MS, `a${round}`)));
      const normal = await withScan(client, configPath, `b${round}`, false);
      w.with.push(...normal.latencies);
      w.scanCpu.push(normal.cpu);
      const niced = await withScan(client, configPath, `c${round}`, true);
      w.niced.push(...niced.latencies);
      w.nicedCpu.push(niced.cpu);
    }
    return w;
  } finally {
    client.close();
  }
}

export async function benchSpaceScan(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'etcd-doctor-bench-space-'));
  // On disk, not the lab's default tmpfs: three members of 1 GB (and their WALs) in RAM is more
  // than this shared machine can spare beside the other sessions (a run on tmpfs was killed).
  const lab = await startEtcdLab({ quotaBackendBytes: 8 * 1024 ** 3, baseDir: LAB_DIR });
  try {
    say(`filling ${mb(TARGET_BYTES)} in ${LAB_DIR}`);
    const filled = await fill(lab.endpoints);
    say(`filled in ${filled.seconds.toFixed(0)} s; scanning`);
    const configPath = join(dir, 'etcd-doctor.yaml');
    await writeFile(
      configPath,
      stringify({
        clusters: [
          {
            name: 'lab',
            etcd: { endpoints: lab.endpoints, metricsUrls: lab.metricsUrls },
            space: { churnSeconds: 1 },
          },
        ],
      }),
    );
    const probe = await spaceProcess(configPath, ['--max-seconds', '5']).done;
    const follower = lab.members.findIndex((m) => m.name === probe.scan.member);
    const costs = await scanCosts(lab, configPath, follower);
    say('write windows');
    const loadBefore = loadavg()[0] ?? 0;
    const writes = await slowdown(lab, configPath);
    const cpu = (v: number[]) =>
      `${((100 * v.reduce((x, y) => x + y, 0)) / v.length).toFixed(0)} % of a core`;
    const stat = (v: number[]) => ({
      p50: percentile(v, 50),
      p99: percentile(v, 99),
      mean: v.reduce((a, b) => a + b, 0) / v.length,
    });
    const a = stat(writes.without);
    const b = stat(writes.with);
    const c = stat(writes.niced);
    const change = (x: number, y: number) => `${y >= x ? '+' : ''}${((100 * (y - x)) / x).toFixed(1)} %`;
    return [
      '## What fills etcd: the scan (`etcd-doctor space`)',
      '',
      `A 3-member lab (data dirs on ${LAB_DIR === tmpdir() ? 'the VM disk' : LAB_DIR}) filled with ${filled.puts.toLocaleString('en-US')} puts of Kubernetes-shaped keys ` +
        `(events 1.5 kB, pods 8 kB, widgets.example.com 60 kB, 250 kB configmaps) to ${mb(TARGET_BYTES)} of values in ` +
        `${filled.seconds.toFixed(0)} s; the database is ${mb(probe.dbSize)}, ${probe.totalKeys.toLocaleString('en-US')} keys. ` +
        `Every row reads the follower ${probe.scan.member}; its load is its own counters' change over the row.`,
      '',
      '| what | wall (process) | keys | key + value bytes read | read speed (scan time) | ranges served | bytes sent to clients | member CPU |',
      '| --- | --- | --- | --- | --- | --- | --- | --- |',
      ...loadRows(costs),
      '',
      `Writes while it reads: ${PUTS_PER_SECOND} puts/s of 1 kB to the leader, ${WINDOW_PAIRS} rounds of three ` +
        `${WINDOW_MS / 1000} s windows: without a scan; with a scan at the default 5 MB/s reading values (in its own ` +
        'process, started before the window and reading when it opens); the same with the scan process at `nice -n 19`. ' +
        'On this 2-core VM the scan process (Node decoding 5 MB/s) shares the cores with the three members and the ' +
        'write load; the niced rows show what the member side costs when the reader runs elsewhere, as in a deployment.',
      '',
      '| put latency | p50 | p99 | mean | puts |',
      '| --- | --- | --- | --- | --- |',
      row(['without a scan', ms(a.p50), ms(a.p99), ms(a.mean), writes.without.length]),
      row([
        `with a scan at 5 MB/s (scan process ${cpu(writes.scanCpu)})`,
        ms(b.p50),
        ms(b.p99),
        ms(b.mean),
        writes.with.length,
      ]),
      row([
        'change (goal: at most +10 %)',
        change(a.p50, b.p50),
        change(a.p99, b.p99),
        change(a.mean, b.mean),
        '',
      ]),
      row([
        `with a scan, its process niced (${cpu(writes.nicedCpu)})`,
        ms(c.p50),
        ms(c.p99),
        ms(c.mean),
        writes.niced.length,
      ]),
      row([
        'change (goal: at most +10 %)',
        change(a.p50, c.p50),
        change(a.p99, c.p99),
        change(a.mean, c.mean),
        '',
      ]),
      '',
      `- Run ${new Date().toISOString()} on ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}; load average ` +
        `${loadBefore.toFixed(1)} before the write windows, ${(loadavg()[0] ?? 0).toFixed(1)} after (the machine is shared with other sessions).`,
      '',
    ].join('\n');
  } finally {
    await lab.destroy();
    await rm(dir, { recursive: true, force: true });
  }
}
