import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import * as grpc from '@grpc/grpc-js';
import protobuf from 'protobufjs';
import { createMemberClients } from '../../../src/clients/etcd-clients.js';
import { decodeStatusResponse, memberStatus } from '../../../src/clients/etcd-status.js';
import { grpcDeadline } from '../../../src/clients/grpc-deadline.js';

/*
 * Status as etcd 3.6 and 3.7 send it (test/fixtures/etcd-source/v3.6.0-status-response.proto,
 * recorded from api/etcdserverpb/rpc.proto at v3.6.0 and v3.7.0), and as 3.4 and 3.5 send it (etcd3's
 * own rpc.proto, fields 1 to 10): the bytes are encoded by protobufjs from each shape, decoded by
 * src/clients/etcd-status.ts, and also served by a gRPC server on 127.0.0.1 to etcd3's real client.
 */

const require = createRequire(import.meta.url);
const SHAPE_36 = fileURLToPath(
  new URL('../../fixtures/etcd-source/v3.6.0-status-response.proto', import.meta.url),
);
const ETCD3_PROTO = require.resolve('etcd3/proto/rpc.proto');
// etcd3 1.1.2, lib/connection-pool.js: how etcd3 turns the bytes into the object it returns.
const ETCD3_OPTIONS = { longs: String, enums: String, defaults: true, oneofs: true };

const status36 = new protobuf.Root()
  .loadSync(SHAPE_36, { keepCase: true })
  .lookupType('etcdserverpb.StatusResponse');
const status34 = new protobuf.Root()
  .loadSync(ETCD3_PROTO, { keepCase: true })
  .lookupType('etcdserverpb.StatusResponse');

const BASE = {
  header: {
    cluster_id: '14841639068965178418',
    member_id: '10276657743932975437',
    revision: '4711',
    raft_term: '7',
  },
  version: '3.6.4',
  dbSize: '2453504',
  leader: '10276657743932975437',
  raftIndex: '9012',
  raftTerm: '7',
  raftAppliedIndex: '9011',
  errors: [],
  dbSizeInUse: '1200128',
  isLearner: false,
};

/** A 3.6 member of a cluster mid-downgrade to 3.5, its db already migrated (Status as maintenance.go builds it). */
const MID_DOWNGRADE = {
  ...BASE,
  storageVersion: '3.5.0',
  dbSizeQuota: '8589934592',
  downgradeInfo: { enabled: true, targetVersion: '3.5.0' },
};
/** A 3.6 member with no downgrade: maintenance.go sends `downgradeInfo: {enabled: false}`. */
const NO_DOWNGRADE = {
  ...BASE,
  storageVersion: '3.6.0',
  dbSizeQuota: '2147483648',
  downgradeInfo: { enabled: false },
};

const encode36 = (value: object) => Buffer.from(status36.encode(status36.fromObject(value)).finish());
const encode34 = (value: object) => Buffer.from(status34.encode(status34.fromObject(value)).finish());

describe('Status decoded with the 3.6 shape', () => {
  it('reads storageVersion, dbSizeQuota and downgradeInfo from a 3.6/3.7 member mid-downgrade', () => {
    expect(decodeStatusResponse(encode36(MID_DOWNGRADE))).toEqual(MID_DOWNGRADE);
  });

  it('reads `downgradeInfo: {enabled: false}` when a 3.6 member is not downgrading', () => {
    const got = decodeStatusResponse(encode36(NO_DOWNGRADE));
    expect(got.downgradeInfo).toEqual({ enabled: false, targetVersion: '' });
    expect(got.storageVersion).toBe('3.6.0');
  });

  it('reads a 3.4/3.5 response (fields 1 to 10 only) exactly as etcd3 does, with no 3.6 field', () => {
    const bytes = encode34({ ...BASE, version: '3.5.30', errors: ['NOSPACE'], isLearner: true });
    const etcd3Object = status34.toObject(status34.decode(bytes), ETCD3_OPTIONS);
    const ours = decodeStatusResponse(bytes);
    expect(ours).toEqual(etcd3Object);
    expect(ours).not.toHaveProperty('storageVersion');
    expect(ours).not.toHaveProperty('downgradeInfo');
    expect(ours).not.toHaveProperty('dbSizeQuota');
  });

  it('etcd3 itself drops the 3.6 fields: the reason this decoder exists', () => {
    const asEtcd3 = status34.toObject(status34.decode(encode36(MID_DOWNGRADE)), ETCD3_OPTIONS);
    expect(asEtcd3).not.toHaveProperty('downgradeInfo');
    expect(asEtcd3).not.toHaveProperty('storageVersion');
  });
});

describe('memberStatus through etcd3 to a gRPC server on 127.0.0.1 answering with 3.6 bytes', () => {
  const server = new grpc.Server();
  let answer = encode36(MID_DOWNGRADE);
  let endpoint = '';
  const seenMetadata: grpc.Metadata[] = [];
  beforeAll(async () => {
    const raw = (b: Buffer) => b;
    server.addService(
      {
        Status: {
          path: '/etcdserverpb.Maintenance/Status',
          requestStream: false,
          responseStream: false,
          requestSerialize: raw,
          requestDeserialize: raw,
          responseSerialize: raw,
          responseDeserialize: raw,
        },
      },
      {
        Status: (call: grpc.ServerUnaryCall<Buffer, Buffer>, done: grpc.sendUnaryData<Buffer>) => {
          seenMetadata.push(call.metadata);
          done(null, answer);
        },
      },
    );
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) =>
        err ? reject(err) : resolve(p),
      ),
    );
    endpoint = `http://127.0.0.1:${port}`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
  });

  it('gets the downgrade fields etcd3 would drop, over etcd3 own connection', async () => {
    const clients = createMemberClients(endpoint, undefined);
    try {
      answer = encode36(MID_DOWNGRADE);
      expect(await memberStatus(clients.admin, grpcDeadline(3000))).toEqual(MID_DOWNGRADE);
      const viaEtcd3 = (await clients.admin.maintenance.status(grpcDeadline(3000))) as unknown as Record<
        string,
        unknown
      >;
      expect(viaEtcd3.downgradeInfo).toBeUndefined();
      expect(viaEtcd3.version).toBe('3.6.4');
      answer = encode34({ ...BASE, version: '3.4.23' });
      const old = await memberStatus(clients.admin, grpcDeadline(3000));
      expect(old.version).toBe('3.4.23');
      expect(old.downgradeInfo).toBeUndefined();
      expect(seenMetadata.length).toBe(3);
    } finally {
      clients.kv.close();
      clients.admin.close();
    }
  });

  it("a failed call is etcd3's error, as maintenance.status would throw it", async () => {
    const clients = createMemberClients('http://127.0.0.1:1', undefined);
    try {
      const ours = await memberStatus(clients.admin, grpcDeadline(1500)).catch((e: unknown) => e);
      const theirs = await clients.admin.maintenance.status(grpcDeadline(1500)).catch((e: unknown) => e);
      expect((ours as Error).constructor.name).toBe((theirs as Error).constructor.name);
    } finally {
      clients.kv.close();
      clients.admin.close();
    }
  });
});
