import { createRequire } from 'node:module';
import { describe, expect, it } from '@jest/globals';
import protobuf from 'protobufjs';
import { lazyPackageDefinition } from '../../../src/clients/etcd-rpc-definition.js';

/**
 * The CLI bundle gives etcd3 lazyPackageDefinition() in place of proto-loader's loadSync
 * (scripts/build-cli.mjs): both must make the same gRPC methods, the same bytes on the wire and the
 * same objects for etcd3, for every method of etcd3's rpc.proto.
 */
const require = createRequire(import.meta.url);
const PROTO = require.resolve('etcd3/proto/rpc.proto');
// etcd3 1.1.2, lib/connection-pool.js.
const OPTIONS = { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true };

interface Method {
  path: string;
  requestStream: boolean;
  responseStream: boolean;
  originalName: string;
  requestSerialize: (value: object) => Buffer;
  requestDeserialize: (bytes: Buffer) => object;
  responseSerialize: (value: object) => Buffer;
  responseDeserialize: (bytes: Buffer) => object;
}

const protoLoader = require('@grpc/proto-loader') as {
  loadSync: (file: string, options: object) => Record<string, Record<string, Method> | { format: string }>;
};
const reference = protoLoader.loadSync(PROTO, OPTIONS);

/** The JSON scripts/build-cli.mjs embeds: the proto parsed as loadSync parses it, resolved. */
function rpcJson(): protobuf.INamespace {
  const root = new protobuf.Root().loadSync(PROTO, { keepCase: true });
  root.resolveAll();
  return JSON.parse(JSON.stringify(root.toJSON())) as protobuf.INamespace;
}
const lazy = lazyPackageDefinition(rpcJson(), OPTIONS);

const services = Object.entries(reference).filter(
  (entry): entry is [string, Record<string, Method>] => !('format' in entry[1]),
);

/** Messages as etcd3 sends and receives them: strings for 64-bit numbers and enums, Buffers for bytes. */
const SAMPLES: Record<string, { request?: object; response?: object }> = {
  '/etcdserverpb.KV/Range': {
    request: { key: Buffer.from('a'), range_end: Buffer.from('b'), limit: '5', sort_order: 'DESCEND' },
    response: {
      header: { cluster_id: '14841639068965178418', member_id: '10276657743932975437', revision: '42' },
      kvs: [{ key: Buffer.from('a'), value: Buffer.from('1'), mod_revision: '41', version: '3' }],
      count: '1',
      more: false,
    },
  },
  '/etcdserverpb.Maintenance/Status': {
    response: {
      header: { revision: '7', raft_term: '3' },
      version: '3.4.34',
      dbSize: '32768',
      leader: '10276657743932975437',
      raftIndex: '99',
      raftTerm: '3',
      errors: ['NOSPACE'],
      dbSizeInUse: '16384',
      isLearner: true,
    },
  },
  '/etcdserverpb.Cluster/MemberList': {
    response: {
      members: [
        { ID: '18446744073709551615', name: 'etcd-1', peerURLs: ['http://127.0.0.1:2380'], clientURLs: [] },
        { ID: '1', name: '', peerURLs: [], clientURLs: ['http://127.0.0.1:2379'], isLearner: true },
      ],
    },
  },
  '/etcdserverpb.Maintenance/Alarm': {
    request: { action: 'GET', memberID: '0', alarm: 'NONE' },
    response: { alarms: [{ memberID: '10276657743932975437', alarm: 'NOSPACE' }] },
  },
  '/etcdserverpb.KV/Txn': {
    request: {
      compare: [{ result: 'EQUAL', target: 'VERSION', key: Buffer.from('k'), version: '0' }],
      success: [{ request_put: { key: Buffer.from('k'), value: Buffer.from('v'), lease: '5' } }],
      failure: [{ request_range: { key: Buffer.from('k') } }],
    },
  },
};

describe('etcd3 package definition without proto-loader', () => {
  it('has the same services and methods as loadSync(rpc.proto)', () => {
    expect(Object.keys(lazy).sort()).toEqual(services.map(([name]) => name).sort());
    for (const [name, methods] of services) {
      const shape = (m: Method) => ({
        path: m.path,
        requestStream: m.requestStream,
        responseStream: m.responseStream,
        originalName: m.originalName,
      });
      const ours = Object.fromEntries(Object.entries(lazy[name] ?? {}).map(([k, m]) => [k, shape(m)]));
      const theirs = Object.fromEntries(Object.entries(methods).map(([k, m]) => [k, shape(m)]));
      expect(ours).toEqual(theirs);
    }
    // lodash.camelcase's word split, which a first-letter lowercase would get wrong.
    expect(lazy['etcdserverpb.Maintenance']?.HashKV?.originalName).toBe('hashKv');
  });

  it('encodes and decodes every method the same: empty messages and realistic ones', () => {
    let compared = 0;
    for (const [name, methods] of services) {
      for (const [methodName, ref] of Object.entries(methods)) {
        const ours = lazy[name]?.[methodName];
        if (!ours) throw new Error(`${name}.${methodName} missing`);
        const sample = SAMPLES[ref.path] ?? {};
        for (const [side, value] of [
          ['request', sample.request ?? {}],
          ['response', sample.response ?? {}],
        ] as const) {
          const serialize = side === 'request' ? 'requestSerialize' : 'responseSerialize';
          const deserialize = side === 'request' ? 'requestDeserialize' : 'responseDeserialize';
          const bytes = ref[serialize](value);
          expect({ at: `${ref.path} ${side}`, bytes: ours[serialize](value) }).toEqual({
            at: `${ref.path} ${side}`,
            bytes,
          });
          expect(ours[deserialize](bytes)).toEqual(ref[deserialize](bytes));
          compared++;
        }
      }
    }
    expect(compared).toBeGreaterThan(80);
    // The samples are not empty on the wire: the comparison above saw real fields.
    const status = lazy['etcdserverpb.Maintenance']?.Status;
    const bytes = status?.responseSerialize(SAMPLES['/etcdserverpb.Maintenance/Status']?.response ?? {});
    expect(status?.responseDeserialize(bytes ?? Buffer.alloc(0))).toMatchObject({
      leader: '10276657743932975437',
      errors: ['NOSPACE'],
      isLearner: true,
    });
  });

  it('refuses an array as a message, as proto-loader does', () => {
    const range = lazy['etcdserverpb.KV']?.Range;
    expect(() => range?.requestSerialize([] as unknown as object)).toThrow(
      'Failed to serialize message: expected object with RangeRequest structure, got array instead',
    );
  });
});
