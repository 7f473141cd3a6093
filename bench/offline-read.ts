import { execFile } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createGzip } from 'node:zlib';
import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import tarStream from 'tar-stream';
import { MG_ROOT, mustGatherFiles } from '../test/support/offline/offline-fixtures.js';
import { row } from './stats.js';

const run = promisify(execFile);

/**
 * Reading a big must-gather (the goal: 1 GiB in under 60 s, peak RSS under 200 MiB). The tarball
 * is generated into $TMPDIR and removed after: the OpenShift scenario's objects plus three etcd
 * members' `current.log` of realistic etcd 3.5 zap lines with the `--timestamps` prefix `oc adm
 * inspect` writes (mostly apply/trace/compaction lines; member 2 has a slow disk). Beside it, in
 * the same run, the shell baseline `tar -xzOf x.tar.gz | grep -c 'slow fdatasync'`.
 */
const TOTAL_LOG_BYTES = Number(process.env.BENCH_OFFLINE_BYTES ?? 1024 ** 3);
const MEMBERS = ['master-0', 'master-1', 'master-2'];
const SLOW_MEMBER = 'master-1';
const START_MS = Date.parse('2024-05-13T09:30:00Z');

const keys = ['pods', 'secrets', 'configmaps', 'events', 'leases', 'services/specs', 'deployments'];

function zapLine(i: number, member: string, atMs: number): string {
  const ts = new Date(atMs).toISOString();
  const prefix = `${ts.replace('Z', '000000Z')} `; // the kubelet's RFC 3339 nanoseconds
  const key = `/kubernetes.io/${keys[i % keys.length]}/ns-${i % 97}/obj-${(i * 7919) % 100003}`;
  if (member === SLOW_MEMBER && i % 500 === 0) {
    return `${prefix}{"level":"warn","ts":"${ts}","caller":"wal/wal.go:805","msg":"slow fdatasync","took":"${1 + (i % 3000) / 1000}s","expected-duration":"1s"}`;
  }
  switch (i % 5) {
    case 0:
      return `${prefix}{"level":"warn","ts":"${ts}","caller":"etcdserver/util.go:170","msg":"apply request took too long","took":"${100 + (i % 400)}.${i % 997}ms","expected-duration":"100ms","prefix":"read-only range ","request":"key:\\"${key}\\" ","response":"range_response_count:1 size:${1000 + (i % 9000)}"}`;
    case 1:
      return `${prefix}{"level":"info","ts":"${ts}","caller":"traceutil/trace.go:171","msg":"trace[${(i * 104729) % 1000000007}] range","detail":"{range_begin:${key}; range_end:; response_count:1; response_revision:${40581122 + i}; }","duration":"${100 + (i % 300)}.${i % 991}ms","start":"${ts}","end":"${ts}","steps":["trace[${i}] 'agreement among raft nodes before linearized reading'  (duration: ${99 + (i % 300)}ms)"],"step_count":1}`;
    case 2:
      return `${prefix}{"level":"info","ts":"${ts}","caller":"mvcc/kvstore_compaction.go:66","msg":"finished scheduled compaction","compact-revision":${40581122 + i},"took":"${200 + (i % 100)}.${i % 977}ms","hash":${(i * 2654435761) % 4294967296},"current-db-size-bytes":191234048,"current-db-size":"191 MB","current-db-size-in-use-bytes":101310464,"current-db-size-in-use":"101 MB"}`;
    case 3:
      return `${prefix}{"level":"info","ts":"${ts}","caller":"etcdserver/server.go:1395","msg":"triggering snapshot","local-member-id":"8e9e05c52164694d","local-member-applied-index":${51234567 + i},"local-member-snapshot-index":${51134567 + i},"local-member-snapshot-count":100000}`;
    default:
      return `${prefix}{"level":"warn","ts":"${ts}","caller":"v3rpc/interceptor.go:197","msg":"request stats","start time":"${ts}","time spent":"${100 + (i % 900)}.${i % 983}ms","remote":"127.20.1.1${i % 3}:${40000 + (i % 20000)}","response type":"/etcdserverpb.KV/Range","request count":0,"request size":${60 + (i % 40)},"response count":${i % 500},"response size":${i % 65536},"request content":"key:\\"${key}\\" limit:500 "}`;
  }
}

/** Writes one member's log into the tar entry: exactly `size` bytes; returns its slow fdatasync lines. */
async function writeLog(entry: NodeJS.WritableStream, member: string, size: number): Promise<number> {
  let remaining = size;
  let i = 0;
  let slow = 0;
  const stepMs = (24 * 3600 * 1000) / (size / 300);
  while (remaining > 0) {
    let block = '';
    while (block.length < 1 << 20 && remaining - block.length > 2048) {
      const line = zapLine(i, member, START_MS + i * stepMs);
      if (line.includes('slow fdatasync')) slow++;
      block += `${line}\n`;
      i++;
    }
    if (remaining - block.length <= 2048) block += `${' '.repeat(remaining - block.length - 1)}\n`;
    remaining -= block.length;
    if (!entry.write(Buffer.from(block, 'latin1')))
      await new Promise((r) => entry.once('drain', () => r(undefined)));
  }
  return slow;
}

export async function generate(path: string): Promise<number> {
  const pack = tarStream.pack();
  const done = pipeline(pack, createGzip({ level: 6 }), createWriteStream(path));
  for (const file of mustGatherFiles('openshift-4.14-healthy')) {
    if (file.path.endsWith('/logs/current.log') && file.path.includes('/etcd-master-')) continue;
    await new Promise<void>((resolve, reject) =>
      pack.entry({ name: file.path, mode: 0o644 }, file.content ?? '', (err) =>
        err ? reject(err) : resolve(),
      ),
    );
  }
  let slow = 0;
  for (const member of MEMBERS) {
    const size = Math.floor(TOTAL_LOG_BYTES / MEMBERS.length);
    const name = `${MG_ROOT}/namespaces/openshift-etcd/pods/etcd-${member}/etcd/etcd/logs/current.log`;
    const entry = pack.entry({ name, size, mode: 0o644 }) as unknown as NodeJS.WritableStream;
    const finished = new Promise((r) => entry.once('finish', () => r(undefined)));
    slow += await writeLog(entry, member, size);
    entry.end();
    await finished;
  }
  pack.finalize();
  await done;
  return slow;
}

interface ChildResult {
  wallMs: number;
  rssBeforeBytes: number;
  maxRssBytes: number;
  /** The longest the event loop was held at once while reading (monitorEventLoopDelay, 10 ms resolution). */
  loopDelayMaxMs: number;
  loopDelayP99Ms: number;
  slowFdatasync: number;
  lines: number;
  summary: { bytes: number; entries: number };
}

const mib = (bytes: number) => `${(bytes / 1024 ** 2).toFixed(0)} MiB`;
const sec = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

export async function benchOfflineRead(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'etcd-doctor-bench-mg-'));
  try {
    const path = join(dir, 'must-gather.tar.gz');
    const generatedAt = performance.now();
    const slowWritten = await generate(path);
    const generateMs = performance.now() - generatedAt;
    const gzBytes = (await stat(path)).size;

    const shell = `tar -xzOf '${path}' | grep -c 'slow fdatasync'`;
    const base = await timed(() =>
      run('/usr/bin/time', ['-f', '%M', 'bash', '-c', shell], { maxBuffer: 1 << 20 }),
    );
    const baseCount = Number(base.value.stdout.trim());
    const baseRss = Number(base.value.stderr.trim().split('\n').at(-1)) * 1024;

    const reader = await measure(path, 'reader');
    const analysis = await measure(path, 'analysis');
    const bytes = reader.result.summary.bytes;
    return [
      '## Offline triage: reading a big must-gather (.tar.gz)',
      '',
      `Generated into $TMPDIR and removed after (${sec(generateMs)}): the OpenShift 4.14 scenario's objects and three ` +
        `etcd members' \`current.log\` of realistic etcd 3.5 zap lines with the \`--timestamps\` prefix, ${mib(bytes)} ` +
        `uncompressed (${reader.result.lines.toLocaleString('en-US')} log lines), ${mib(gzBytes)} as .tar.gz (gzip -6). ` +
        `One member logs ${slowWritten} × \`slow fdatasync\`. Each of ours runs in its own Node process (through tsx). ` +
        'Targets: under 60 s, peak RSS under 200 MiB.',
      '',
      '| what | wall time (process) | of which reading | RSS after imports | peak RSS | event loop held (max, p99) | `slow fdatasync` found |',
      '| --- | --- | --- | --- | --- | --- | --- |',
      row([
        "`tar -xzOf x.tar.gz \\| grep -c 'slow fdatasync'` (shell baseline)",
        sec(base.ms),
        '',
        '',
        mib(baseRss),
        '',
        baseCount,
      ]),
      ourRow('`readCollection`, a sink that counts lines (the readers alone)', reader),
      ourRow('`readCollection` into the analysis sink (`createOfflineSink`)', analysis),
      '',
      `- Readers alone: ${(reader.result.wallMs / base.ms).toFixed(1)}× the shell baseline, ` +
        `${(bytes / 1024 ** 2 / (reader.result.wallMs / 1000)).toFixed(0)} MiB/s uncompressed; with the analysis sink ` +
        `${(bytes / 1024 ** 2 / (analysis.result.wallMs / 1000)).toFixed(0)} MiB/s.`,
      targets(analysis),
      `- Run ${new Date().toISOString()} on ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, load average ` +
        `${loadavg()[0]?.toFixed(1)} (a shared host); $TMPDIR on ${tmpdir()}.`,
      '',
    ].join('\n');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function measure(path: string, mode: 'reader' | 'analysis') {
  const child = await timed(() =>
    run(process.execPath, ['--import', 'tsx', 'bench/offline-read-child.ts', path, mode], {
      maxBuffer: 1 << 20,
    }),
  );
  return { ms: child.ms, result: JSON.parse(child.value.stdout) as ChildResult };
}

function targets(m: { ms: number; result: ChildResult }): string {
  const r = m.result;
  const yes = (ok: boolean) => (ok ? 'met' : 'NOT met');
  return (
    `- With the analysis sink: under 60 s ${yes(m.ms < 60_000)} (${sec(m.ms)}); peak RSS under 200 MiB ` +
    `${yes(r.maxRssBytes < 200 * 1024 ** 2)} (${mib(r.maxRssBytes)}, of which ${mib(r.rssBeforeBytes)} before the ` +
    'first byte is read: the modules the analysis imports, and tsx).'
  );
}

function ourRow(what: string, m: { ms: number; result: ChildResult }): string {
  const r = m.result;
  const held = `${r.loopDelayMaxMs} ms, ${r.loopDelayP99Ms} ms`;
  return row([
    what,
    sec(m.ms),
    sec(r.wallMs),
    mib(r.rssBeforeBytes),
    mib(r.maxRssBytes),
    held,
    r.slowFdatasync,
  ]);
}

async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await fn();
  return { value, ms: performance.now() - started };
}
