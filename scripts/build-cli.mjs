// `npm run build`, second step (after tsc): bundles the CLI (src/main.ts) into dist/cli/ with
// esbuild, so a command starts from a few files instead of ~400 and Node resolves, reads and
// compiles far less (figures in the commit history and docs/BENCHMARKS.md). Two bundles:
// dist/cli/main.js (ES modules, per-command chunks) for every command, and dist/cli/check.cjs with
// its V8 code cache check.cjs.cache for `health` and `diagnose` (bin/etcd-doctor.js picks).
// The edits of vendor code are scripts/build-cli/patch-*.mjs, one file each, each for one release.
// Usage: node scripts/build-cli.mjs [--outdir DIR]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { etcd3Rpc } from './build-cli/patch-etcd3-rpc.mjs';
import { grpcIsIpv6 } from './build-cli/patch-grpc-is-ipv6.mjs';
import { lazyRequires } from './build-cli/patch-lazy-requires.mjs';
import { zodEnglishOnly } from './build-cli/patch-zod-english-only.mjs';

export const OUT_DIR = 'dist/cli';
/** `health` and `diagnose` run this CommonJS bundle through V8's code cache (bin/code-cache.js). */
export const CHECK_BUNDLE = 'check.cjs';
export const CODE_CACHE = 'check.cjs.cache';
/** Which packages each output file holds: the module-graph test reads it (test/integration/cli-module-graph). */
export const MANIFEST = 'packages.json';

/**
 * Packages bundled in: what `health` and `diagnose` load, each used only by our code and these
 * packages (zod also by the MCP SDK, which reads schemas through zod's `_zod` internals and its
 * globalThis registry, so our copy's schemas work there). Everything else stays an ordinary import
 * from node_modules, resolved at run time as before: Bolt, BullMQ, ioredis, the Kubernetes client,
 * pino, prom-client, vega, resvg, MCP still load from node_modules/ when a command needs them, and
 * native addons and packages that read their own files keep working.
 */
export const BUNDLED = [
  'etcd3',
  '@grpc/grpc-js',
  '@grpc/proto-loader',
  'protobufjs',
  '@protobufjs/aspromise',
  '@protobufjs/base64',
  '@protobufjs/codegen',
  '@protobufjs/eventemitter',
  '@protobufjs/fetch',
  '@protobufjs/float',
  '@protobufjs/inquire',
  '@protobufjs/path',
  '@protobufjs/pool',
  '@protobufjs/utf8',
  '@js-sdsl/ordered-map',
  'long',
  'lodash.camelcase',
  'cockatiel',
  'commander',
  'yaml',
  'zod',
  'bignumber.js',
  'fastest-levenshtein',
];

/** `@grpc/grpc-js/build/src/x.js` -> `@grpc/grpc-js`; undefined for a relative or absolute path. */
export function packageOf(path) {
  const inNodeModules = [...path.matchAll(/node_modules\/((?:@[^/]+\/)?[^/]+)/g)].at(-1);
  if (inNodeModules) return inNodeModules[1];
  if (/^[./]/.test(path) || path.includes(':')) return undefined;
  return path
    .split('/')
    .slice(0, path.startsWith('@') ? 2 : 1)
    .join('/');
}

/** Bare specifiers outside BUNDLED are left to Node's resolver. */
const externals = {
  name: 'externals',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('node:')) return { external: true };
      return BUNDLED.includes(packageOf(args.path) ?? '') ? undefined : { external: true };
    });
  },
};

export function bundleOptions(outdir = OUT_DIR) {
  return {
    absWorkingDir: fileURLToPath(new URL('..', import.meta.url)),
    // The offline analysis process (src/offline/isolated-process.ts) runs analyze-child.js beside its chunk.
    entryPoints: { main: 'src/main.ts', 'analyze-child': 'src/offline/analyze-child.ts' },
    outdir,
    bundle: true,
    // Per-command chunks keep the lazy import() of src/cli.ts: health loads no role's code.
    splitting: true,
    chunkNames: '[name]-[hash]',
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // A third less for Node to read and scan; names stay, so stack traces read as before (and
    // --enable-source-maps maps them to the sources).
    minifyWhitespace: true,
    minifySyntax: true,
    sourcemap: 'linked',
    sourcesContent: false,
    metafile: true,
    logLevel: 'warning',
    // The CommonJS packages bundled in call require() for Node's builtins.
    banner: {
      js: "import { createRequire as __etcdDoctorRequire } from 'node:module'; const require = __etcdDoctorRequire(import.meta.url);",
    },
    plugins: [zodEnglishOnly, lazyRequires, grpcIsIpv6, etcd3Rpc, externals],
  };
}

const MAIN = /src[\\/]main\.ts$/;
const RUN_MAIN = '\nawait main();\n';
/**
 * A check parses each schema once: zod's JIT (a Function compiled per object schema on its first
 * parse, to speed up the next ones) costs a one-shot process more than it saves. The setting is
 * zod's global (globalThis), so only for this process; the ESM bundle's long-running roles keep it.
 */
const ZOD_JITLESS = "import { config as zodConfig } from 'zod';\nzodConfig({ jitless: true });\n";

/**
 * The CommonJS bundle exports main() instead of running it: CommonJS has no top-level await, and
 * bin/etcd-doctor.js (or the training run below) calls it.
 */
const exportMain = {
  name: 'export-main',
  setup(b) {
    b.onLoad({ filter: MAIN }, async (args) => {
      const src = await readFile(args.path, 'utf8');
      if (!src.includes(RUN_MAIN)) throw new Error(`${args.path}: no \`await main();\` line for the CommonJS bundle to drop`);
      return { contents: ZOD_JITLESS + src.replace(RUN_MAIN, '\n'), loader: 'ts' };
    });
  },
};

/** The modules of src/cli.ts's other commands (the lazy import() in each command's action). */
const OTHER_COMMANDS =
  /^\.\/(cli\/run-analyze-command|cli\/run-watch-command|cli\/run-role-command|cli\/run-mcp-command|cli\/run-audit-command|cli\/run-digest-command|cli\/run-preflight|cli\/run-space-command)\.js$/;

/**
 * bin/etcd-doctor.js runs check.cjs for `health` and `diagnose` only: the other commands' code
 * (a sixth of the file, which Node would read at every start) is left out, each replaced by a
 * module that says so if it is ever loaded. A command missing here is merely bundled in.
 */
const checksOnly = {
  name: 'checks-only',
  setup(b) {
    b.onResolve({ filter: OTHER_COMMANDS }, (args) =>
      /src[\\/]cli\.ts$/.test(args.importer) ? { path: args.path, namespace: 'other-command' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'other-command' }, (args) => ({
      contents: `throw new Error(${JSON.stringify(`dist/cli/check.cjs runs health and diagnose only, not ${args.path} (bin/etcd-doctor.js runs the others from dist/cli/main.js)`)});`,
      loader: 'js',
    }));
  },
};

/**
 * dist/cli/check.cjs: the CLI as one CommonJS file, which `health` and `diagnose` run. Node 20
 * keeps no code cache for ES modules, and compiling the ES chunks was a fifth of a health check.
 * One file, no splitting: the lazy import()s of src/cli.ts become functions that run on first use,
 * so code a check never runs is never compiled (nor in the cache). import.meta.url is the file's URL.
 * The file is a script, not a module: its text is the function Node's CommonJS loader would wrap it in.
 */
export function checkBundleOptions(outdir = OUT_DIR) {
  return {
    ...bundleOptions(outdir),
    entryPoints: { check: 'src/main.ts' },
    splitting: false,
    format: 'cjs',
    outExtension: { '.js': '.cjs' },
    // The file is one function expression, Module.wrap's with `__impt` (routeDynamicImports), so
    // bin/code-cache.js compiles the file's text as it is: no 2 MB string concatenated at each start.
    banner: {
      js: "(function (exports, require, module, __filename, __dirname, __impt) { 'use strict'; var __importMetaUrl = require('node:url').pathToFileURL(__filename).href;",
    },
    footer: { js: '})' },
    define: { 'import.meta.url': '__importMetaUrl' },
    plugins: [exportMain, checksOnly, zodEnglishOnly, lazyRequires, grpcIsIpv6, etcd3Rpc, externals],
  };
}

/**
 * Node reads an ASCII file into a one-byte string at memory speed; one non-ASCII character (esbuild
 * escapes them, except in regular expression literals) makes the whole 2 MB a two-byte string,
 * decoded at ~20 ms a start. Escape it in the source (`\\u00b5`) instead.
 */
function assertAscii(file) {
  const bytes = readFileSync(file);
  const at = bytes.findIndex((b) => b > 0x7f);
  if (at >= 0)
    throw new Error(
      `${file}: a non-ASCII character at byte ${at} (${JSON.stringify(bytes.subarray(Math.max(0, at - 40), at + 4).toString())}); escape it in the source`,
    );
}

/**
 * Code V8 restores from a code cache on Node 20 has lost its script's import() callback: an
 * `import('undici')` in it throws ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING. So the check bundle's
 * import()s (of external packages only: the bundled code has none) call `__impt`, which
 * bin/code-cache.js passes in beside require: an import() in a file Node's own loader compiled. Same
 * length as `import`, so the source map stays right.
 */
function routeDynamicImports(file, metafile) {
  const [output] = Object.values(metafile.outputs).filter((o) => o.entryPoint);
  const external = new Set(output.imports.filter((i) => i.kind === 'dynamic-import').map((i) => i.path));
  let js = readFileSync(file, 'utf8');
  for (const path of external) {
    if (!output.imports.some((i) => i.path === path && i.external))
      throw new Error(`${file}: import(${JSON.stringify(path)}) of a bundled file, expected external packages only`);
    js = js.replaceAll(`import(${JSON.stringify(path)})`, `__impt(${JSON.stringify(path)})`);
  }
  const left = /(^|[^.\w$])import\(.{0,40}/m.exec(js);
  if (left) throw new Error(`${file}: an import() left that bin/code-cache.js cannot serve: ${left[0]}`);
  writeFileSync(file, js);
}

/** A local port nothing listens on (bound, then closed): connections to it are refused at once. */
function closedPort() {
  return new Promise((done, fail) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => done(port));
    });
    server.on('error', fail);
  });
}

/** Node, running `script` (an ES module) with bin/code-cache.js imported as `cache`. */
function nodeWith(script, env) {
  const codeCache = new URL('../bin/code-cache.js', import.meta.url).href;
  return execFileSync(
    process.execPath,
    ['--input-type=module', '-e', `import * as cache from ${JSON.stringify(codeCache)};\n${script}`],
    { env: { PATH: process.env.PATH, ...env }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 },
  );
}

/**
 * The code cache: a training run in a fresh Node loads check.cjs without a cache, runs `health` and
 * `diagnose` on a cluster of three refused ports (every probe fails fast; the report is printed to
 * nowhere), and saves the bytecode of every function that ran. A second Node checks that V8 accepts
 * it, so the build fails rather than ship a CLI that silently compiles everything again.
 */
async function writeCodeCache(outdir) {
  const dir = mkdtempSync(join(tmpdir(), 'etcd-doctor-code-cache-'));
  try {
    const ports = [await closedPort(), await closedPort(), await closedPort()];
    const config = join(dir, 'clusters.json');
    const cluster = {
      name: 'train',
      etcd: {
        endpoints: ports.map((p) => `http://127.0.0.1:${p}`),
        metricsUrls: ports.map((p) => `http://127.0.0.1:${p}`),
      },
    };
    writeFileSync(config, JSON.stringify({ clusters: [cluster], probes: { timeoutMs: 1000, metricsWindowMs: 0 } }));
    const bundle = JSON.stringify(resolve(outdir, CHECK_BUNDLE));
    const cacheFile = JSON.stringify(resolve(outdir, CODE_CACHE));
    const train = `
const { writeFileSync } = await import('node:fs');
const loaded = cache.loadCached(${bundle}, ${cacheFile});
for (const command of ['health', 'diagnose']) {
  process.argv = [process.argv[0], 'etcd-doctor', command, 'train', '--config', ${JSON.stringify(config)}];
  await loaded.exports.main();
}
writeFileSync(${cacheFile}, loaded.createCachedData());
process.exitCode = 0;`;
    nodeWith(train, { ETCD_DOCTOR_CONFIG: config });
    const verdict = nodeWith(
      `process.stdout.write(cache.loadCached(${bundle}, ${cacheFile}).codeCache);`,
      {},
    );
    if (verdict !== 'accepted') throw new Error(`${CODE_CACHE}: V8 did not accept the cache it just made (${verdict})`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** { "chunk-X.js": ["@grpc/grpc-js", "etcd3", ...] }: the packages bundled into each file (metafile). */
function manifestOf(metafile) {
  const manifest = {};
  for (const [file, output] of Object.entries(metafile.outputs)) {
    if (!/\.c?js$/.test(file)) continue;
    const packages = Object.keys(output.inputs)
      .filter((i) => i.includes('node_modules/'))
      .map((i) => packageOf(i));
    manifest[basename(file)] = [...new Set(packages)].sort();
  }
  return manifest;
}

export async function buildCli(outdir = OUT_DIR) {
  await rm(outdir, { recursive: true, force: true });
  const [result, check] = await Promise.all([build(bundleOptions(outdir)), build(checkBundleOptions(outdir))]);
  routeDynamicImports(join(outdir, CHECK_BUNDLE), check.metafile);
  const manifest = { ...manifestOf(result.metafile), ...manifestOf(check.metafile) };
  writeFileSync(join(outdir, MANIFEST), `${JSON.stringify(manifest, null, 1)}\n`);
  assertAscii(join(outdir, CHECK_BUNDLE));
  await writeCodeCache(outdir);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const at = process.argv.indexOf('--outdir');
  await buildCli(at > 0 ? process.argv[at + 1] : OUT_DIR);
}
