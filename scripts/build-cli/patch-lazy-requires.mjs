import { readFile } from 'node:fs/promises';
import { withIsIp6 } from './patch-grpc-is-ipv6.mjs';
import { requireVendorVersion } from './vendor-version.mjs';

/** The releases whose files this patch was checked against: grpc-js's and commander's. */
export const VENDORS = [
  { pkg: '@grpc/grpc-js', version: '1.14.7' },
  { pkg: 'commander', version: '14.0.3' },
];

/**
 * Modules that bundled packages require() at load but use only on paths a check never takes:
 * [file, the exact require statements]. grpc-js: zlib for compressed messages (etcd sends none),
 * and its server side (Server, the server interceptors: etcd3 is a client); commander:
 * child_process for `git`-style subcommand executables. Each becomes a module loaded on its first
 * use (grpc-js's index exports Server and the interceptors through getters, so they load when read).
 * The build fails if a statement is not there as written. (Not grpc-js's http, for CONNECT proxies:
 * Node's http2 loads http anyway.)
 */
const GRPC_SRC = (name) => new RegExp(`@grpc[\\\\/]grpc-js[\\\\/]build[\\\\/]src[\\\\/]${name}\\.js$`);
const LAZY_REQUIRES = [
  [GRPC_SRC('compression-filter'), ['const zlib = require("zlib");']],
  [GRPC_SRC('server-interceptors'), ['const zlib = require("zlib");']],
  [
    GRPC_SRC('index'),
    ['const server_1 = require("./server");', 'var server_interceptors_1 = require("./server-interceptors");'],
  ],
  [/commander[\\/]lib[\\/]command\.js$/, ["const childProcess = require('node:child_process');"]],
];

/** `const x = require("m");` -> x, a stand-in that requires m when a property is first read. */
function lazyRequire(statement) {
  const [, name, call] = /^(?:const|var) (\w+) = (require\(.+\));$/.exec(statement);
  return `let ${name}Loaded; const ${name} = new Proxy({}, { get: (_, key) => (${name}Loaded ??= ${call})[key] });`;
}

export const lazyRequires = {
  name: 'lazy-requires',
  setup(b) {
    for (const { pkg, version } of VENDORS) requireVendorVersion('patch-lazy-requires.mjs', pkg, version);
    for (const [file, statements] of LAZY_REQUIRES)
      b.onLoad({ filter: file }, async (args) => {
        let src = await readFile(args.path, 'utf8');
        for (const statement of statements) {
          if (!src.includes(statement))
            throw new Error(
              `${args.path}: no \`${statement}\` as scripts/build-cli/patch-lazy-requires.mjs expects`,
            );
          src = src.replace(statement, lazyRequire(statement));
        }
        // grpc-js files also call isIPv6 (patch-grpc-is-ipv6.mjs); one onLoad per file, so both edits are here.
        return { contents: withIsIp6(src), loader: 'js' };
      });
  },
};
