import { execFile } from 'node:child_process';
import { mkdtemp, rm, symlink } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { median, row } from './stats.js';
import type { WatchCheckCost } from './watch-check.js';

const run = promisify(execFile);

/**
 * Issue 39's goal for a watch check: its CPU "stays within 10 % of today's in the same run", today
 * being the code before the issue's overload readings (the parent of the commit that added them:
 * the /metrics reading of client bytes, ranges, watch gauges, defragmentation, fds and memory, and
 * their rules). That tree is taken out of git into .etcd-doctor/ beside these sources, sharing
 * node_modules (the dependencies did not change), and each side measures its own watch check
 * (bench/watch-check.ts measureWatchCheck: the worker's `watch` job on 20 clusters of one real lab,
 * this process's CPU) in a child process of its own, alternately, RUNS times each; the medians are
 * compared. Goal: at most 10 % more CPU per check.
 */
const BEFORE_REF = process.env.BENCH_WATCH_BEFORE_REF ?? 'b323c9f^';
const RUNS = Number(process.env.BENCH_WATCH_BEFORE_RUNS ?? 3);
const GOAL = 1.1;

/** The project as it was at `ref`, with this checkout's node_modules. */
async function treeAt(ref: string, dir: string): Promise<void> {
  await run('sh', [
    '-c',
    `git archive ${ref} src bench test/support tsconfig.json package.json | tar -x -C "${dir}"`,
  ]);
  await symlink(resolve('node_modules'), join(dir, 'node_modules'), 'dir');
}

/** One measureWatchCheck in a child process started in `root`. */
async function measureIn(root: string): Promise<WatchCheckCost> {
  const script = `const m = await import(${JSON.stringify(pathToFileURL(join(root, 'bench/watch-check.ts')).href)}); process.stdout.write(JSON.stringify(await m.measureWatchCheck()));`;
  const { stdout } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: root,
    maxBuffer: 1024 * 1024,
    timeout: 10 * 60_000,
  });
  return JSON.parse(stdout.slice(stdout.indexOf('{'))) as WatchCheckCost;
}

export async function benchWatchCheckBefore(): Promise<string> {
  const loadBefore = loadavg()[0] ?? 0;
  const dir = await mkdtemp(join('.etcd-doctor', 'bench-watch-before-'));
  try {
    await treeAt(BEFORE_REF, dir);
    const cpu = { before: [] as number[], now: [] as number[] };
    for (let i = 0; i < RUNS; i++) {
      cpu.before.push((await measureIn(resolve(dir))).checkCpuMs);
      cpu.now.push((await measureIn(process.cwd())).checkCpuMs);
    }
    const ratio = median(cpu.now) / median(cpu.before);
    const pct = `${((ratio - 1) * 100).toFixed(1)} %`;
    return [
      "## CPU of one watch check with issue 39's overload readings, beside the same check before them",
      '',
      row(['code', 'CPU per check (median of runs)', 'each run']),
      row(['---', '---', '---']),
      row([
        `before (${BEFORE_REF})`,
        `${median(cpu.before).toFixed(2)} ms`,
        cpu.before.map((c) => c.toFixed(2)).join(', '),
      ]),
      row(['now', `${median(cpu.now).toFixed(2)} ms`, cpu.now.map((c) => c.toFixed(2)).join(', ')]),
      '',
      `- Each run is bench/watch-check.ts's measureWatchCheck (20 clusters on one real 3-member lab, the worker's watch job, this process's user + system CPU) in its own child process; the two alternate, ${RUNS} runs each.`,
      `- Now: ${ratio >= 1 ? `${pct} more` : `${((1 - ratio) * 100).toFixed(1)} % less`} CPU per check (goal: at most 10 % more): ${ratio <= GOAL ? 'met' : 'NOT met'}.`,
      `- Load average (1 min): ${loadBefore.toFixed(1)} at the start, ${(loadavg()[0] ?? 0).toFixed(1)} at the end (2 shared cores).`,
      '',
    ].join('\n');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.stdout.write(await benchWatchCheckBefore());
}
