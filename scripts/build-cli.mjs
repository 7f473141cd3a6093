// `npm run build`, second step (after tsc): bundles the CLI (src/main.ts) into dist/cli/ with
// esbuild, so `etcd-doctor health` starts from ~15 files instead of ~400 and Node resolves,
// reads and compiles far less (issue 18; figures in the commit history and docs/BENCHMARKS.md).
// bin/etcd-doctor.js runs dist/cli/main.js. Usage: node scripts/build-cli.mjs [--outdir DIR]
import { writeFileSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import protobuf from 'protobufjs';

export const OUT_DIR = 'dist/cli';
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
  'shallow-equal',
  'parse-prometheus-text-format',
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

const CONNECTION_POOL = /etcd3[\\/]lib[\\/]connection-pool\.js$/;
const RPC_JSON = 'etcd-doctor:etcd3-rpc-json';
const LOAD_SYNC = '(0, proto_loader_1.loadSync)(`${__dirname}/../proto/rpc.proto`, {';
const PROTO_LOADER = 'const proto_loader_1 = require("@grpc/proto-loader");';

/** etcd3's rpc.proto read as proto-loader's loadSync reads it (keepCase, resolved), as protobufjs JSON. */
function etcd3RpcJson() {
  const proto = fileURLToPath(import.meta.resolve('etcd3/proto/rpc.proto'));
  const root = new protobuf.Root().loadSync(proto, { keepCase: true });
  root.resolveAll();
  return JSON.stringify(root.toJSON());
}

/**
 * etcd3 builds its gRPC package definition with proto-loader's loadSync when it is imported (about
 * 110 ms of a 600 ms health check): in the bundle, src/clients/etcd-rpc-definition.ts builds it from
 * the same proto, parsed here, each message type on its first use. The build fails if etcd3's code
 * is not the code this expects (a new etcd3 release).
 */
const etcd3Rpc = {
  name: 'etcd3-rpc',
  setup(b) {
    b.onResolve({ filter: /^etcd-doctor:etcd3-rpc-json$/ }, (args) => ({
      path: args.path,
      namespace: 'etcd3-rpc',
    }));
    b.onLoad({ filter: /.*/, namespace: 'etcd3-rpc' }, () => ({ contents: etcd3RpcJson(), loader: 'json' }));
    b.onLoad({ filter: CONNECTION_POOL }, async (args) => {
      const src = await readFile(args.path, 'utf8');
      if (!src.includes(LOAD_SYNC) || !src.includes(PROTO_LOADER))
        throw new Error(`${args.path}: etcd3 no longer loads rpc.proto as scripts/build-cli.mjs expects`);
      const definition = JSON.stringify(
        fileURLToPath(new URL('../src/clients/etcd-rpc-definition.ts', import.meta.url)),
      );
      const contents = src
        .replace(PROTO_LOADER, '')
        .replace(LOAD_SYNC, `(0, require(${definition}).lazyPackageDefinition)(require("${RPC_JSON}"), {`);
      return { contents, loader: 'js' };
    });
  },
};

export function bundleOptions(outdir = OUT_DIR) {
  return {
    absWorkingDir: fileURLToPath(new URL('..', import.meta.url)),
    entryPoints: { main: 'src/main.ts' },
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
    plugins: [etcd3Rpc, externals],
  };
}

/** { "chunk-X.js": ["@grpc/grpc-js", "etcd3", ...] }: the packages bundled into each file (metafile). */
function manifestOf(metafile) {
  const manifest = {};
  for (const [file, output] of Object.entries(metafile.outputs)) {
    if (!file.endsWith('.js')) continue;
    const packages = Object.keys(output.inputs)
      .filter((i) => i.includes('node_modules/'))
      .map((i) => packageOf(i));
    manifest[basename(file)] = [...new Set(packages)].sort();
  }
  return manifest;
}

export async function buildCli(outdir = OUT_DIR) {
  await rm(outdir, { recursive: true, force: true });
  const result = await build(bundleOptions(outdir));
  writeFileSync(join(outdir, MANIFEST), `${JSON.stringify(manifestOf(result.metafile), null, 1)}\n`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const at = process.argv.indexOf('--outdir');
  await buildCli(at > 0 ? process.argv[at + 1] : OUT_DIR);
}
