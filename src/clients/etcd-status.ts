import type { CallOptions, Client, Metadata, ServiceError } from '@grpc/grpc-js';
import type { Etcd3 } from 'etcd3';
import protobuf from 'protobufjs/light.js';

/*
 * Maintenance.Status as etcd 3.6 and 3.7 answer it. etcd3 1.1.2 decodes Status with its own
 * 3.4-era rpc.proto (fields 1 to 10) and drops the fields etcd 3.6 added: storageVersion (11),
 * dbSizeQuota (12) and downgradeInfo (13) {enabled (1), targetVersion (2)}, api/etcdserverpb/rpc.proto
 * at v3.6.0 and v3.7.0 (recorded in test/fixtures/etcd-source/v3.6.0-status-response.proto). So the
 * call goes through etcd3's own connection (its channel, TLS and auth metadata, the same per-host
 * fault handling and error types) and the response bytes are decoded here with the 3.6 shape. A 3.4
 * or 3.5 member sends none of the three fields: the object reads as etcd3's did.
 */

const STATUS_PATH = '/etcdserverpb.Maintenance/Status';

/** The 3.6 StatusResponse, field names as etcd3 loads them (keepCase: `member_id`, `dbSize`). */
const STATUS_PROTO: protobuf.INamespace = {
  nested: {
    ResponseHeader: {
      fields: {
        cluster_id: { type: 'uint64', id: 1 },
        member_id: { type: 'uint64', id: 2 },
        revision: { type: 'int64', id: 3 },
        raft_term: { type: 'uint64', id: 4 },
      },
    },
    DowngradeInfo: {
      fields: {
        enabled: { type: 'bool', id: 1 },
        targetVersion: { type: 'string', id: 2 },
      },
    },
    StatusResponse: {
      fields: {
        header: { type: 'ResponseHeader', id: 1 },
        version: { type: 'string', id: 2 },
        dbSize: { type: 'int64', id: 3 },
        leader: { type: 'uint64', id: 4 },
        raftIndex: { type: 'uint64', id: 5 },
        raftTerm: { type: 'uint64', id: 6 },
        raftAppliedIndex: { type: 'uint64', id: 7 },
        errors: { rule: 'repeated', type: 'string', id: 8 },
        dbSizeInUse: { type: 'int64', id: 9 },
        isLearner: { type: 'bool', id: 10 },
        storageVersion: { type: 'string', id: 11 },
        dbSizeQuota: { type: 'int64', id: 12 },
        downgradeInfo: { type: 'DowngradeInfo', id: 13 },
      },
    },
  },
};
/** Built on the first Status decoded: a command that asks no Status pays nothing at start. */
let statusType: protobuf.Type | undefined;

/** What a member's Status says; the last three only from etcd 3.6 on. 64-bit numbers as decimal strings, as etcd3 gives them. */
export interface EtcdStatusResponse {
  header: { cluster_id: string; member_id: string; revision: string; raft_term: string };
  version: string;
  dbSize: string;
  leader: string;
  raftIndex: string;
  raftTerm: string;
  raftAppliedIndex: string;
  errors: string[];
  dbSizeInUse: string;
  isLearner: boolean;
  /** The version of the db file (3.6+); absent from a 3.4 or 3.5 member. */
  storageVersion?: string;
  /** --quota-backend-bytes as the member runs it (3.6+). */
  dbSizeQuota?: string;
  /** 3.6+: `{ enabled: true, targetVersion }` while the cluster downgrades (`etcdctl downgrade enable`), `enabled: false` otherwise; absent from 3.4 and 3.5. */
  downgradeInfo?: { enabled: boolean; targetVersion: string };
}

/** Decodes StatusResponse bytes of any etcd release from 3.4 on (unknown later fields are skipped). */
export function decodeStatusResponse(bytes: Uint8Array): EtcdStatusResponse {
  statusType ??= protobuf.Root.fromJSON(STATUS_PROTO).lookupType('StatusResponse');
  const msg = statusType.decode(bytes);
  const obj = statusType.toObject(msg, { longs: String, defaults: true }) as Record<string, unknown>;
  const header = (obj.header ?? {}) as Record<string, string>;
  // A message field the member did not send reads null. 3.6 and 3.7 always send downgradeInfo
  // (`{enabled: false}` when none, v3rpc/maintenance.go Status); 3.4 and 3.5 never do.
  const downgrade = obj.downgradeInfo as { enabled?: boolean; targetVersion?: string } | null | undefined;
  return {
    header: {
      cluster_id: header.cluster_id ?? '0',
      member_id: header.member_id ?? '0',
      revision: header.revision ?? '0',
      raft_term: header.raft_term ?? '0',
    },
    version: String(obj.version ?? ''),
    dbSize: String(obj.dbSize ?? '0'),
    leader: String(obj.leader ?? '0'),
    raftIndex: String(obj.raftIndex ?? '0'),
    raftTerm: String(obj.raftTerm ?? '0'),
    raftAppliedIndex: String(obj.raftAppliedIndex ?? '0'),
    errors: (obj.errors as string[] | undefined) ?? [],
    dbSizeInUse: String(obj.dbSizeInUse ?? '0'),
    isLearner: Boolean(obj.isLearner),
    ...(obj.storageVersion ? { storageVersion: String(obj.storageVersion) } : {}),
    ...(obj.dbSizeQuota && obj.dbSizeQuota !== '0' ? { dbSizeQuota: String(obj.dbSizeQuota) } : {}),
    ...(downgrade
      ? {
          downgradeInfo: {
            enabled: Boolean(downgrade.enabled),
            targetVersion: downgrade.targetVersion ?? '',
          },
        }
      : {}),
  };
}

/** The part of etcd3's ConnectionPool this uses (lib/connection-pool.d.ts, withConnection is public there). */
interface Pool {
  withConnection<T>(
    service: 'Maintenance',
    fn: (args: { client: Client; metadata: Metadata }) => Promise<T>,
  ): Promise<T>;
}

/**
 * Status through etcd3's connection to the member, decoded with the 3.6 shape. Errors are etcd3's
 * (withConnection casts a failed call as exec does), so callers read them as before.
 */
export async function memberStatus(admin: Etcd3, options: CallOptions): Promise<EtcdStatusResponse> {
  const pool = (admin as unknown as { pool?: Pool }).pool;
  if (!pool || typeof pool.withConnection !== 'function')
    throw new Error('etcd3 has no connection pool to call Status through (a new etcd3 release?)');
  const bytes = await pool.withConnection(
    'Maintenance',
    ({ client, metadata }) =>
      new Promise<Buffer>((resolve, reject) => {
        client.makeUnaryRequest(
          STATUS_PATH,
          () => Buffer.alloc(0), // StatusRequest has no fields.
          (b: Buffer) => b,
          {},
          metadata,
          options,
          (err: ServiceError | null, res?: Buffer) => (err ? reject(err) : resolve(res ?? Buffer.alloc(0))),
        );
      }),
  );
  return decodeStatusResponse(bytes);
}
