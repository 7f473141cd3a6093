import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import type * as ScanLogs from '../src/etcd/scan-logs.js';
import * as current from '../src/etcd/scan-logs.js';
import { median, row } from './stats.js';

const run = promisify(execFile);

/**
 * Issue 37: the read of a 100 MB etcd log with the catalogue (src/etcd/catalogue.ts) beside the same
 * read before it, in one run. "Before" is src/etcd at the parent of the commit that added the
 * catalogue, taken out of git into .etcd-doctor/ (src/etcd imports nothing outside itself); both read the
 * same lines in the same process, alternately, RUNS times each, and their medians are compared.
 * Goal: at most 20 % slower. The log is etcd 3.5 zap lines (applies, traces, compactions, request
 * stats) with one line in 40 at error level that no signal counts, the only lines the catalogue reads:
 * an unmapped gRPC error (context: no longer unexplained), a message it does not know, and a
 * capnslog publish error (evidence for quorum-lost: quoted with its meaning).
 */
const TOTAL_BYTES = Number(process.env.BENCH_CATALOGUE_BYTES ?? 100 * 1024 ** 2);
const RUNS = 3;
const GOAL = 1.2;
const START_MS = Date.parse('2024-05-13T09:30:00Z');

function logLine(i: number): string {
  const ts = new Date(START_MS + i * 50).toISOString();
  const key = `/registry/pods/ns-${i % 97}/pod-${(i * 7919) % 100003}`;
  if (i % 40 === 39) {
    switch (((i / 40) % 3) | 0) {
      case 0:
        return `{"level":"error","ts":"${ts}","caller":"v3rpc/util.go:123","msg":"unexpected error code","error":"rpc error: code = Unknown desc = ${i % 7}"}`;
      case 1:
        return `{"level":"error","ts":"${ts}","caller":"v3rpc/x.go:1","msg":"a message etcd-doctor does not know","error":"code ${i % 7}"}`;
      default:
        return `${ts.replace('T', ' ').replace('Z', '000')} E | etcdserver: publish error: etcdserver: server stopped`;
    }
  }
  switch (i % 4) {
    case 0:
      return `{"level":"warn","ts":"${ts}","caller":"etcdserver/util.go:170","msg":"apply request took too long","took":"${100 + (i % 400)}.${i % 997}ms","expected-duration":"100ms","prefix":"read-only range ","request":"key:\\"${key}\\" ","response":"range_response_count:1 size:${1000 + (i % 9000)}"}`;
    case 1:
      return `{"level":"info","ts":"${ts}","caller":"traceutil/trace.go:171","msg":"trace[${(i * 104729) % 1000000007}] range","detail":"{range_begin:${key}; range_end:; response_count:1; }","duration":"${100 + (i % 300)}ms","start":"${ts}","end":"${ts}","step_count":1}`;
    case 2:
      return `{"level":"info","ts":"${ts}","caller":"mvcc/kvstore_compaction.go:66","msg":"finished scheduled compaction","compact-revision":${40581122 + i},"took":"${200 + (i % 100)}.${i % 977}ms","hash":${(i * 2654435761) % 4294967296}}`;
    default:
      return `{"level":"warn","ts":"${ts}","caller":"v3rpc/interceptor.go:197","msg":"request stats","start time":"${ts}","time spent":"${100 + (i % 900)}ms","remote":"127.20.1.1${i % 3}:${40000 + (i % 20000)}","response type":"/etcdserverpb.KV/Range","request count":0,"request size":${60 + (i % 40)},"response count":${i % 500},"response size":${i % 65536},"request content":"key:\\"${key}\\" limit:500 "}`;
  }
}

function logLines(bytes: number): string[] {
  const lines: string[] = [];
  for (let size = 0, i = 0; size < bytes; i++) {
    const line = logLine(i);
    lines.push(line);
    size += line.length + 1;
  }
  return lines;
}

/** src/etcd as it was before the catalogue, extracted into `dir`. */
async function loadBefore(dir: string): Promise<typeof ScanLogs> {
  const added = (
    await run('git', ['log', '--diff-filter=A', '--format=%H', '--', 'src/etcd/catalogue.ts'])
  ).stdout
    .trim()
    .split('\n')
    .at(-1);
  if (!added) throw new Error('no commit adds src/etcd/catalogue.ts');
  await run('sh', ['-c', `git archive ${added}^ src/etcd | tar -x -C "${dir}"`]);
  return (await import(
    pathToFileURL(join(process.cwd(), dir, 'src/etcd/scan-logs.ts')).href
  )) as typeof ScanLogs;
}

function readAll(mod: typeof ScanLogs, lines: readonly string[]): { ms: number; unexplained: number } {
  const started = performance.now();
  const signals = mod.emptySignals();
  for (const line of lines) mod.scanLine(line, signals);
  const unexplained = signals.unexplainedErrors.reduce((n, e) => n + e.count, 0);
  return { ms: performance.now() - started, unexplained };
}

export async function benchCatalogueRead(): Promise<string> {
  // Inside the package (as ES modules, like src/), in the ignored .etcd-doctor/ work directory.
  await mkdir('.etcd-doctor', { recursive: true });
  const dir = await mkdtemp(join('.etcd-doctor', 'bench-catalogue-before-'));
  try {
    const before = await loadBefore(dir);
    const lines = logLines(TOTAL_BYTES);
    const times = { before: [] as number[], after: [] as number[] };
    let unexplained = { before: 0, after: 0 };
    readAll(before, lines.slice(0, 20_000)); // warm-up, both
    readAll(current, lines.slice(0, 20_000));
    for (let r = 0; r < RUNS; r++) {
      const b = readAll(before, lines);
      const a = readAll(current, lines);
      times.before.push(b.ms);
      times.after.push(a.ms);
      unexplained = { before: b.unexplained, after: a.unexplained };
    }
    const ratio = median(times.after) / median(times.before);
    const mb = (TOTAL_BYTES / 1024 ** 2).toFixed(0);
    return [
      `## Reading a ${mb} MB etcd log with the catalogue, beside the same read before it`,
      '',
      `${lines.length} lines (1 in 40 an error line no signal counts); ${RUNS} reads each, alternating, in one process; ${cpus().length} cores, load ${loadavg()[0]?.toFixed(1)}.`,
      '',
      '| read | median | runs | error lines left unexplained |',
      '|---|---|---|---|',
      row([
        'before the catalogue',
        `${(median(times.before) / 1000).toFixed(2)} s`,
        times.before.map((t) => (t / 1000).toFixed(2)).join(', '),
        unexplained.before,
      ]),
      row([
        'with the catalogue',
        `${(median(times.after) / 1000).toFixed(2)} s`,
        times.after.map((t) => (t / 1000).toFixed(2)).join(', '),
        unexplained.after,
      ]),
      '',
      `With the catalogue: ${(Math.abs(ratio - 1) * 100).toFixed(1)} % ${ratio >= 1 ? 'slower' : 'faster'} (goal: at most ${((GOAL - 1) * 100).toFixed(0)} % slower): ${ratio <= GOAL ? 'met' : 'NOT met'}.`,
    ].join('\n');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
