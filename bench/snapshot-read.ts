import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Etcd3 } from 'etcd3';
import { startEtcdLab } from '../test/support/lab/etcd-lab.js';
import { row } from './stats.js';

const run = promisify(execFile);

/**
 * Reading an etcd snapshot of a few tens of MB (docs/space.md): a one-member lab filled with
 * Kubernetes-shaped keys (events, pods, configmaps, a custom resource; values 500 B to 200 kB,
 * some overwritten), `etcdctl snapshot save`, then `analyzeSnapshot` in its own process, beside
 * `etcdctl snapshot status` (which also walks every page) as the baseline.
 */
const TARGET_BYTES = Number(process.env.BENCH_SNAPSHOT_BYTES ?? 40 * 1024 ** 2);
const CONCURRENCY = 16;

function keyAt(i: number): { key: string; bytes: number } {
  const ns = `ns-${i % 40}`;
  if (i % 500 === 0) return { key: `/registry/configmaps/${ns}/bundle-${i}`, bytes: 200_000 };
  if (i % 4 === 0) return { key: `/registry/pods/${ns}/pod-${i}`, bytes: 4000 };
  if (i % 4 === 1) return { key: `/registry/example.com/widgets/${ns}/w-${i}`, bytes: 1500 };
  return { key: `/registry/events/${ns}/ev-${i}`, bytes: 500 };
}

async function fill(endpoints: string[]): Promise<number> {
  const client = new Etcd3({ hosts: endpoints });
  try {
    let written = 0;
    let next = 0;
    const worker = async () => {
      while (written < TARGET_BYTES) {
        const i = next++;
        const { key, bytes } = keyAt(i % 3 === 2 && i > 1000 ? i - 1000 : i); // every third a rewrite
        written += bytes;
        await client.put(key).value(Buffer.alloc(bytes, 0x61 + (i % 26)));
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    return next;
  } finally {
    client.close();
  }
}

interface ChildResult {
  wallMs: number;
  rssBeforeBytes: number;
  maxRssBytes: number;
  totalKeys: number;
  sizeBytes: number;
  hashOk: boolean | null;
}

const mib = (bytes: number) => `${(bytes / 1024 ** 2).toFixed(1)} MiB`;

export async function benchSnapshotRead(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'etcd-doctor-bench-snap-'));
  const lab = await startEtcdLab({ size: 1 });
  try {
    const puts = await fill(lab.endpoints);
    const path = join(dir, 'snapshot.db');
    const saved = await lab.etcdctl(['snapshot', 'save', path, `--endpoints=${lab.endpoints[0]}`], {
      timeoutMs: 120_000,
    });
    if (saved.code !== 0) throw new Error(`etcdctl snapshot save: ${saved.stderr}`);
    const baseStarted = performance.now();
    const base = await run(
      '/usr/bin/time',
      ['-f', '%M', 'etcdctl', 'snapshot', 'status', path, '-w', 'json'],
      {
        env: { ETCDCTL_API: '3' },
      },
    );
    const baseMs = performance.now() - baseStarted;
    const baseRss = Number(base.stderr.trim().split('\n').at(-1)) * 1024;
    const baseKeys = (JSON.parse(base.stdout) as { totalKey: number }).totalKey;
    const child = await run(process.execPath, ['--import', 'tsx', 'bench/snapshot-read-child.ts', path]);
    const r = JSON.parse(child.stdout) as ChildResult;
    const mbps = (bytes: number, ms: number) => `${(bytes / 1e6 / (ms / 1000)).toFixed(0)} MB/s`;
    return [
      '## Reading an etcd snapshot (`analyze snapshot.db`)',
      '',
      `A one-member lab, ${puts.toLocaleString('en-US')} puts of Kubernetes-shaped keys (events, pods, a custom ` +
        `resource, 200 kB configmaps; every third a rewrite), then \`etcdctl snapshot save\`: ${mib(r.sizeBytes)}, ` +
        `${r.totalKeys.toLocaleString('en-US')} live keys, SHA-256 ${r.hashOk ? 'ok' : 'NOT ok'}.`,
      '',
      '| what | wall time | read speed | peak RSS |',
      '| --- | --- | --- | --- |',
      row([
        `\`etcdctl snapshot status\` (baseline; every revision: ${baseKeys.toLocaleString('en-US')})`,
        `${baseMs.toFixed(0)} ms (process)`,
        mbps(r.sizeBytes, baseMs),
        mib(baseRss),
      ]),
      row([
        '`analyzeSnapshot` (pages, trailer, live keys, breakdown)',
        `${r.wallMs.toFixed(0)} ms (reading)`,
        mbps(r.sizeBytes, r.wallMs),
        `${mib(r.maxRssBytes)} (${mib(r.rssBeforeBytes)} before the first byte)`,
      ]),
      '',
      `- Run ${new Date().toISOString()} on ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, load average ` +
        `${loadavg()[0]?.toFixed(1)}; $TMPDIR on ${tmpdir()}.`,
      '',
    ].join('\n');
  } finally {
    await lab.destroy();
    await rm(dir, { recursive: true, force: true });
  }
}
