import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { stringify } from 'yaml';
import { type EtcdLab, startEtcdLab } from '../support/lab/etcd-lab.js';
import { cliProcess } from '../support/process/cli-process.js';

const PRELOAD = join(process.cwd(), 'test/support/process/module-graph-preload.mjs');

/**
 * Packages a one-shot check must never load (each costs start time and memory): chat, queue, Redis, the Kubernetes client
 * (the lab has no Kubernetes configured), pino's worker-thread transports, /metrics, charts, MCP.
 * Each costs tens to hundreds of milliseconds and megabytes at start.
 */
const FORBIDDEN = [
  '@slack/bolt',
  '@slack/web-api',
  '@slack/socket-mode',
  'bullmq',
  'ioredis',
  '@kubernetes/client-node',
  'thread-stream',
  'pino-pretty',
  'prom-client',
  'vega',
  'vega-lite',
  '@resvg/resvg-js',
  '@modelcontextprotocol/sdk',
];

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  packages: Set<string>;
  /** `bundle dist/cli/`, `compiled dist/src/` or `sources through tsx`: what bin/etcd-doctor.js chose. */
  mode: string;
  /** Files run from V8's code cache (bin/code-cache.js), each with what V8 did with the cache. */
  codeCache: Record<string, string>;
}

/** Runs the CLI as a user does, recording its module graph, and names the packages it loaded. */
async function runRecorded(dir: string, args: string[]): Promise<Run> {
  const out = join(dir, `graph-${args[0]}.txt`);
  const { code, stdout, stderr } = await cliProcess(args, {
    nodeArgs: ['--import', PRELOAD],
    env: { MODULE_GRAPH_OUT: out },
    timeoutMs: 30_000,
  });
  const urls = (await readFile(out, 'utf8')).split('\n').filter(Boolean);
  const bundled = await bundledPackages(urls);
  const packages = new Set([
    ...urls.flatMap((u) => [...u.matchAll(/node_modules\/((?:@[^/]+\/)?[^/]+)/g)].map((m) => m[1] ?? '')),
    ...bundled,
  ]);
  const mode = urls.some((u) => u.includes('/dist/cli/'))
    ? 'bundle dist/cli/'
    : urls.some((u) => u.includes('/dist/src/'))
      ? 'compiled dist/src/'
      : 'sources through tsx';
  const codeCache = Object.fromEntries(
    urls.flatMap((u) => {
      const m = /^code-cache=(\w+) .*\/(dist\/cli\/[^/]+)$/.exec(u);
      return m ? [[m[2], m[1]]] : [];
    }),
  );
  return { code, stdout, stderr, packages, mode, codeCache };
}

/**
 * The packages inside the bundle files that were loaded (scripts/build-cli.mjs bundles a few
 * packages into dist/cli/ and writes which file holds which to dist/cli/packages.json), so a
 * forbidden package counts as loaded whether it came from node_modules/ or from the bundle.
 */
async function bundledPackages(urls: string[]): Promise<string[]> {
  const files = urls.flatMap((u) => /^file:.*\/dist\/cli\/([^/]+\.c?js)$/.exec(u)?.[1] ?? []);
  if (files.length === 0) return [];
  const manifest = JSON.parse(
    await readFile(join(process.cwd(), 'dist/cli/packages.json'), 'utf8'),
  ) as Record<string, string[]>;
  return files.flatMap((f) => {
    const inside = manifest[f];
    if (!inside) throw new Error(`dist/cli/${f} is not in dist/cli/packages.json: a stale build?`);
    return inside;
  });
}

describe('the CLI loads only what a command needs', () => {
  let lab: EtcdLab;
  let dir: string;
  let config: string;

  beforeAll(async () => {
    lab = await startEtcdLab();
    dir = await mkdtemp(join(tmpdir(), 'etcd-doctor-graph-'));
    config = join(dir, 'etcd-doctor.yaml');
    const cluster = { name: 'lab', etcd: { endpoints: lab.endpoints, metricsUrls: lab.metricsUrls } };
    await writeFile(config, stringify({ clusters: [cluster], probes: { metricsWindowMs: 500 } }));
  });
  afterAll(async () => {
    await lab?.destroy();
    await rm(dir, { recursive: true, force: true });
  });

  it.each(['health', 'diagnose'])(
    '%s answers without loading chat, queue, Redis or Kubernetes code',
    async (cmd) => {
      const run = await runRecorded(dir, [cmd, 'lab', '--config', config]);
      expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
      expect(run.stdout).toMatch(/: HEALTHY/);
      // The mode is in the comparison so a failure says which code ran.
      const loaded = FORBIDDEN.filter((p) => run.packages.has(p));
      expect({ mode: run.mode, loaded }).toEqual({ mode: run.mode, loaded: [] });
      // The recording works: the etcd client is there.
      expect(run.packages.has('etcd3')).toBe(true);
      // The fast start: the CommonJS bundle, compiled from the code cache `npm run build` made. A
      // rejected or missing cache still answers, only ~100 ms slower, so nothing else would notice.
      expect(run.codeCache).toEqual({ 'dist/cli/check.cjs': 'accepted' });
    },
  );

  it('the recording sees a forbidden package when a command does load it', async () => {
    // `audit` reads Redis: ioredis must show up, or the check above proves nothing.
    const run = await runRecorded(dir, ['audit', '--since', '1m']);
    expect(run.packages.has('ioredis')).toBe(true);
  });
});
