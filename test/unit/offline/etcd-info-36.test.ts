import { describe, expect, it } from '@jest/globals';
import { parseEndpointStatus } from '../../../src/offline/etcd-info.js';

/*
 * `etcdctl endpoint status -w json` of an etcd 3.6 member in a collection: the Status fields 3.6
 * added print under their json tags (api/etcdserverpb/rpc.pb.go at v3.6.0: storageVersion,
 * dbSizeQuota, downgradeInfo, each omitempty; `downgradeInfo: {}` when none is enabled).
 */
const entry = (status: object) => [
  {
    Endpoint: 'https://127.0.0.1:2379',
    Status: {
      header: {
        cluster_id: 1484163906896517,
        member_id: 1027665774393297,
        revision: 4711,
        raft_term: 7,
      },
      version: '3.6.4',
      dbSize: 2453504,
      leader: 1027665774393297,
      raftIndex: 9012,
      raftTerm: 7,
      raftAppliedIndex: 9012,
      dbSizeInUse: 1200128,
      ...status,
    },
  },
];

describe('etcdctl endpoint status JSON of etcd 3.6', () => {
  it('reads the storage version, the quota and a downgrade enabled', () => {
    const [got] = parseEndpointStatus(
      entry({
        storageVersion: '3.5.0',
        dbSizeQuota: 8589934592,
        downgradeInfo: { enabled: true, targetVersion: '3.5.0' },
      }),
    );
    expect(got?.status).toMatchObject({
      version: '3.6.4',
      storageVersion: '3.5.0',
      dbSizeQuotaBytes: 8589934592,
      downgrade: { enabled: true, targetVersion: '3.5.0' },
    });
  });

  it('`downgradeInfo: {}` is none enabled; a 3.5 entry has none of the three', () => {
    expect(
      parseEndpointStatus(entry({ storageVersion: '3.6.0', downgradeInfo: {} }))[0]?.status.downgrade,
    ).toEqual({
      enabled: false,
      targetVersion: '',
    });
    const old = parseEndpointStatus(entry({ version: '3.5.30' }))[0]?.status;
    expect(old).not.toHaveProperty('downgrade');
    expect(old).not.toHaveProperty('storageVersion');
    expect(old).not.toHaveProperty('dbSizeQuotaBytes');
  });
});
