import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';
import { requireVendorVersion } from './vendor-version.mjs';

/** The etcd3 release whose lib/connection-pool.js this patch was checked against. */
export const VENDOR = { pkg: 'etcd3', version: '1.1.2' };

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
export const etcd3Rpc = {
  name: 'etcd3-rpc',
  setup(b) {
    requireVendorVersion('patch-etcd3-rpc.mjs', VENDOR.pkg, VENDOR.version);
    b.onResolve({ filter: /^etcd-doctor:etcd3-rpc-json$/ }, (args) => ({
      path: args.path,
      namespace: 'etcd3-rpc',
    }));
    b.onLoad({ filter: /.*/, namespace: 'etcd3-rpc' }, () => ({ contents: etcd3RpcJson(), loader: 'json' }));
    b.onLoad({ filter: CONNECTION_POOL }, async (args) => {
      const src = await readFile(args.path, 'utf8');
      if (!src.includes(LOAD_SYNC) || !src.includes(PROTO_LOADER))
        throw new Error(`${args.path}: etcd3 no longer loads rpc.proto as scripts/build-cli/patch-etcd3-rpc.mjs expects`);
      const definition = JSON.stringify(
        fileURLToPath(new URL('../../src/clients/etcd-rpc-definition.ts', import.meta.url)),
      );
      const contents = src
        .replace(PROTO_LOADER, '')
        .replace(LOAD_SYNC, `(0, require(${definition}).lazyPackageDefinition)(require("${RPC_JSON}"), {`);
      return { contents, loader: 'js' };
    });
  },
};
