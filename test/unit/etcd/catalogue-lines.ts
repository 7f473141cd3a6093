/**
 * One line per catalogue entry and logger, of the exact shape etcd writes it: zap JSON and zap's console
 * encoder for each zap message (3.4–3.6), capnslog (2.3–3.4) with the format of etcd's source at
 * v2.3.8 / v3.3.27 / v3.4.45 filled in, raft's lines in capnslog, Go's log (`raft<date>`) and zap.
 * Generated from etcd's source (the format strings and zap messages at those tags), never from a log we were shown.
 */
export const CATALOGUE_LINES: readonly { entry: string; shape: string; line: string }[] = [
  {
    entry: 'apply request took too long',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"etcdutil.go:120","msg":"apply request took too long","took":"1.2s","expected-duration":"x","request":"x"}',
  },
  {
    entry: 'apply request took too long',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tetcdutil.go:120\tapply request took too long\t{"took": "1.2s", "expected-duration": "x", "request": "x"}',
  },
  {
    entry: 'apply request took too long',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 W | etcdserver: 8e9e05c52164694drequest "10.0.0.2:2380" with result "10.0.0.2:2380" took too long (etcdserver: request timed out) to execute',
  },
  {
    entry: 'failed to apply request',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"etcdutil.go:120","msg":"failed to apply request","took":"1.2s","request":"x","error":"x"}',
  },
  {
    entry: 'failed to apply request',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tetcdutil.go:120\tfailed to apply request\t{"took": "1.2s", "request": "x", "error": "x"}',
  },
  {
    entry: 'failed to apply request',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 W | etcdserver: failed to apply request,took etcdserver: request timed out,request 8e9e05c52164694d,resp 8e9e05c52164694d,err is etcdserver: request timed out',
  },
  {
    entry:
      'leader failed to send out heartbeat on time; took too long, leader is overloaded likely from slow disk',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"etcdraft.go:120","msg":"leader failed to send out heartbeat on time; took too long, leader is overloaded likely from slow disk","to":"x","heartbeat-interval":"x","expected-duration":"x","exceeded-duration":"x"}',
  },
  {
    entry:
      'leader failed to send out heartbeat on time; took too long, leader is overloaded likely from slow disk',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tetcdraft.go:120\tleader failed to send out heartbeat on time; took too long, leader is overloaded likely from slow disk\t{"to": "x", "heartbeat-interval": "x", "expected-duration": "x", "exceeded-duration": "x"}',
  },
  {
    entry:
      'leader failed to send out heartbeat on time; took too long, leader is overloaded likely from slow disk',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 W | etcdserver: failed to send out heartbeat on time (deadline exceeded for etcdserver: request timed out)',
  },
  {
    entry: 'server is likely overloaded',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 W | etcdserver: server is likely overloaded',
  },
  {
    entry: 'failed to save Raft hard state and entries',
    shape: 'zap',
    line: '{"level":"fatal","ts":"2024-05-14T08:30:00.123Z","caller":"etcdraft.go:120","msg":"failed to save Raft hard state and entries","error":"x"}',
  },
  {
    entry: 'failed to save Raft hard state and entries',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tFATAL\tetcdraft.go:120\tfailed to save Raft hard state and entries\t{"error": "x"}',
  },
  {
    entry: 'failed to save Raft hard state and entries',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 C | etcdserver: failed to raft save state and entries etcdserver: request timed out',
  },
  {
    entry: 'failed to save hard state and entries',
    shape: 'zap',
    line: '{"level":"fatal","ts":"2024-05-14T08:30:00.123Z","caller":"etcdraft.go:120","msg":"failed to save hard state and entries","error":"x"}',
  },
  {
    entry: 'failed to save hard state and entries',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tFATAL\tetcdraft.go:120\tfailed to save hard state and entries\t{"error": "x"}',
  },
  {
    entry: 'failed to save hard state and entries',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 C | etcdserver: failed to save state and entries error: etcdserver: request timed out',
  },
  {
    entry: 'failed to save Raft snapshot',
    shape: 'zap',
    line: '{"level":"fatal","ts":"2024-05-14T08:30:00.123Z","caller":"etcdraft.go:120","msg":"failed to save Raft snapshot","error":"x"}',
  },
  {
    entry: 'failed to save Raft snapshot',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tFATAL\tetcdraft.go:120\tfailed to save Raft snapshot\t{"error": "x"}',
  },
  {
    entry: 'failed to save Raft snapshot',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 C | etcdserver: failed to save Raft snapshot etcdserver: request timed out',
  },
  {
    entry: 'failed to sync Raft snapshot',
    shape: 'zap',
    line: '{"level":"fatal","ts":"2024-05-14T08:30:00.123Z","caller":"etcdraft.go:120","msg":"failed to sync Raft snapshot","error":"x"}',
  },
  {
    entry: 'failed to sync Raft snapshot',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tFATAL\tetcdraft.go:120\tfailed to sync Raft snapshot\t{"error": "x"}',
  },
  {
    entry: 'failed to sync Raft snapshot',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 C | etcdserver: failed to sync Raft snapshot etcdserver: request timed out',
  },
  {
    entry: 'failed to release Raft wal',
    shape: 'zap',
    line: '{"level":"fatal","ts":"2024-05-14T08:30:00.123Z","caller":"etcdraft.go:120","msg":"failed to release Raft wal","error":"x"}',
  },
  {
    entry: 'failed to release Raft wal',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tFATAL\tetcdraft.go:120\tfailed to release Raft wal\t{"error": "x"}',
  },
  {
    entry: 'failed to release Raft wal',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 C | etcdserver: failed to release Raft wal etcdserver: request timed out',
  },
  {
    entry: 'failed to create WAL',
    shape: 'zap',
    line: '{"level":"panic","ts":"2024-05-14T08:30:00.123Z","caller":"etcdraft.go:120","msg":"failed to create WAL","error":"x"}',
  },
  {
    entry: 'failed to create WAL',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tPANIC\tetcdraft.go:120\tfailed to create WAL\t{"error": "x"}',
  },
  {
    entry: 'failed to create WAL',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 C | etcdserver: create wal error: etcdserver: request timed out',
  },
  {
    entry: 'failed to create snapshot directory',
    shape: 'zap',
    line: '{"level":"fatal","ts":"2024-05-14T08:30:00.123Z","caller":"etcdserver.go:120","msg":"failed to create snapshot directory","error":"x"}',
  },
  {
    entry: 'failed to create snapshot directory',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tFATAL\tetcdserver.go:120\tfailed to create snapshot directory\t{"error": "x"}',
  },
  {
    entry: 'failed to create snapshot directory',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 C | etcdserver: create snapshot directory error: etcdserver: request timed out',
  },
  {
    entry: 'failed to open WAL',
    shape: 'zap',
    line: '{"level":"fatal","ts":"2024-05-14T08:30:00.123Z","caller":"etcdstorage.go:120","msg":"failed to open WAL","error":"x"}',
  },
  {
    entry: 'failed to open WAL',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tFATAL\tetcdstorage.go:120\tfailed to open WAL\t{"error": "x"}',
  },
  {
    entry: 'failed to open WAL',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 C | etcdserver: open wal error: etcdserver: request timed out',
  },
  {
    entry: 'failed to read WAL, cannot be repaired',
    shape: 'zap',
    line: '{"level":"fatal","ts":"2024-05-14T08:30:00.123Z","caller":"etcdstorage.go:120","msg":"failed to read WAL, cannot be repaired","error":"x"}',
  },
  {
    entry: 'failed to read WAL, cannot be repaired',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tFATAL\tetcdstorage.go:120\tfailed to read WAL, cannot be repaired\t{"error": "x"}',
  },
  {
    entry: 'failed to read WAL, cannot be repaired',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 C | etcdserver: read wal error (etcdserver: request timed out) and cannot be repaired',
  },
  {
    entry: 'failed to repair WAL',
    shape: 'zap',
    line: '{"level":"fatal","ts":"2024-05-14T08:30:00.123Z","caller":"etcdstorage.go:120","msg":"failed to repair WAL","error":"x"}',
  },
  {
    entry: 'failed to repair WAL',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tFATAL\tetcdstorage.go:120\tfailed to repair WAL\t{"error": "x"}',
  },
  {
    entry: 'failed to repair WAL',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 C | etcdserver: WAL error (etcdserver: request timed out) cannot be repaired',
  },
  {
    entry: 'failed to purge wal file',
    shape: 'zap',
    line: '{"level":"fatal","ts":"2024-05-14T08:30:00.123Z","caller":"etcdserver.go:120","msg":"failed to purge wal file","error":"x"}',
  },
  {
    entry: 'failed to purge wal file',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tFATAL\tetcdserver.go:120\tfailed to purge wal file\t{"error": "x"}',
  },
  {
    entry: 'failed to purge wal file',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 C | etcdserver: failed to purge wal file etcdserver: request timed out',
  },
  {
    entry: 'failed to purge snap file',
    shape: 'zap',
    line: '{"level":"fatal","ts":"2024-05-14T08:30:00.123Z","caller":"etcdserver.go:120","msg":"failed to purge snap file","error":"x"}',
  },
  {
    entry: 'failed to purge snap file',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tFATAL\tetcdserver.go:120\tfailed to purge snap file\t{"error": "x"}',
  },
  {
    entry: 'failed to purge snap file',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 C | etcdserver: failed to purge snap file etcdserver: request timed out',
  },
  {
    entry: 'failed to purge snap db file',
    shape: 'zap',
    line: '{"level":"fatal","ts":"2024-05-14T08:30:00.123Z","caller":"etcdserver.go:120","msg":"failed to purge snap db file","error":"x"}',
  },
  {
    entry: 'failed to purge snap db file',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tFATAL\tetcdserver.go:120\tfailed to purge snap db file\t{"error": "x"}',
  },
  {
    entry: 'failed to purge snap db file',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 C | etcdserver: failed to purge snap db file etcdserver: request timed out',
  },
  {
    entry: 'failed to recover from snapshot',
    shape: 'zap',
    line: '{"level":"panic","ts":"2024-05-14T08:30:00.123Z","caller":"etcdserver.go:120","msg":"failed to recover from snapshot","error":"x"}',
  },
  {
    entry: 'failed to recover from snapshot',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tPANIC\tetcdserver.go:120\tfailed to recover from snapshot\t{"error": "x"}',
  },
  {
    entry: 'failed to recover v3 backend from snapshot',
    shape: 'zap',
    line: '{"level":"panic","ts":"2024-05-14T08:30:00.123Z","caller":"etcdserver.go:120","msg":"failed to recover v3 backend from snapshot","error":"x"}',
  },
  {
    entry: 'failed to recover v3 backend from snapshot',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tPANIC\tetcdserver.go:120\tfailed to recover v3 backend from snapshot\t{"error": "x"}',
  },
  {
    entry: 'failed to recover v3 backend from snapshot',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 C | etcdserver: recovering backend from snapshot error: etcdserver: request timed out',
  },
  {
    entry: 'failed to open snapshot backend',
    shape: 'zap',
    line: '{"level":"panic","ts":"2024-05-14T08:30:00.123Z","caller":"etcdserver.go:120","msg":"failed to open snapshot backend","error":"x"}',
  },
  {
    entry: 'failed to open snapshot backend',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tPANIC\tetcdserver.go:120\tfailed to open snapshot backend\t{"error": "x"}',
  },
  {
    entry: 'failed to restore mvcc store',
    shape: 'zap',
    line: '{"level":"panic","ts":"2024-05-14T08:30:00.123Z","caller":"etcdserver.go:120","msg":"failed to restore mvcc store","error":"x"}',
  },
  {
    entry: 'failed to restore mvcc store',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tPANIC\tetcdserver.go:120\tfailed to restore mvcc store\t{"error": "x"}',
  },
  {
    entry: 'failed to get snapshot from Raft storage',
    shape: 'zap',
    line: '{"level":"panic","ts":"2024-05-14T08:30:00.123Z","caller":"etcdserver.go:120","msg":"failed to get snapshot from Raft storage","error":"x"}',
  },
  {
    entry: 'failed to get snapshot from Raft storage',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tPANIC\tetcdserver.go:120\tfailed to get snapshot from Raft storage\t{"error": "x"}',
  },
  {
    entry: 'failed to get snapshot from Raft storage',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 C | etcdserver: get snapshot from raft storage error: etcdserver: request timed out',
  },
  {
    entry: 'unexpected leader snapshot from outdated index',
    shape: 'zap',
    line: '{"level":"panic","ts":"2024-05-14T08:30:00.123Z","caller":"etcdserver.go:120","msg":"unexpected leader snapshot from outdated index","snapshot-index":"x","current-applied-index":"x"}',
  },
  {
    entry: 'unexpected leader snapshot from outdated index',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tPANIC\tetcdserver.go:120\tunexpected leader snapshot from outdated index\t{"snapshot-index": "x", "current-applied-index": "x"}',
  },
  {
    entry: 'unexpected leader snapshot from outdated index',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 C | etcdserver: snapshot index [42] should > appliedi[42] + 1',
  },
  {
    entry: 'unexpected committed entry index',
    shape: 'zap',
    line: '{"level":"panic","ts":"2024-05-14T08:30:00.123Z","caller":"etcdserver.go:120","msg":"unexpected committed entry index","current-applied-index":"x","first-committed-entry-index":"x"}',
  },
  {
    entry: 'unexpected committed entry index',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tPANIC\tetcdserver.go:120\tunexpected committed entry index\t{"current-applied-index": "x", "first-committed-entry-index": "x"}',
  },
  {
    entry: 'unexpected committed entry index',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 C | etcdserver: first index of committed entry[42] should <= appliedi[42] + 1',
  },
  {
    entry: 'failed to close Raft storage',
    shape: 'zap',
    line: '{"level":"panic","ts":"2024-05-14T08:30:00.123Z","caller":"etcdraft.go:120","msg":"failed to close Raft storage","error":"x"}',
  },
  {
    entry: 'failed to close Raft storage',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tPANIC\tetcdraft.go:120\tfailed to close Raft storage\t{"error": "x"}',
  },
  {
    entry: 'failed to close Raft storage',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 C | etcdserver: raft close storage error: etcdserver: request timed out',
  },
  {
    entry: 'got different member ID',
    shape: 'zap',
    line: '{"level":"panic","ts":"2024-05-14T08:30:00.123Z","caller":"etcdserver.go:120","msg":"got different member ID","member-id-from-config-change-entry":"8e9e05c52164694d","member-id-from-message":"8e9e05c52164694d"}',
  },
  {
    entry: 'got different member ID',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tPANIC\tetcdserver.go:120\tgot different member ID\t{"member-id-from-config-change-entry": "8e9e05c52164694d", "member-id-from-message": "8e9e05c52164694d"}',
  },
  {
    entry: 'got different member ID',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 C | etcdserver: nodeID should always be equal to member ID',
  },
  {
    entry: 'failed to save snapshot',
    shape: 'zap',
    line: '{"level":"panic","ts":"2024-05-14T08:30:00.123Z","caller":"etcdserver.go:120","msg":"failed to save snapshot","error":"x"}',
  },
  {
    entry: 'failed to save snapshot',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tPANIC\tetcdserver.go:120\tfailed to save snapshot\t{"error": "x"}',
  },
  {
    entry: 'failed to save snapshot',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 C | etcdserver: save snapshot error: etcdserver: request timed out',
  },
  {
    entry: 'failed to create snapshot',
    shape: 'zap',
    line: '{"level":"panic","ts":"2024-05-14T08:30:00.123Z","caller":"etcdserver.go:120","msg":"failed to create snapshot","error":"x"}',
  },
  {
    entry: 'failed to create snapshot',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tPANIC\tetcdserver.go:120\tfailed to create snapshot\t{"error": "x"}',
  },
  {
    entry: 'failed to create snapshot',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 C | etcdserver: unexpected create snapshot error etcdserver: request timed out',
  },
  {
    entry: 'failed to compact',
    shape: 'zap',
    line: '{"level":"panic","ts":"2024-05-14T08:30:00.123Z","caller":"etcdserver.go:120","msg":"failed to compact","error":"x"}',
  },
  {
    entry: 'failed to compact',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tPANIC\tetcdserver.go:120\tfailed to compact\t{"error": "x"}',
  },
  {
    entry: 'failed to compact',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 C | etcdserver: unexpected compaction error etcdserver: request timed out',
  },
  {
    entry: 'failed to unmarshal',
    shape: 'zap',
    line: '{"level":"panic","ts":"2024-05-14T08:30:00.123Z","caller":"etcdapply_v2.go:120","msg":"failed to unmarshal","error":"x"}',
  },
  {
    entry: 'failed to unmarshal',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tPANIC\tetcdapply_v2.go:120\tfailed to unmarshal\t{"error": "x"}',
  },
  {
    entry: 'failed to unmarshal',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 C | etcdserver: store save should never fail: etcdserver: request timed out',
  },
  {
    entry: 'message exceeded backend quota; raising alarm',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"etcdserver.go:120","msg":"message exceeded backend quota; raising alarm","quota-size-bytes":"x","quota-size":"x","error":"x"}',
  },
  {
    entry: 'message exceeded backend quota; raising alarm',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tetcdserver.go:120\tmessage exceeded backend quota; raising alarm\t{"quota-size-bytes": "x", "quota-size": "x", "error": "x"}',
  },
  {
    entry: 'message exceeded backend quota; raising alarm',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 E | etcdserver: applying raft message exceeded backend quota',
  },
  {
    entry: 'alarm raised',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"etcdapply.go:120","msg":"alarm raised","alarm":"x","from":"x"}',
  },
  {
    entry: 'alarm raised',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tetcdapply.go:120\talarm raised\t{"alarm": "x", "from": "x"}',
  },
  {
    entry: 'alarm raised',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 W | etcdserver: alarm etcdserver: request timed out raised by peer 8e9e05c52164694d',
  },
  {
    entry: 'alarm disarmed',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"etcdapply.go:120","msg":"alarm disarmed","alarm":"x","from":"x"}',
  },
  {
    entry: 'alarm disarmed',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tetcdapply.go:120\talarm disarmed\t{"alarm": "x", "from": "x"}',
  },
  {
    entry: 'alarm disarmed',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 I | etcdserver: alarm disarmed {ID:8e9e05c52164694d}',
  },
  {
    entry: 'quota exceeds the maximum value',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"etcdquota.go:120","msg":"quota exceeds the maximum value","quota-size":"x","quota-maximum-size":"x"}',
  },
  {
    entry: 'quota exceeds the maximum value',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tetcdquota.go:120\tquota exceeds the maximum value\t{"quota-size": "x", "quota-maximum-size": "x"}',
  },
  {
    entry: 'quota exceeds the maximum value',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 W | etcdserver: backend quota etcdserver: request timed out exceeds maximum recommended quota etcdserver: request timed out',
  },
  {
    entry: '80% of file descriptors are used',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"etcdmetrics.go:120","msg":"80% of file descriptors are used","used":"x","limit":"x"}',
  },
  {
    entry: '80% of file descriptors are used',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tetcdmetrics.go:120\t80% of file descriptors are used\t{"used": "x", "limit": "x"}',
  },
  {
    entry: '80% of file descriptors are used',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 W | etcdserver: 80% of the file descriptor limit is used [used = 42, limit = 42]',
  },
  {
    entry: 'failed to get file descriptor usage',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"etcdmetrics.go:120","msg":"failed to get file descriptor usage","error":"x"}',
  },
  {
    entry: 'failed to get file descriptor usage',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tetcdmetrics.go:120\tfailed to get file descriptor usage\t{"error": "x"}',
  },
  {
    entry: 'failed to get file descriptor usage',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 E | etcdserver: cannot monitor file descriptor usage (etcdserver: request timed out)',
  },
  {
    entry: 'file descriptor limit of etcd process is too low; please set higher',
    shape: 'zap',
    line: '{"level":"fatal","ts":"2024-05-14T08:30:00.123Z","caller":"etcd.go:120","msg":"file descriptor limit of etcd process is too low; please set higher","limit":"x","recommended-limit":"x"}',
  },
  {
    entry: 'file descriptor limit of etcd process is too low; please set higher',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tFATAL\tetcd.go:120\tfile descriptor limit of etcd process is too low; please set higher\t{"limit": "x", "recommended-limit": "x"}',
  },
  {
    entry: 'file descriptor limit of etcd process is too low; please set higher',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 C | etcdmain: file descriptor limit[42] of etcd process is too low, and should be set higher than 42 to ensure internal usage',
  },
  {
    entry: 'timed out waiting for read index response (local node might have slow network)',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"etcdv3_server.go:120","msg":"timed out waiting for read index response (local node might have slow network)","timeout":"x"}',
  },
  {
    entry: 'timed out waiting for read index response (local node might have slow network)',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tetcdv3_server.go:120\ttimed out waiting for read index response (local node might have slow network)\t{"timeout": "x"}',
  },
  {
    entry: 'timed out waiting for read index response (local node might have slow network)',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 W | etcdserver: timed out waiting for read index response (local node might have slow network)',
  },
  {
    entry: 'waiting for ReadIndex response took too long, retrying',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"etcdv3_server.go:120","msg":"waiting for ReadIndex response took too long, retrying","sent-request-id":"8e9e05c52164694d","retry-timeout":"x"}',
  },
  {
    entry: 'waiting for ReadIndex response took too long, retrying',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tetcdv3_server.go:120\twaiting for ReadIndex response took too long, retrying\t{"sent-request-id": "8e9e05c52164694d", "retry-timeout": "x"}',
  },
  {
    entry: 'waiting for ReadIndex response took too long, retrying',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 W | etcdserver: waiting for ReadIndex response took too long, retrying (sent-request-id: 42, retry-timeout: 8e9e05c52164694d)',
  },
  {
    entry:
      'ignored out-of-date read index response; local node read indexes queueing up and waiting to be in sync with leader',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"etcdv3_server.go:120","msg":"ignored out-of-date read index response; local node read indexes queueing up and waiting to be in sync with leader","received-request-id":"8e9e05c52164694d","sent-request-id":"8e9e05c52164694d"}',
  },
  {
    entry:
      'ignored out-of-date read index response; local node read indexes queueing up and waiting to be in sync with leader',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tetcdv3_server.go:120\tignored out-of-date read index response; local node read indexes queueing up and waiting to be in sync with leader\t{"received-request-id": "8e9e05c52164694d", "sent-request-id": "8e9e05c52164694d"}',
  },
  {
    entry:
      'ignored out-of-date read index response; local node read indexes queueing up and waiting to be in sync with leader',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 W | etcdserver: ignored out-of-date read index response; local node read indexes queueing up and waiting to be in sync with leader (request ID want 42, got 42)',
  },
  {
    entry: 'failed to get read index from Raft',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"etcdv3_server.go:120","msg":"failed to get read index from Raft","error":"x"}',
  },
  {
    entry: 'failed to get read index from Raft',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tetcdv3_server.go:120\tfailed to get read index from Raft\t{"error": "x"}',
  },
  {
    entry: 'failed to get read index from Raft',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 E | etcdserver: failed to get read index from raft: etcdserver: request timed out',
  },
  {
    entry: 'timed out sending read state',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"etcdraft.go:120","msg":"timed out sending read state","timeout":"x"}',
  },
  {
    entry: 'timed out sending read state',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tetcdraft.go:120\ttimed out sending read state\t{"timeout": "x"}',
  },
  {
    entry: 'timed out sending read state',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 W | etcdserver: timed out sending read state',
  },
  {
    entry: 'failed to revoke lease',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"etcdserver.go:120","msg":"failed to revoke lease","lease-id":"8e9e05c52164694d","error":"x"}',
  },
  {
    entry: 'failed to revoke lease',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tetcdserver.go:120\tfailed to revoke lease\t{"lease-id": "8e9e05c52164694d", "error": "x"}',
  },
  {
    entry: 'failed to revoke lease',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 W | etcdserver: failed to revoke 000000000000002a ("10.0.0.2:2380")',
  },
  {
    entry: 'leadership transfer failed',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"etcdserver.go:120","msg":"leadership transfer failed","error":"x"}',
  },
  {
    entry: 'leadership transfer failed',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tetcdserver.go:120\tleadership transfer failed\t{"error": "x"}',
  },
  {
    entry: 'leadership transfer failed',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 W | etcdserver: 8e9e05c52164694d failed to transfer leadership (etcdserver: request timed out)',
  },
  {
    entry: "Ignore the lease revoking request because current member isn't a leader",
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"etcdserver.go:120","msg":"Ignore the lease revoking request because current member isn\'t a leader","local-member-id":"8e9e05c52164694d"}',
  },
  {
    entry: "Ignore the lease revoking request because current member isn't a leader",
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tetcdserver.go:120\tIgnore the lease revoking request because current member isn\'t a leader\t{"local-member-id": "8e9e05c52164694d"}',
  },
  {
    entry: "Ignore the lease revoking request because current member isn't a leader",
    shape: 'capnslog',
    line: "2018-03-02 08:30:00.123456 W | etcdserver: Ignore the lease revoking request because current member 42 isn't a leader",
  },
  {
    entry: "Ignore the checkpoint request because current member isn't a leader",
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"etcdserver.go:120","msg":"Ignore the checkpoint request because current member isn\'t a leader","local-member-id":"8e9e05c52164694d"}',
  },
  {
    entry: "Ignore the checkpoint request because current member isn't a leader",
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tetcdserver.go:120\tIgnore the checkpoint request because current member isn\'t a leader\t{"local-member-id": "8e9e05c52164694d"}',
  },
  {
    entry: "Ignore the checkpoint request because current member isn't a leader",
    shape: 'capnslog',
    line: "2018-03-02 08:30:00.123456 W | etcdserver: Ignore the checkpoint request because current member 42 isn't a leader",
  },
  {
    entry: "Current member isn't a leader",
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"etcdserver.go:120","msg":"Current member isn\'t a leader","local-member-id":"8e9e05c52164694d","new-lead":"x"}',
  },
  {
    entry: "Current member isn't a leader",
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tetcdserver.go:120\tCurrent member isn\'t a leader\t{"local-member-id": "8e9e05c52164694d", "new-lead": "x"}',
  },
  {
    entry: "Current member isn't a leader",
    shape: 'capnslog',
    line: "2018-03-02 08:30:00.123456 W | etcdserver: Current member 42 isn't a leader (new-lead=42)",
  },
  {
    entry: 'rejected Raft message from removed member',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"etcdserver.go:120","msg":"rejected Raft message from removed member","local-member-id":"8e9e05c52164694d","removed-member-id":"8e9e05c52164694d"}',
  },
  {
    entry: 'rejected Raft message from removed member',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tetcdserver.go:120\trejected Raft message from removed member\t{"local-member-id": "8e9e05c52164694d", "removed-member-id": "8e9e05c52164694d"}',
  },
  {
    entry: 'rejected Raft message from removed member',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 W | etcdserver: reject message from removed member 8e9e05c52164694d',
  },
  {
    entry: 'rejected Raft message to mismatch member',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"etcdserver.go:120","msg":"rejected Raft message to mismatch member","local-member-id":"8e9e05c52164694d","mismatch-member-id":"8e9e05c52164694d"}',
  },
  {
    entry: 'rejected Raft message to mismatch member',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tetcdserver.go:120\trejected Raft message to mismatch member\t{"local-member-id": "8e9e05c52164694d", "mismatch-member-id": "8e9e05c52164694d"}',
  },
  {
    entry: 'rejected Raft message to mismatch member',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 W | etcdserver: rejected message to mismatch member 8e9e05c52164694d',
  },
  {
    entry: 'data-dir used by this member must be removed',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"etcdserver.go:120","msg":"data-dir used by this member must be removed","data-dir":"x"}',
  },
  {
    entry: 'data-dir used by this member must be removed',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tetcdserver.go:120\tdata-dir used by this member must be removed\t{"data-dir": "x"}',
  },
  {
    entry: 'data-dir used by this member must be removed',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 I | etcdserver: the data-dir used by this member must be removed.',
  },
  {
    entry: 'cluster ID mismatch',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"etcdcorrupt.go:120","msg":"cluster ID mismatch","local-member-cluster-id":"8e9e05c52164694d","remote-peer-cluster-id":"8e9e05c52164694d"}',
  },
  {
    entry: 'cluster ID mismatch',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tetcdcorrupt.go:120\tcluster ID mismatch\t{"local-member-cluster-id": "8e9e05c52164694d", "remote-peer-cluster-id": "8e9e05c52164694d"}',
  },
  {
    entry: 'rejecting member add request; not enough healthy members',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"etcdserver.go:120","msg":"rejecting member add request; not enough healthy members","local-member-id":"8e9e05c52164694d","requested-member-add":"x"}',
  },
  {
    entry: 'rejecting member add request; not enough healthy members',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tetcdserver.go:120\trejecting member add request; not enough healthy members\t{"local-member-id": "8e9e05c52164694d", "requested-member-add": "x"}',
  },
  {
    entry: 'rejecting member add request; not enough healthy members',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 W | etcdserver: not enough started members, rejecting member add {ID:8e9e05c52164694d}',
  },
  {
    entry: 'rejecting member remove request; not enough healthy members',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"etcdserver.go:120","msg":"rejecting member remove request; not enough healthy members","local-member-id":"8e9e05c52164694d","requested-member-remove":"x"}',
  },
  {
    entry: 'rejecting member remove request; not enough healthy members',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tetcdserver.go:120\trejecting member remove request; not enough healthy members\t{"local-member-id": "8e9e05c52164694d", "requested-member-remove": "x"}',
  },
  {
    entry: 'rejecting member remove request; not enough healthy members',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 W | etcdserver: not enough started members, rejecting remove member 8e9e05c52164694d',
  },
  {
    entry:
      'rejecting member remove request; local member has not been connected to all peers, reconfigure breaks active quorum',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"etcdserver.go:120","msg":"rejecting member remove request; local member has not been connected to all peers, reconfigure breaks active quorum","local-member-id":"8e9e05c52164694d","requested-member-remove":"x","active-peers":"x"}',
  },
  {
    entry:
      'rejecting member remove request; local member has not been connected to all peers, reconfigure breaks active quorum',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tetcdserver.go:120\trejecting member remove request; local member has not been connected to all peers, reconfigure breaks active quorum\t{"local-member-id": "8e9e05c52164694d", "requested-member-remove": "x", "active-peers": "x"}',
  },
  {
    entry:
      'rejecting member remove request; local member has not been connected to all peers, reconfigure breaks active quorum',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 W | etcdserver: reconfigure breaks active quorum, rejecting remove member 8e9e05c52164694d',
  },
  {
    entry:
      'rejecting member add request; local member has not been connected to majority peers, reconfigure breaks active quorum',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"server.go:120","msg":"rejecting member add request; local member has not been connected to majority peers, reconfigure breaks active quorum","local-member-id":"8e9e05c52164694d","requested-member-add":"x"}',
  },
  {
    entry:
      'rejecting member add request; local member has not been connected to majority peers, reconfigure breaks active quorum',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tserver.go:120\trejecting member add request; local member has not been connected to majority peers, reconfigure breaks active quorum\t{"local-member-id": "8e9e05c52164694d", "requested-member-add": "x"}',
  },
  {
    entry:
      'rejecting member add request; local member has not been connected to majority peers, reconfigure breaks active quorum',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 W | etcdserver: not healthy for reconfigure, rejecting member add {ID:8e9e05c52164694d}',
  },
  {
    entry: 'rejecting member promote request; not enough healthy members',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"etcdserver.go:120","msg":"rejecting member promote request; not enough healthy members","local-member-id":"8e9e05c52164694d","requested-member-remove":"x"}',
  },
  {
    entry: 'rejecting member promote request; not enough healthy members',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tetcdserver.go:120\trejecting member promote request; not enough healthy members\t{"local-member-id": "8e9e05c52164694d", "requested-member-remove": "x"}',
  },
  {
    entry: 'rejecting member promote request; not enough healthy members',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 W | etcdserver: not enough started members, rejecting promote member 8e9e05c52164694d',
  },
  {
    entry: 'rejecting promote learner: learner is not ready',
    shape: 'zap',
    line: '{"level":"error","ts":"2024-05-14T08:30:00.123Z","caller":"server.go:120","msg":"rejecting promote learner: learner is not ready","error":"x"}',
  },
  {
    entry: 'rejecting promote learner: learner is not ready',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tERROR\tserver.go:120\trejecting promote learner: learner is not ready\t{"error": "x"}',
  },
  {
    entry: 'failed to publish local member to cluster through raft',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"etcdserver.go:120","msg":"failed to publish local member to cluster through raft","local-member-id":"8e9e05c52164694d","request-path":"x","publish-timeout":"x","error":"x"}',
  },
  {
    entry: 'failed to publish local member to cluster through raft',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tetcdserver.go:120\tfailed to publish local member to cluster through raft\t{"local-member-id": "8e9e05c52164694d", "request-path": "x", "publish-timeout": "x", "error": "x"}',
  },
  {
    entry: 'failed to publish local member to cluster through raft',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 E | etcdserver: publish error: etcdserver: request timed out',
  },
  {
    entry: 'Validation on configuration change failed',
    shape: 'zap',
    line: '{"level":"error","ts":"2024-05-14T08:30:00.123Z","caller":"etcdserver.go:120","msg":"Validation on configuration change failed","error":"x"}',
  },
  {
    entry: 'Validation on configuration change failed',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tERROR\tetcdserver.go:120\tValidation on configuration change failed\t{"error": "x"}',
  },
  {
    entry: 'Validation on configuration change failed',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 E | etcdserver: Validation on configuration change failed: etcdserver: request timed out',
  },
  {
    entry: 'discovery token is ignored since cluster already initialized; valid logs are found',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"etcdserver.go:120","msg":"discovery token is ignored since cluster already initialized; valid logs are found","wal-dir":"x"}',
  },
  {
    entry: 'discovery token is ignored since cluster already initialized; valid logs are found',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tetcdserver.go:120\tdiscovery token is ignored since cluster already initialized; valid logs are found\t{"wal-dir": "x"}',
  },
  {
    entry: 'consistent index was never saved',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"etcdserver.go:120","msg":"consistent index was never saved","snapshot-index":"x"}',
  },
  {
    entry: 'consistent index was never saved',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tetcdserver.go:120\tconsistent index was never saved\t{"snapshot-index": "x"}',
  },
  {
    entry: 'consistent index was never saved',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 W | etcdserver: consistent index never saved (snapshot index=42)',
  },
  {
    entry: 'failed to create token provider',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"etcdserver.go:120","msg":"failed to create token provider","error":"x"}',
  },
  {
    entry: 'failed to create token provider',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tetcdserver.go:120\tfailed to create token provider\t{"error": "x"}',
  },
  {
    entry: 'failed to create token provider',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 W | etcdserver: failed to create token provider,err is etcdserver: request timed out',
  },
  {
    entry: 'remotes server has mismatching etcd version',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"cluster_util.go:120","msg":"remotes server has mismatching etcd version","remote-member-id":"8e9e05c52164694d","current-server-version":"x","remote-member-version":"x"}',
  },
  {
    entry: 'remotes server has mismatching etcd version',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tcluster_util.go:120\tremotes server has mismatching etcd version\t{"remote-member-id": "8e9e05c52164694d", "current-server-version": "x", "remote-member-version": "x"}',
  },
  {
    entry: 'leader found higher-versioned member',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"etcdcluster_util.go:120","msg":"leader found higher-versioned member","local-member-version":"x","remote-member-id":"8e9e05c52164694d","remote-member-version":"x"}',
  },
  {
    entry: 'leader found higher-versioned member',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tetcdcluster_util.go:120\tleader found higher-versioned member\t{"local-member-version": "x", "remote-member-id": "8e9e05c52164694d", "remote-member-version": "x"}',
  },
  {
    entry: 'leader found higher-versioned member',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 W | etcdserver: member 8e9e05c52164694d has a higher version 8e9e05c52164694d',
  },
  {
    entry: 'cluster version of remote member is not compatible; too low',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"etcdcluster_util.go:120","msg":"cluster version of remote member is not compatible; too low","remote-member-cluster-version":"x","minimum-cluster-version-supported":"x"}',
  },
  {
    entry: 'cluster version of remote member is not compatible; too low',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tetcdcluster_util.go:120\tcluster version of remote member is not compatible; too low\t{"remote-member-cluster-version": "x", "minimum-cluster-version-supported": "x"}',
  },
  {
    entry: 'cluster version of remote member is not compatible; too low',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 W | etcdserver: the running cluster version(etcdserver: request timed out) is lower than the minimal cluster version(etcdserver: request timed out) supported',
  },
  {
    entry: 'cluster version of remote member is not compatible; too high',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"etcdcluster_util.go:120","msg":"cluster version of remote member is not compatible; too high","remote-member-cluster-version":"x","minimum-cluster-version-supported":"x"}',
  },
  {
    entry: 'cluster version of remote member is not compatible; too high',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tetcdcluster_util.go:120\tcluster version of remote member is not compatible; too high\t{"remote-member-cluster-version": "x", "minimum-cluster-version-supported": "x"}',
  },
  {
    entry: 'cluster version of remote member is not compatible; too high',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 W | etcdserver: the running cluster version(etcdserver: request timed out) is higher than the maximum cluster version(etcdserver: request timed out) supported',
  },
  {
    entry: 'failed to reach the peer URL',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"etcdcluster_util.go:120","msg":"failed to reach the peer URL","address":"x","remote-member-id":"8e9e05c52164694d","error":"x"}',
  },
  {
    entry: 'failed to reach the peer URL',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tetcdcluster_util.go:120\tfailed to reach the peer URL\t{"address": "x", "remote-member-id": "8e9e05c52164694d", "error": "x"}',
  },
  {
    entry: 'failed to reach the peer URL',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 W | etcdserver: failed to reach the peerURL(8e9e05c52164694d) of member 8e9e05c52164694d (etcdserver: request timed out)',
  },
  {
    entry: 'failed to get version',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"etcdcluster_util.go:120","msg":"failed to get version","remote-member-id":"8e9e05c52164694d","error":"x"}',
  },
  {
    entry: 'failed to get version',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tetcdcluster_util.go:120\tfailed to get version\t{"remote-member-id": "8e9e05c52164694d", "error": "x"}',
  },
  {
    entry: 'failed to get version',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 W | etcdserver: cannot get the version of member 8e9e05c52164694d (etcdserver: request timed out)',
  },
  {
    entry: 'failed to update cluster version',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"etcdserver.go:120","msg":"failed to update cluster version","error":"x"}',
  },
  {
    entry: 'failed to update cluster version',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tetcdserver.go:120\tfailed to update cluster version\t{"error": "x"}',
  },
  {
    entry: 'failed to update cluster version',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 E | etcdserver: error updating cluster version (etcdserver: request timed out)',
  },
  {
    entry: 'cluster cannot be downgraded',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 C | etcdserver: cluster cannot be downgraded (current version: 8e9e05c52164694d is lower than determined cluster version: 8e9e05c52164694d).',
  },
  {
    entry: 'invalid downgrade; server version is lower than determined cluster version',
    shape: 'zap',
    line: '{"level":"fatal","ts":"2024-05-14T08:30:00.123Z","caller":"api/membership/downgrade.go:120","msg":"invalid downgrade; server version is lower than determined cluster version","current-server-version":"x","determined-cluster-version":"x"}',
  },
  {
    entry: 'invalid downgrade; server version is lower than determined cluster version',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tFATAL\tapi/membership/downgrade.go:120\tinvalid downgrade; server version is lower than determined cluster version\t{"current-server-version": "x", "determined-cluster-version": "x"}',
  },
  {
    entry: 'found different hash values from remote peer',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"etcdcorrupt.go:120","msg":"found different hash values from remote peer","local-member-id":"8e9e05c52164694d","local-member-hash":"x","remote-peer-id":"8e9e05c52164694d","remote-peer-hash":"x"}',
  },
  {
    entry: 'found different hash values from remote peer',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tetcdcorrupt.go:120\tfound different hash values from remote peer\t{"local-member-id": "8e9e05c52164694d", "local-member-hash": "x", "remote-peer-id": "8e9e05c52164694d", "remote-peer-hash": "x"}',
  },
  {
    entry: 'found hash mismatch',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"etcdcorrupt.go:120","msg":"found hash mismatch","revision":"x","leader-hash":"x","follower-hash":"x"}',
  },
  {
    entry: 'found hash mismatch',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tetcdcorrupt.go:120\tfound hash mismatch\t{"revision": "x", "leader-hash": "x", "follower-hash": "x"}',
  },
  {
    entry: 'found hash mismatch',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 W | etcdserver: mismatched hashes 42 and 42 for revision 42',
  },
  {
    entry: 'same compact revision then hashes must match',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"etcdcorrupt.go:120","msg":"same compact revision then hashes must match","leader-hash":"x","follower-hash":"x","follower-peer-id":"8e9e05c52164694d"}',
  },
  {
    entry: 'same compact revision then hashes must match',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tetcdcorrupt.go:120\tsame compact revision then hashes must match\t{"leader-hash": "x", "follower-hash": "x", "follower-peer-id": "8e9e05c52164694d"}',
  },
  {
    entry: 'same compact revision then hashes must match',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 W | etcdserver: hash 42 at revision 42 from member etcdserver: request timed out, expected hash 42',
  },
  {
    entry: 'Detected compaction hash mismatch',
    shape: 'zap',
    line: '{"level":"error","ts":"2024-05-14T08:30:00.123Z","caller":"corrupt.go:120","msg":"Detected compaction hash mismatch","revision":"x","expected-hash":"x","actual-hash":"x","member-id":"8e9e05c52164694d"}',
  },
  {
    entry: 'Detected compaction hash mismatch',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tERROR\tcorrupt.go:120\tDetected compaction hash mismatch\t{"revision": "x", "expected-hash": "x", "actual-hash": "x", "member-id": "8e9e05c52164694d"}',
  },
  {
    entry: 'failed compaction hash check',
    shape: 'zap',
    line: '{"level":"error","ts":"2024-05-14T08:30:00.123Z","caller":"corrupt.go:120","msg":"failed compaction hash check","error":"x"}',
  },
  {
    entry: 'failed compaction hash check',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tERROR\tcorrupt.go:120\tfailed compaction hash check\t{"error": "x"}',
  },
  {
    entry: 'cannot fetch hash from slow remote peer',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"etcdcorrupt.go:120","msg":"cannot fetch hash from slow remote peer","remote-peer-id":"8e9e05c52164694d","error":"x"}',
  },
  {
    entry: 'cannot fetch hash from slow remote peer',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tetcdcorrupt.go:120\tcannot fetch hash from slow remote peer\t{"remote-peer-id": "8e9e05c52164694d", "error": "x"}',
  },
  {
    entry: 'cannot fetch hash from slow remote peer',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 W | etcdserver: 8e9e05c52164694d cannot check the hash of peer("10.0.0.2:2380") at revision 42: peer is lagging behind("10.0.0.2:2380")',
  },
  {
    entry: 'cannot fetch hash from remote peer; local member is behind',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"etcdcorrupt.go:120","msg":"cannot fetch hash from remote peer; local member is behind","remote-peer-id":"8e9e05c52164694d","error":"x"}',
  },
  {
    entry: 'cannot fetch hash from remote peer; local member is behind',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tetcdcorrupt.go:120\tcannot fetch hash from remote peer; local member is behind\t{"remote-peer-id": "8e9e05c52164694d", "error": "x"}',
  },
  {
    entry: 'cannot fetch hash from remote peer; local member is behind',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 W | etcdserver: 8e9e05c52164694d cannot check the hash of peer("10.0.0.2:2380") at revision 42: local node is lagging behind("10.0.0.2:2380")',
  },
  {
    entry: 'failed to check hash KV',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"etcdcorrupt.go:120","msg":"failed to check hash KV","error":"x"}',
  },
  {
    entry: 'failed to check hash KV',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tetcdcorrupt.go:120\tfailed to check hash KV\t{"error": "x"}',
  },
  {
    entry: 'verification of persisted state failed',
    shape: 'zap',
    line: '{"level":"error","ts":"2024-05-14T08:30:00.123Z","caller":"verify.go:120","msg":"verification of persisted state failed","error":"x"}',
  },
  {
    entry: 'verification of persisted state failed',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tERROR\tverify.go:120\tverification of persisted state failed\t{"error": "x"}',
  },
  {
    entry: 'Verification failed',
    shape: 'zap',
    line: '{"level":"fatal","ts":"2024-05-14T08:30:00.123Z","caller":"verify.go:120","msg":"Verification failed","error":"x"}',
  },
  {
    entry: 'Verification failed',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tFATAL\tverify.go:120\tVerification failed\t{"error": "x"}',
  },
  {
    entry: 'prober detected unhealthy status',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"rafthttp/probing_status.go:120","msg":"prober detected unhealthy status","remote-peer-id":"8e9e05c52164694d","rtt":"x","error":"x"}',
  },
  {
    entry: 'prober detected unhealthy status',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\trafthttp/probing_status.go:120\tprober detected unhealthy status\t{"remote-peer-id": "8e9e05c52164694d", "rtt": "x", "error": "x"}',
  },
  {
    entry: 'prober detected unhealthy status',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 W | rafthttp: health check for peer 8e9e05c52164694d could not connect: etcdserver: request timed out',
  },
  {
    entry: 'prober found high clock drift',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"rafthttp/probing_status.go:120","msg":"prober found high clock drift","remote-peer-id":"8e9e05c52164694d","clock-drift":"x","rtt":"x"}',
  },
  {
    entry: 'prober found high clock drift',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\trafthttp/probing_status.go:120\tprober found high clock drift\t{"remote-peer-id": "8e9e05c52164694d", "clock-drift": "x", "rtt": "x"}',
  },
  {
    entry: 'prober found high clock drift',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 W | rafthttp: the clock difference against peer 8e9e05c52164694d is too high [etcdserver: request timed out > etcdserver: request timed out]',
  },
  {
    entry: 'the connection to peer',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 W | rafthttp: the connection to peer 8e9e05c52164694d is unhealthy',
  },
  {
    entry: 'peer became inactive (message send to peer failed)',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"rafthttp/peer_status.go:120","msg":"peer became inactive (message send to peer failed)","peer-id":"8e9e05c52164694d","error":"x"}',
  },
  {
    entry: 'peer became inactive (message send to peer failed)',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\trafthttp/peer_status.go:120\tpeer became inactive (message send to peer failed)\t{"peer-id": "8e9e05c52164694d", "error": "x"}',
  },
  {
    entry: 'peer became inactive (message send to peer failed)',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 I | rafthttp: peer 8e9e05c52164694d became inactive (message send to peer failed)',
  },
  {
    entry: 'lost TCP streaming connection with remote peer',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"rafthttp/stream.go:120","msg":"lost TCP streaming connection with remote peer","stream-reader-type":"x","local-member-id":"8e9e05c52164694d","remote-peer-id":"8e9e05c52164694d","error":"x"}',
  },
  {
    entry: 'lost TCP streaming connection with remote peer',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\trafthttp/stream.go:120\tlost TCP streaming connection with remote peer\t{"stream-reader-type": "x", "local-member-id": "8e9e05c52164694d", "remote-peer-id": "8e9e05c52164694d", "error": "x"}',
  },
  {
    entry: 'lost TCP streaming connection with remote peer',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 W | rafthttp: lost the TCP streaming connection with peer 8e9e05c52164694d (8e9e05c52164694d writer)',
  },
  {
    entry: 'dropped internal Raft message since sending buffer is full (overloaded network)',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"rafthttp/peer.go:120","msg":"dropped internal Raft message since sending buffer is full (overloaded network)","message-type":"x","local-member-id":"8e9e05c52164694d","remote-peer-id":"8e9e05c52164694d","remote-peer-active":"x"}',
  },
  {
    entry: 'dropped internal Raft message since sending buffer is full (overloaded network)',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\trafthttp/peer.go:120\tdropped internal Raft message since sending buffer is full (overloaded network)\t{"message-type": "x", "local-member-id": "8e9e05c52164694d", "remote-peer-id": "8e9e05c52164694d", "remote-peer-active": "x"}',
  },
  {
    entry: 'dropped internal Raft message since sending buffer is full (overloaded network)',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 W | rafthttp: dropped internal raft message to 8e9e05c52164694d since sending buffer is full (bad/overloaded network)',
  },
  {
    entry: 'dropped internal Raft message since sending buffer is full',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"api/rafthttp/peer.go:120","msg":"dropped internal Raft message since sending buffer is full","message-type":"x","remote-peer-id":"8e9e05c52164694d","remote-peer-active":"x"}',
  },
  {
    entry: 'dropped internal Raft message since sending buffer is full',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tapi/rafthttp/peer.go:120\tdropped internal Raft message since sending buffer is full\t{"message-type": "x", "remote-peer-id": "8e9e05c52164694d", "remote-peer-active": "x"}',
  },
  {
    entry: 'dropped Raft message since sending buffer is full (overloaded network)',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"rafthttp/remote.go:120","msg":"dropped Raft message since sending buffer is full (overloaded network)","message-type":"x","remote-peer-id":"8e9e05c52164694d"}',
  },
  {
    entry: 'dropped Raft message since sending buffer is full (overloaded network)',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\trafthttp/remote.go:120\tdropped Raft message since sending buffer is full (overloaded network)\t{"message-type": "x", "remote-peer-id": "8e9e05c52164694d"}',
  },
  {
    entry: 'dropped internal Raft message since receiving buffer is full (overloaded network)',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"rafthttp/stream.go:120","msg":"dropped internal Raft message since receiving buffer is full (overloaded network)","message-type":"x","remote-peer-id":"8e9e05c52164694d"}',
  },
  {
    entry: 'dropped internal Raft message since receiving buffer is full (overloaded network)',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\trafthttp/stream.go:120\tdropped internal Raft message since receiving buffer is full (overloaded network)\t{"message-type": "x", "remote-peer-id": "8e9e05c52164694d"}',
  },
  {
    entry: 'dropped Raft message since receiving buffer is full (overloaded network)',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"rafthttp/stream.go:120","msg":"dropped Raft message since receiving buffer is full (overloaded network)","message-type":"x","remote-peer-id":"8e9e05c52164694d"}',
  },
  {
    entry: 'dropped Raft message since receiving buffer is full (overloaded network)',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\trafthttp/stream.go:120\tdropped Raft message since receiving buffer is full (overloaded network)\t{"message-type": "x", "remote-peer-id": "8e9e05c52164694d"}',
  },
  {
    entry: 'failed to send database snapshot',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"rafthttp/snapshot_sender.go:120","msg":"failed to send database snapshot","snapshot-index":"x","remote-peer-id":"8e9e05c52164694d","bytes":"x","size":"x","error":"x"}',
  },
  {
    entry: 'failed to send database snapshot',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\trafthttp/snapshot_sender.go:120\tfailed to send database snapshot\t{"snapshot-index": "x", "remote-peer-id": "8e9e05c52164694d", "bytes": "x", "size": "x", "error": "x"}',
  },
  {
    entry: 'failed to send database snapshot',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 W | rafthttp: database snapshot [index: 42, to: 8e9e05c52164694d] failed to be sent out (etcdserver: request timed out)',
  },
  {
    entry: 'request cluster ID mismatch',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"rafthttp/http.go:120","msg":"request cluster ID mismatch","local-member-id":"8e9e05c52164694d","local-member-cluster-id":"8e9e05c52164694d","remote-peer-id":"8e9e05c52164694d","remote-peer-cluster-id":"8e9e05c52164694d"}',
  },
  {
    entry: 'request cluster ID mismatch',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\trafthttp/http.go:120\trequest cluster ID mismatch\t{"local-member-id": "8e9e05c52164694d", "local-member-cluster-id": "8e9e05c52164694d", "remote-peer-id": "8e9e05c52164694d", "remote-peer-cluster-id": "8e9e05c52164694d"}',
  },
  {
    entry: 'request cluster ID mismatch',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 E | rafthttp: request cluster ID mismatch (got 8e9e05c52164694d want 8e9e05c52164694d)',
  },
  {
    entry: 'request sent was ignored due to cluster ID mismatch',
    shape: 'zap',
    line: '{"level":"error","ts":"2024-05-14T08:30:00.123Z","caller":"api/rafthttp/util.go:120","msg":"request sent was ignored due to cluster ID mismatch","remote-peer-id":"8e9e05c52164694d","remote-peer-cluster-id":"8e9e05c52164694d","local-member-cluster-id":"8e9e05c52164694d"}',
  },
  {
    entry: 'request sent was ignored due to cluster ID mismatch',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tERROR\tapi/rafthttp/util.go:120\trequest sent was ignored due to cluster ID mismatch\t{"remote-peer-id": "8e9e05c52164694d", "remote-peer-cluster-id": "8e9e05c52164694d", "local-member-cluster-id": "8e9e05c52164694d"}',
  },
  {
    entry: 'request sent was ignored due to cluster ID mismatch',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 E | rafthttp: request sent was ignored (cluster ID mismatch: peer[8e9e05c52164694d]=8e9e05c52164694d, local=8e9e05c52164694d)',
  },
  {
    entry: 'request sent was ignored by remote peer due to cluster ID mismatch',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"rafthttp/stream.go:120","msg":"request sent was ignored by remote peer due to cluster ID mismatch","remote-peer-id":"8e9e05c52164694d","remote-peer-cluster-id":"8e9e05c52164694d","local-member-cluster-id":"8e9e05c52164694d"}',
  },
  {
    entry: 'request sent was ignored by remote peer due to cluster ID mismatch',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\trafthttp/stream.go:120\trequest sent was ignored by remote peer due to cluster ID mismatch\t{"remote-peer-id": "8e9e05c52164694d", "remote-peer-cluster-id": "8e9e05c52164694d", "local-member-cluster-id": "8e9e05c52164694d"}',
  },
  {
    entry: 'request sent was ignored by peer',
    shape: 'zap',
    line: '{"level":"error","ts":"2024-05-14T08:30:00.123Z","caller":"api/rafthttp/util.go:120","msg":"request sent was ignored by peer","remote-peer-id":"8e9e05c52164694d"}',
  },
  {
    entry: 'request sent was ignored by peer',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tERROR\tapi/rafthttp/util.go:120\trequest sent was ignored by peer\t{"remote-peer-id": "8e9e05c52164694d"}',
  },
  {
    entry: 'request sent was ignored by peer',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 E | rafthttp: request sent was ignored by peer 8e9e05c52164694d (server version incompatible)',
  },
  {
    entry: 'request sent was ignored by remote peer due to server version incompatibility',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"rafthttp/stream.go:120","msg":"request sent was ignored by remote peer due to server version incompatibility","remote-peer-id":"8e9e05c52164694d"}',
  },
  {
    entry: 'request sent was ignored by remote peer due to server version incompatibility',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\trafthttp/stream.go:120\trequest sent was ignored by remote peer due to server version incompatibility\t{"remote-peer-id": "8e9e05c52164694d"}',
  },
  {
    entry: 'rejected stream from remote peer because it was removed',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"rafthttp/http.go:120","msg":"rejected stream from remote peer because it was removed","local-member-id":"8e9e05c52164694d","remote-peer-id-stream-handler":"8e9e05c52164694d","remote-peer-id-from":"8e9e05c52164694d"}',
  },
  {
    entry: 'rejected stream from remote peer because it was removed',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\trafthttp/http.go:120\trejected stream from remote peer because it was removed\t{"local-member-id": "8e9e05c52164694d", "remote-peer-id-stream-handler": "8e9e05c52164694d", "remote-peer-id-from": "8e9e05c52164694d"}',
  },
  {
    entry: 'rejected stream from remote peer because it was removed',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 W | rafthttp: rejected the stream from peer 8e9e05c52164694d since it was removed',
  },
  {
    entry: 'failed to find remote peer in cluster',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"rafthttp/http.go:120","msg":"failed to find remote peer in cluster","local-member-id":"8e9e05c52164694d","remote-peer-id-stream-handler":"8e9e05c52164694d","remote-peer-id-from":"8e9e05c52164694d","cluster-id":"8e9e05c52164694d"}',
  },
  {
    entry: 'failed to find remote peer in cluster',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\trafthttp/http.go:120\tfailed to find remote peer in cluster\t{"local-member-id": "8e9e05c52164694d", "remote-peer-id-stream-handler": "8e9e05c52164694d", "remote-peer-id-from": "8e9e05c52164694d", "cluster-id": "8e9e05c52164694d"}',
  },
  {
    entry: 'failed to find remote peer in cluster',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 E | rafthttp: failed to find member 8e9e05c52164694d in cluster 8e9e05c52164694d',
  },
  {
    entry: 'ignored streaming request; ID mismatch',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"rafthttp/http.go:120","msg":"ignored streaming request; ID mismatch","local-member-id":"8e9e05c52164694d","remote-peer-id-header":"8e9e05c52164694d","remote-peer-id-from":"8e9e05c52164694d"}',
  },
  {
    entry: 'ignored streaming request; ID mismatch',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\trafthttp/http.go:120\tignored streaming request; ID mismatch\t{"local-member-id": "8e9e05c52164694d", "remote-peer-id-header": "8e9e05c52164694d", "remote-peer-id-from": "8e9e05c52164694d"}',
  },
  {
    entry: 'ignored streaming request; ID mismatch',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 E | rafthttp: streaming request ignored (ID mismatch got 8e9e05c52164694d want 8e9e05c52164694d)',
  },
  {
    entry: 'failed to check version compatibility',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"rafthttp/http.go:120","msg":"failed to check version compatibility","local-member-id":"8e9e05c52164694d","remote-peer-id":"8e9e05c52164694d","error":"x"}',
  },
  {
    entry: 'failed to check version compatibility',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\trafthttp/http.go:120\tfailed to check version compatibility\t{"local-member-id": "8e9e05c52164694d", "remote-peer-id": "8e9e05c52164694d", "error": "x"}',
  },
  {
    entry: 'failed to check version compatibility',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 E | rafthttp: request version incompatibility (etcdserver: request timed out)',
  },
  {
    entry: 'failed version compatibility check',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"api/rafthttp/http.go:120","msg":"failed version compatibility check","local-member-id":"8e9e05c52164694d","remote-peer-id":"8e9e05c52164694d","error":"x"}',
  },
  {
    entry: 'failed version compatibility check',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tapi/rafthttp/http.go:120\tfailed version compatibility check\t{"local-member-id": "8e9e05c52164694d", "remote-peer-id": "8e9e05c52164694d", "error": "x"}',
  },
  {
    entry: 'failed to save incoming database snapshot',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"rafthttp/http.go:120","msg":"failed to save incoming database snapshot","snapshot-index":"x","error":"x"}',
  },
  {
    entry: 'failed to save incoming database snapshot',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\trafthttp/http.go:120\tfailed to save incoming database snapshot\t{"snapshot-index": "x", "error": "x"}',
  },
  {
    entry: 'failed to read Raft message',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"rafthttp/http.go:120","msg":"failed to read Raft message","local-member-id":"8e9e05c52164694d","error":"x"}',
  },
  {
    entry: 'failed to read Raft message',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\trafthttp/http.go:120\tfailed to read Raft message\t{"local-member-id": "8e9e05c52164694d", "error": "x"}',
  },
  {
    entry: 'failed to read Raft message',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 E | rafthttp: failed to read raft message (etcdserver: request timed out)',
  },
  {
    entry: 'failed to process Raft message',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"rafthttp/http.go:120","msg":"failed to process Raft message","local-member-id":"8e9e05c52164694d","error":"x"}',
  },
  {
    entry: 'failed to process Raft message',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\trafthttp/http.go:120\tfailed to process Raft message\t{"local-member-id": "8e9e05c52164694d", "error": "x"}',
  },
  {
    entry: 'failed to process Raft message',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 W | rafthttp: failed to process raft message (etcdserver: request timed out)',
  },
  {
    entry: 'rate limit on stream reader with remote peer',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"rafthttp/stream.go:120","msg":"rate limit on stream reader with remote peer","remote-peer-id":"8e9e05c52164694d","error":"x"}',
  },
  {
    entry: 'rate limit on stream reader with remote peer',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\trafthttp/stream.go:120\trate limit on stream reader with remote peer\t{"remote-peer-id": "8e9e05c52164694d", "error": "x"}',
  },
  {
    entry: 'rate limit on stream reader with remote peer',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 E | rafthttp: streaming with peer 8e9e05c52164694d (8e9e05c52164694d reader) rate limiter error: etcdserver: request timed out',
  },
  {
    entry: 'failed to close connection with remote peer',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"rafthttp/stream.go:120","msg":"failed to close connection with remote peer","remote-peer-id":"8e9e05c52164694d","error":"x"}',
  },
  {
    entry: 'failed to close connection with remote peer',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\trafthttp/stream.go:120\tfailed to close connection with remote peer\t{"remote-peer-id": "8e9e05c52164694d", "error": "x"}',
  },
  {
    entry: 'failed to close connection with remote peer',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 E | rafthttp: peer 8e9e05c52164694d (writer) connection close error: etcdserver: request timed out',
  },
  {
    entry: 'failed to close remote peer connection',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"rafthttp/stream.go:120","msg":"failed to close remote peer connection","remote-peer-id":"8e9e05c52164694d","error":"x"}',
  },
  {
    entry: 'failed to close remote peer connection',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\trafthttp/stream.go:120\tfailed to close remote peer connection\t{"remote-peer-id": "8e9e05c52164694d", "error": "x"}',
  },
  {
    entry: 'failed to add peer into prober',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"rafthttp/probing_status.go:120","msg":"failed to add peer into prober","peer-id":"8e9e05c52164694d","error":"x"}',
  },
  {
    entry: 'failed to add peer into prober',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\trafthttp/probing_status.go:120\tfailed to add peer into prober\t{"peer-id": "8e9e05c52164694d", "error": "x"}',
  },
  {
    entry: 'failed to add peer into prober',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 E | rafthttp: failed to add peer 8e9e05c52164694d into prober',
  },
  {
    entry: 'failed to encode message',
    shape: 'zap',
    line: '{"level":"panic","ts":"2024-05-14T08:30:00.123Z","caller":"rafthttp/snapshot_sender.go:120","msg":"failed to encode message","error":"x"}',
  },
  {
    entry: 'failed to encode message',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tPANIC\trafthttp/snapshot_sender.go:120\tfailed to encode message\t{"error": "x"}',
  },
  {
    entry: 'failed to encode message',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 C | rafthttp: encode message error (etcdserver: request timed out)',
  },
  {
    entry: 'unexpected new request error',
    shape: 'zap',
    line: '{"level":"panic","ts":"2024-05-14T08:30:00.123Z","caller":"api/rafthttp/util.go:120","msg":"unexpected new request error","error":"x"}',
  },
  {
    entry: 'unexpected new request error',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tPANIC\tapi/rafthttp/util.go:120\tunexpected new request error\t{"error": "x"}',
  },
  {
    entry: 'unexpected new request error',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 C | rafthttp: unexpected new request error (etcdserver: request timed out)',
  },
  {
    entry: 'rejected connection',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"config_logging.go:120","msg":"rejected connection","remote-addr":"x","server-name":"x","ip-addresses":"x","dns-names":"x","error":"x"}',
  },
  {
    entry: 'rejected connection',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tconfig_logging.go:120\trejected connection\t{"remote-addr": "x", "server-name": "x", "ip-addresses": "x", "dns-names": "x", "error": "x"}',
  },
  {
    entry: 'rejected connection',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 I | embed: rejected connection from "10.0.0.2:2380" (error "10.0.0.2:2380", ServerName "10.0.0.2:2380")',
  },
  {
    entry: 'failed to get peer self-signed certs',
    shape: 'zap',
    line: '{"level":"fatal","ts":"2024-05-14T08:30:00.123Z","caller":"etcd.go:120","msg":"failed to get peer self-signed certs","error":"x"}',
  },
  {
    entry: 'failed to get peer self-signed certs',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tFATAL\tetcd.go:120\tfailed to get peer self-signed certs\t{"error": "x"}',
  },
  {
    entry: 'failed to get peer self-signed certs',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 C | embed: could not get certs (etcdserver: request timed out)',
  },
  {
    entry: 'creating peer listener failed',
    shape: 'zap',
    line: '{"level":"error","ts":"2024-05-14T08:30:00.123Z","caller":"etcd.go:120","msg":"creating peer listener failed","error":"x"}',
  },
  {
    entry: 'creating peer listener failed',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tERROR\tetcd.go:120\tcreating peer listener failed\t{"error": "x"}',
  },
  {
    entry: 'creating peer listener failed',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 E | embed: creating peer listener failed: etcdserver: request timed out',
  },
  {
    entry: 'failed to resolve during SRV discovery',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"config.go:120","msg":"failed to resolve during SRV discovery","error":"x"}',
  },
  {
    entry: 'failed to resolve during SRV discovery',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tconfig.go:120\tfailed to resolve during SRV discovery\t{"error": "x"}',
  },
  {
    entry: 'grpc gateway failed to dial',
    shape: 'zap',
    line: '{"level":"error","ts":"2024-05-14T08:30:00.123Z","caller":"etcd.go:120","msg":"grpc gateway failed to dial","error":"x"}',
  },
  {
    entry: 'grpc gateway failed to dial',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tERROR\tetcd.go:120\tgrpc gateway failed to dial\t{"error": "x"}',
  },
  {
    entry: 'failed to verify flags',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"etcd.go:120","msg":"failed to verify flags","error":"x"}',
  },
  {
    entry: 'failed to verify flags',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tetcd.go:120\tfailed to verify flags\t{"error": "x"}',
  },
  {
    entry: 'failed to verify flags',
    shape: 'capnslog',
    line: "2018-03-02 08:30:00.123456 E | etcdmain: error verifying flags, etcdserver: request timed out. See 'etcd --help'.",
  },
  {
    entry: 'discovery failed',
    shape: 'zap',
    line: '{"level":"fatal","ts":"2024-05-14T08:30:00.123Z","caller":"etcd.go:120","msg":"discovery failed","error":"x"}',
  },
  {
    entry: 'discovery failed',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tFATAL\tetcd.go:120\tdiscovery failed\t{"error": "x"}',
  },
  {
    entry: 'failed to start',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"etcd.go:120","msg":"failed to start","error":"x"}',
  },
  {
    entry: 'failed to start',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tetcd.go:120\tfailed to start\t{"error": "x"}',
  },
  {
    entry: 'listener failed',
    shape: 'zap',
    line: '{"level":"fatal","ts":"2024-05-14T08:30:00.123Z","caller":"etcd.go:120","msg":"listener failed","error":"x"}',
  },
  {
    entry: 'listener failed',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tFATAL\tetcd.go:120\tlistener failed\t{"error": "x"}',
  },
  {
    entry: 'failed to list data directory',
    shape: 'zap',
    line: '{"level":"fatal","ts":"2024-05-14T08:30:00.123Z","caller":"etcd.go:120","msg":"failed to list data directory","dir":"x","error":"x"}',
  },
  {
    entry: 'failed to list data directory',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tFATAL\tetcd.go:120\tfailed to list data directory\t{"dir": "x", "error": "x"}',
  },
  {
    entry: 'failed to list data directory',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 C | etcdmain: error listing data dir: 8e9e05c52164694d',
  },
  {
    entry: 'invalid datadir; both member and proxy directories exist',
    shape: 'zap',
    line: '{"level":"fatal","ts":"2024-05-14T08:30:00.123Z","caller":"etcd.go:120","msg":"invalid datadir; both member and proxy directories exist","member-dir":"x","proxy-dir":"x"}',
  },
  {
    entry: 'invalid datadir; both member and proxy directories exist',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tFATAL\tetcd.go:120\tinvalid datadir; both member and proxy directories exist\t{"member-dir": "x", "proxy-dir": "x"}',
  },
  {
    entry: 'invalid datadir; both member and proxy directories exist',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 C | etcdmain: invalid datadir. Both member and proxy directories exist.',
  },
  {
    entry: 'found invalid file under data directory',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"etcd.go:120","msg":"found invalid file under data directory","filename":"x","data-dir":"x"}',
  },
  {
    entry: 'found invalid file under data directory',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tetcd.go:120\tfound invalid file under data directory\t{"filename": "x", "data-dir": "x"}',
  },
  {
    entry: 'found invalid file under data directory',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 W | etcdmain: found invalid file/dir 8e9e05c52164694d under data dir 8e9e05c52164694d (Ignore this if you are upgrading etcd)',
  },
  {
    entry: 'failed to notify systemd for readiness',
    shape: 'zap',
    line: '{"level":"error","ts":"2024-05-14T08:30:00.123Z","caller":"main.go:120","msg":"failed to notify systemd for readiness","error":"x"}',
  },
  {
    entry: 'failed to notify systemd for readiness',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tERROR\tmain.go:120\tfailed to notify systemd for readiness\t{"error": "x"}',
  },
  {
    entry: 'failed to notify systemd for readiness',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 E | etcdmain: failed to notify systemd for readiness: etcdserver: request timed out',
  },
  {
    entry: 'forgot to set Type=notify in systemd service file?',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 E | etcdmain: forgot to set Type=notify in systemd service file?',
  },
  {
    entry: 'failed to bootstrap; discovery token was already used',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"etcd.go:120","msg":"failed to bootstrap; discovery token was already used","discovery-token":"x","error":"x"}',
  },
  {
    entry: 'failed to bootstrap; discovery token was already used',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tetcd.go:120\tfailed to bootstrap; discovery token was already used\t{"discovery-token": "x", "error": "x"}',
  },
  {
    entry: 'failed to bootstrap; discovery token was already used',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 I | etcdmain: discovery token 8e9e05c52164694d was used, but failed to bootstrap the cluster.',
  },
  {
    entry: 'member has been registered with discovery service',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"etcd.go:120","msg":"member has been registered with discovery service"}',
  },
  {
    entry: 'member has been registered with discovery service',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tetcd.go:120\tmember has been registered with discovery service\t{}',
  },
  {
    entry: 'check data dir if previous bootstrap succeeded',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"etcd.go:120","msg":"check data dir if previous bootstrap succeeded"}',
  },
  {
    entry: 'check data dir if previous bootstrap succeeded',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tetcd.go:120\tcheck data dir if previous bootstrap succeeded\t{}',
  },
  {
    entry: 'forgot to set --initial-cluster?',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"etcd.go:120","msg":"forgot to set --initial-cluster?"}',
  },
  {
    entry: 'forgot to set --initial-cluster?',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tetcd.go:120\tforgot to set --initial-cluster?\t{}',
  },
  {
    entry: 'running etcd on unsupported architecture since ETCD_UNSUPPORTED_ARCH is set',
    shape: 'zap',
    line: '{"level":"info","ts":"2024-05-14T08:30:00.123Z","caller":"etcd.go:120","msg":"running etcd on unsupported architecture since ETCD_UNSUPPORTED_ARCH is set","arch":"x"}',
  },
  {
    entry: 'running etcd on unsupported architecture since ETCD_UNSUPPORTED_ARCH is set',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tINFO\tetcd.go:120\trunning etcd on unsupported architecture since ETCD_UNSUPPORTED_ARCH is set\t{"arch": "x"}',
  },
  {
    entry: 'running etcd on unsupported architecture since ETCD_UNSUPPORTED_ARCH is set',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 W | etcdmain: running etcd on unsupported architecture "10.0.0.2:2380" since ETCD_UNSUPPORTED_ARCH is set',
  },
  {
    entry: 'Refusing to run etcd on unsupported architecture since ETCD_UNSUPPORTED_ARCH is not set',
    shape: 'zap',
    line: '{"level":"error","ts":"2024-05-14T08:30:00.123Z","caller":"etcd.go:120","msg":"Refusing to run etcd on unsupported architecture since ETCD_UNSUPPORTED_ARCH is not set","arch":"x"}',
  },
  {
    entry: 'Refusing to run etcd on unsupported architecture since ETCD_UNSUPPORTED_ARCH is not set',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tERROR\tetcd.go:120\tRefusing to run etcd on unsupported architecture since ETCD_UNSUPPORTED_ARCH is not set\t{"arch": "x"}',
  },
  {
    entry: 'Refusing to run etcd on unsupported architecture since ETCD_UNSUPPORTED_ARCH is not set',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 E | etcdmain: etcd on unsupported platform without ETCD_UNSUPPORTED_ARCH=8e9e05c52164694d set.',
  },
  {
    entry: 'serving /health false; no leader',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"api/etcdhttp/health.go:120","msg":"serving /health false; no leader"}',
  },
  {
    entry: 'serving /health false; no leader',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tapi/etcdhttp/health.go:120\tserving /health false; no leader\t{}',
  },
  {
    entry: 'serving /health false; no leader',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 W | etcdhttp: /health error; no leader (status code 42)',
  },
  {
    entry: 'serving /health false due to an alarm',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"api/etcdhttp/health.go:120","msg":"serving /health false due to an alarm","alarm":"x"}',
  },
  {
    entry: 'serving /health false due to an alarm',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tapi/etcdhttp/health.go:120\tserving /health false due to an alarm\t{"alarm": "x"}',
  },
  {
    entry: 'serving /health false due to an alarm',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 W | etcdhttp: /health error due to an alarm 8e9e05c52164694d',
  },
  {
    entry: 'serving /health false; QGET fails',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"api/etcdhttp/health.go:120","msg":"serving /health false; QGET fails","error":"x"}',
  },
  {
    entry: 'serving /health false; QGET fails',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tapi/etcdhttp/health.go:120\tserving /health false; QGET fails\t{"error": "x"}',
  },
  {
    entry: 'serving /health false; QGET fails',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 W | etcdhttp: /health error; QGET failed etcdserver: request timed out (status code 42)',
  },
  {
    entry: 'serving /health false; Range fails',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"api/etcdhttp/health.go:120","msg":"serving /health false; Range fails","error":"x"}',
  },
  {
    entry: 'serving /health false; Range fails',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tapi/etcdhttp/health.go:120\tserving /health false; Range fails\t{"error": "x"}',
  },
  {
    entry: 'serving /health false; Range fails',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 W | etcdhttp: serving /health false; Range failed etcdserver: request timed out (status code 42)',
  },
  {
    entry: '/health error',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"api/etcdhttp/health.go:120","msg":"/health error","status-code":"x"}',
  },
  {
    entry: '/health error',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tapi/etcdhttp/health.go:120\t/health error\t{"status-code": "x"}',
  },
  {
    entry: '/health error',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 W | etcdhttp: /health error (status code 42)',
  },
  {
    entry: 'Health check error',
    shape: 'zap',
    line: '{"level":"error","ts":"2024-05-14T08:30:00.123Z","caller":"api/etcdhttp/health.go:120","msg":"Health check error","path":"x","reason":"x","status-code":"x"}',
  },
  {
    entry: 'Health check error',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tERROR\tapi/etcdhttp/health.go:120\tHealth check error\t{"path": "x", "reason": "x", "status-code": "x"}',
  },
  {
    entry: 'Health check error',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 E | etcdhttp: Health check error path=8e9e05c52164694d, reason=8e9e05c52164694d (status code 42)',
  },
  {
    entry: 'Health request error',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"api/etcdhttp/health.go:120","msg":"Health request error","path":"x","status-code":"x"}',
  },
  {
    entry: 'Health request error',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tapi/etcdhttp/health.go:120\tHealth request error\t{"path": "x", "status-code": "x"}',
  },
  {
    entry: 'Health request error',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 W | etcdhttp: Health request error path=8e9e05c52164694d (status code 42)',
  },
  {
    entry: 'rejecting member add; started member will be less than quorum',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"membership/cluster.go:120","msg":"rejecting member add; started member will be less than quorum","number-of-started-member":"x","quorum":"x","cluster-id":"8e9e05c52164694d","local-member-id":"8e9e05c52164694d"}',
  },
  {
    entry: 'rejecting member add; started member will be less than quorum',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tmembership/cluster.go:120\trejecting member add; started member will be less than quorum\t{"number-of-started-member": "x", "quorum": "x", "cluster-id": "8e9e05c52164694d", "local-member-id": "8e9e05c52164694d"}',
  },
  {
    entry: 'rejecting member add; started member will be less than quorum',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 W | etcdserver: Reject add member request: the number of started member (42) will be less than the quorum number of the cluster (42)',
  },
  {
    entry: 'rejecting member remove; started member will be less than quorum',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"membership/cluster.go:120","msg":"rejecting member remove; started member will be less than quorum","number-of-started-member":"x","quorum":"x","cluster-id":"8e9e05c52164694d","local-member-id":"8e9e05c52164694d"}',
  },
  {
    entry: 'rejecting member remove; started member will be less than quorum',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tmembership/cluster.go:120\trejecting member remove; started member will be less than quorum\t{"number-of-started-member": "x", "quorum": "x", "cluster-id": "8e9e05c52164694d", "local-member-id": "8e9e05c52164694d"}',
  },
  {
    entry: 'rejecting member remove; started member will be less than quorum',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 W | etcdserver: Reject remove member request: the number of started member (42) will be less than the quorum number of the cluster (42)',
  },
  {
    entry: 'rejecting member promote; started member will be less than quorum',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"membership/cluster.go:120","msg":"rejecting member promote; started member will be less than quorum","number-of-started-member":"x","quorum":"x"}',
  },
  {
    entry: 'rejecting member promote; started member will be less than quorum',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tmembership/cluster.go:120\trejecting member promote; started member will be less than quorum\t{"number-of-started-member": "x", "quorum": "x"}',
  },
  {
    entry: 'rejecting member promote; started member will be less than quorum',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 W | membership: Reject promote member request: the number of started member (42) will be less than the quorum number of the cluster (42)',
  },
  {
    entry: 'skipped removing already removed member',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"membership/cluster.go:120","msg":"skipped removing already removed member","cluster-id":"8e9e05c52164694d","local-member-id":"8e9e05c52164694d","removed-member-id":"8e9e05c52164694d"}',
  },
  {
    entry: 'skipped removing already removed member',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tmembership/cluster.go:120\tskipped removing already removed member\t{"cluster-id": "8e9e05c52164694d", "local-member-id": "8e9e05c52164694d", "removed-member-id": "8e9e05c52164694d"}',
  },
  {
    entry: 'skipped attributes update of removed member',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"membership/cluster.go:120","msg":"skipped attributes update of removed member","cluster-id":"8e9e05c52164694d","local-member-id":"8e9e05c52164694d","updated-peer-id":"8e9e05c52164694d"}',
  },
  {
    entry: 'skipped attributes update of removed member',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tmembership/cluster.go:120\tskipped attributes update of removed member\t{"cluster-id": "8e9e05c52164694d", "local-member-id": "8e9e05c52164694d", "updated-peer-id": "8e9e05c52164694d"}',
  },
  {
    entry: 'skipped attributes update of removed member',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 W | etcdserver: skipped updating attributes of removed member 8e9e05c52164694d',
  },
  {
    entry: 'two member with same name found',
    shape: 'zap',
    line: '{"level":"panic","ts":"2024-05-14T08:30:00.123Z","caller":"membership/cluster.go:120","msg":"two member with same name found","name":"x"}',
  },
  {
    entry: 'two member with same name found',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tPANIC\tmembership/cluster.go:120\ttwo member with same name found\t{"name": "x"}',
  },
  {
    entry: 'two member with same name found',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 C | etcdserver: two members with the given name "10.0.0.2:2380" exist',
  },
  {
    entry: 'failed to update; member unknown',
    shape: 'zap',
    line: '{"level":"panic","ts":"2024-05-14T08:30:00.123Z","caller":"membership/cluster.go:120","msg":"failed to update; member unknown","cluster-id":"8e9e05c52164694d","local-member-id":"8e9e05c52164694d","unknown-remote-peer-id":"8e9e05c52164694d"}',
  },
  {
    entry: 'failed to update; member unknown',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tPANIC\tmembership/cluster.go:120\tfailed to update; member unknown\t{"cluster-id": "8e9e05c52164694d", "local-member-id": "8e9e05c52164694d", "unknown-remote-peer-id": "8e9e05c52164694d"}',
  },
  {
    entry: 'failed to update; member unknown',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 C | etcdserver: error updating attributes of unknown member 8e9e05c52164694d',
  },
  {
    entry: 'failed to find local ID in cluster members',
    shape: 'zap',
    line: '{"level":"panic","ts":"2024-05-14T08:30:00.123Z","caller":"membership/cluster.go:120","msg":"failed to find local ID in cluster members","local-member-id":"8e9e05c52164694d"}',
  },
  {
    entry: 'failed to find local ID in cluster members',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tPANIC\tmembership/cluster.go:120\tfailed to find local ID in cluster members\t{"local-member-id": "8e9e05c52164694d"}',
  },
  {
    entry: 'failed to find local ID in cluster members',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 C | membership: failed to find local ID 8e9e05c52164694d in cluster 8e9e05c52164694d',
  },
  {
    entry: 'added member',
    shape: 'zap',
    line: '{"level":"info","ts":"2024-05-14T08:30:00.123Z","caller":"membership/cluster.go:120","msg":"added member","cluster-id":"8e9e05c52164694d","local-member-id":"8e9e05c52164694d","added-peer-id":"8e9e05c52164694d","added-peer-peer-urls":"x"}',
  },
  {
    entry: 'added member',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tINFO\tmembership/cluster.go:120\tadded member\t{"cluster-id": "8e9e05c52164694d", "local-member-id": "8e9e05c52164694d", "added-peer-id": "8e9e05c52164694d", "added-peer-peer-urls": "x"}',
  },
  {
    entry: 'added member',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 N | etcdserver: added member 8e9e05c52164694d etcdserver: request timed out to cluster 8e9e05c52164694d',
  },
  {
    entry: 'removed member',
    shape: 'zap',
    line: '{"level":"info","ts":"2024-05-14T08:30:00.123Z","caller":"membership/cluster.go:120","msg":"removed member","cluster-id":"8e9e05c52164694d","local-member-id":"8e9e05c52164694d","removed-remote-peer-id":"8e9e05c52164694d"}',
  },
  {
    entry: 'removed member',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tINFO\tmembership/cluster.go:120\tremoved member\t{"cluster-id": "8e9e05c52164694d", "local-member-id": "8e9e05c52164694d", "removed-remote-peer-id": "8e9e05c52164694d"}',
  },
  {
    entry: 'removed member',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 N | etcdserver: removed member 8e9e05c52164694d from cluster 8e9e05c52164694d',
  },
  {
    entry: 'failed to find [SNAPSHOT-INDEX].snap.db',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"snap/db.go:120","msg":"failed to find [SNAPSHOT-INDEX].snap.db","snapshot-index":"x","snapshot-file-path":"x","error":"x"}',
  },
  {
    entry: 'failed to find [SNAPSHOT-INDEX].snap.db',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tsnap/db.go:120\tfailed to find [SNAPSHOT-INDEX].snap.db\t{"snapshot-index": "x", "snapshot-file-path": "x", "error": "x"}',
  },
  {
    entry: 'snap file is corrupt',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"snap/snapshotter.go:120","msg":"snap file is corrupt","path":"x","error":"x"}',
  },
  {
    entry: 'snap file is corrupt',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tsnap/snapshotter.go:120\tsnap file is corrupt\t{"path": "x", "error": "x"}',
  },
  {
    entry: 'snap file is corrupt',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 E | snap: corrupted snapshot file etcdserver: request timed out: etcdserver: request timed out',
  },
  {
    entry: 'failed to read empty snapshot file',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"snap/snapshotter.go:120","msg":"failed to read empty snapshot file","path":"x"}',
  },
  {
    entry: 'failed to read empty snapshot file',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tsnap/snapshotter.go:120\tfailed to read empty snapshot file\t{"path": "x"}',
  },
  {
    entry: 'failed to read empty snapshot file',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 E | snap: unexpected empty snapshot',
  },
  {
    entry: 'failed to unmarshal snappb.Snapshot',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"snap/snapshotter.go:120","msg":"failed to unmarshal snappb.Snapshot","path":"x","error":"x"}',
  },
  {
    entry: 'failed to unmarshal snappb.Snapshot',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tsnap/snapshotter.go:120\tfailed to unmarshal snappb.Snapshot\t{"path": "x", "error": "x"}',
  },
  {
    entry: 'failed to unmarshal raftpb.Snapshot',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"snap/snapshotter.go:120","msg":"failed to unmarshal raftpb.Snapshot","path":"x","error":"x"}',
  },
  {
    entry: 'failed to unmarshal raftpb.Snapshot',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tsnap/snapshotter.go:120\tfailed to unmarshal raftpb.Snapshot\t{"path": "x", "error": "x"}',
  },
  {
    entry: 'renamed to a broken snap file',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"snap/snapshotter.go:120","msg":"renamed to a broken snap file","path":"x","renamed-path":"x"}',
  },
  {
    entry: 'renamed to a broken snap file',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tsnap/snapshotter.go:120\trenamed to a broken snap file\t{"path": "x", "renamed-path": "x"}',
  },
  {
    entry: 'failed to write a snap file',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"snap/snapshotter.go:120","msg":"failed to write a snap file","path":"x","error":"x"}',
  },
  {
    entry: 'failed to write a snap file',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tsnap/snapshotter.go:120\tfailed to write a snap file\t{"path": "x", "error": "x"}',
  },
  {
    entry: 'failed to read a snap file',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"snap/snapshotter.go:120","msg":"failed to read a snap file","path":"x","error":"x"}',
  },
  {
    entry: 'failed to read a snap file',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tsnap/snapshotter.go:120\tfailed to read a snap file\t{"path": "x", "error": "x"}',
  },
  {
    entry: 'failed to read a snap file',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 E | snap: cannot read file etcdserver: request timed out: etcdserver: request timed out',
  },
  {
    entry: 'found unexpected non-snap file; skipping',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"snap/snapshotter.go:120","msg":"found unexpected non-snap file; skipping","path":"x"}',
  },
  {
    entry: 'found unexpected non-snap file; skipping',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tsnap/snapshotter.go:120\tfound unexpected non-snap file; skipping\t{"path": "x"}',
  },
  {
    entry: 'found unexpected non-snap file; skipping',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 W | snap: skipped unexpected non snapshot file etcdserver: request timed out',
  },
  {
    entry: 'found orphaned .snap.db file; deleting',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"snap/snapshotter.go:120","msg":"found orphaned .snap.db file; deleting","path":"x"}',
  },
  {
    entry: 'found orphaned .snap.db file; deleting',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tsnap/snapshotter.go:120\tfound orphaned .snap.db file; deleting\t{"path": "x"}',
  },
  {
    entry: 'found orphaned .snap.db file; deleting',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 I | snap: found orphaned .snap.db file; deleting "10.0.0.2:2380"',
  },
  {
    entry: 'slow fdatasync',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"wal.go:120","msg":"slow fdatasync","took":"1.2s","expected-duration":"x"}',
  },
  {
    entry: 'slow fdatasync',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\twal.go:120\tslow fdatasync\t{"took": "1.2s", "expected-duration": "x"}',
  },
  {
    entry: 'slow fdatasync',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 W | wal: sync duration of etcdserver: request timed out, expected less than etcdserver: request timed out',
  },
  {
    entry: 'failed to preallocate space when creating a new WAL',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"file_pipeline.go:120","msg":"failed to preallocate space when creating a new WAL","size":"x","error":"x"}',
  },
  {
    entry: 'failed to preallocate space when creating a new WAL',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tfile_pipeline.go:120\tfailed to preallocate space when creating a new WAL\t{"size": "x", "error": "x"}',
  },
  {
    entry: 'failed to preallocate space when creating a new WAL',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 E | wal: failed to allocate space when creating new wal file (etcdserver: request timed out)',
  },
  {
    entry: 'failed to repair',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"repair.go:120","msg":"failed to repair","path":"x","error":"x"}',
  },
  {
    entry: 'failed to repair',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\trepair.go:120\tfailed to repair\t{"path": "x", "error": "x"}',
  },
  {
    entry: 'failed to repair',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 E | wal: could not repair error (etcdserver: request timed out)',
  },
  {
    entry: 'failed to create backup file',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"repair.go:120","msg":"failed to create backup file","path":"x","error":"x"}',
  },
  {
    entry: 'failed to create backup file',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\trepair.go:120\tfailed to create backup file\t{"path": "x", "error": "x"}',
  },
  {
    entry: 'failed to create backup file',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 E | wal: could not repair etcdserver: request timed out, failed to create backup file',
  },
  {
    entry: 'failed to truncate',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"repair.go:120","msg":"failed to truncate","path":"x","error":"x"}',
  },
  {
    entry: 'failed to truncate',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\trepair.go:120\tfailed to truncate\t{"path": "x", "error": "x"}',
  },
  {
    entry: 'failed to truncate',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 E | wal: could not repair etcdserver: request timed out, failed to truncate file',
  },
  {
    entry: 'failed to fsync',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"repair.go:120","msg":"failed to fsync","path":"x","error":"x"}',
  },
  {
    entry: 'failed to fsync',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\trepair.go:120\tfailed to fsync\t{"path": "x", "error": "x"}',
  },
  {
    entry: 'failed to fsync',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 E | wal: could not repair etcdserver: request timed out, failed to sync file',
  },
  {
    entry: 'ignored file in WAL directory',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"util.go:120","msg":"ignored file in WAL directory","path":"x"}',
  },
  {
    entry: 'ignored file in WAL directory',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tutil.go:120\tignored file in WAL directory\t{"path": "x"}',
  },
  {
    entry: 'ignored file in WAL directory',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 W | wal: ignored file etcdserver: request timed out in wal',
  },
  {
    entry: 'failed to flock an initial WAL file',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"wal.go:120","msg":"failed to flock an initial WAL file","path":"x","error":"x"}',
  },
  {
    entry: 'failed to flock an initial WAL file',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\twal.go:120\tfailed to flock an initial WAL file\t{"path": "x", "error": "x"}',
  },
  {
    entry: 'failed to close WAL',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"wal.go:120","msg":"failed to close WAL","error":"x"}',
  },
  {
    entry: 'failed to close WAL',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\twal.go:120\tfailed to close WAL\t{"error": "x"}',
  },
  {
    entry: 'failed to close WAL',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 E | wal: failed to unlock during closing wal: 8e9e05c52164694d',
  },
  {
    entry: 'failed to parse WAL name',
    shape: 'zap',
    line: '{"level":"fatal","ts":"2024-05-14T08:30:00.123Z","caller":"wal.go:120","msg":"failed to parse WAL name","name":"x","error":"x"}',
  },
  {
    entry: 'failed to parse WAL name',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tFATAL\twal.go:120\tfailed to parse WAL name\t{"name": "x", "error": "x"}',
  },
  {
    entry: 'failed to parse WAL name',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 C | wal: bad wal name 8e9e05c52164694d (etcdserver: request timed out)',
  },
  {
    entry: 'failed to open database',
    shape: 'zap',
    line: '{"level":"panic","ts":"2024-05-14T08:30:00.123Z","caller":"backend/backend.go:120","msg":"failed to open database","path":"x","error":"x"}',
  },
  {
    entry: 'failed to open database',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tPANIC\tbackend/backend.go:120\tfailed to open database\t{"path": "x", "error": "x"}',
  },
  {
    entry: 'failed to open database',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 C | backend: cannot open database at 8e9e05c52164694d (etcdserver: request timed out)',
  },
  {
    entry: 'failed to begin tx',
    shape: 'zap',
    line: '{"level":"fatal","ts":"2024-05-14T08:30:00.123Z","caller":"backend/backend.go:120","msg":"failed to begin tx","error":"x"}',
  },
  {
    entry: 'failed to begin tx',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tFATAL\tbackend/backend.go:120\tfailed to begin tx\t{"error": "x"}',
  },
  {
    entry: 'failed to begin tx',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 C | backend: cannot begin tx (8e9e05c52164694d)',
  },
  {
    entry: 'failed to commit tx',
    shape: 'zap',
    line: '{"level":"fatal","ts":"2024-05-14T08:30:00.123Z","caller":"backend/batch_tx.go:120","msg":"failed to commit tx","error":"x"}',
  },
  {
    entry: 'failed to commit tx',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tFATAL\tbackend/batch_tx.go:120\tfailed to commit tx\t{"error": "x"}',
  },
  {
    entry: 'failed to commit tx',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 C | backend: cannot commit tx (8e9e05c52164694d)',
  },
  {
    entry: 'failed to write to a bucket',
    shape: 'zap',
    line: '{"level":"fatal","ts":"2024-05-14T08:30:00.123Z","caller":"backend/batch_tx.go:120","msg":"failed to write to a bucket","bucket-name":"x","error":"x"}',
  },
  {
    entry: 'failed to write to a bucket',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tFATAL\tbackend/batch_tx.go:120\tfailed to write to a bucket\t{"bucket-name": "x", "error": "x"}',
  },
  {
    entry: 'failed to write to a bucket',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 C | backend: cannot put key into bucket (etcdserver: request timed out)',
  },
  {
    entry: 'failed to find a bucket',
    shape: 'zap',
    line: '{"level":"fatal","ts":"2024-05-14T08:30:00.123Z","caller":"backend/batch_tx.go:120","msg":"failed to find a bucket","bucket-name":"x"}',
  },
  {
    entry: 'failed to find a bucket',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tFATAL\tbackend/batch_tx.go:120\tfailed to find a bucket\t{"bucket-name": "x"}',
  },
  {
    entry: 'failed to create a bucket',
    shape: 'zap',
    line: '{"level":"fatal","ts":"2024-05-14T08:30:00.123Z","caller":"backend/batch_tx.go:120","msg":"failed to create a bucket","bucket-name":"x","error":"x"}',
  },
  {
    entry: 'failed to create a bucket',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tFATAL\tbackend/batch_tx.go:120\tfailed to create a bucket\t{"bucket-name": "x", "error": "x"}',
  },
  {
    entry: 'failed to create a bucket',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 C | backend: cannot create bucket 8e9e05c52164694d (etcdserver: request timed out)',
  },
  {
    entry: 'failed to delete a key',
    shape: 'zap',
    line: '{"level":"fatal","ts":"2024-05-14T08:30:00.123Z","caller":"backend/batch_tx.go:120","msg":"failed to delete a key","bucket-name":"x","error":"x"}',
  },
  {
    entry: 'failed to delete a key',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tFATAL\tbackend/batch_tx.go:120\tfailed to delete a key\t{"bucket-name": "x", "error": "x"}',
  },
  {
    entry: 'failed to delete a key',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 C | backend: cannot delete key from bucket (etcdserver: request timed out)',
  },
  {
    entry: 'failed to rename tmp database',
    shape: 'zap',
    line: '{"level":"fatal","ts":"2024-05-14T08:30:00.123Z","caller":"backend/backend.go:120","msg":"failed to rename tmp database","error":"x"}',
  },
  {
    entry: 'failed to rename tmp database',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tFATAL\tbackend/backend.go:120\tfailed to rename tmp database\t{"error": "x"}',
  },
  {
    entry: 'failed to rename tmp database',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 C | backend: cannot rename database (8e9e05c52164694d)',
  },
  {
    entry: 'failed to close database',
    shape: 'zap',
    line: '{"level":"fatal","ts":"2024-05-14T08:30:00.123Z","caller":"backend/backend.go:120","msg":"failed to close database","error":"x"}',
  },
  {
    entry: 'failed to close database',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tFATAL\tbackend/backend.go:120\tfailed to close database\t{"error": "x"}',
  },
  {
    entry: 'failed to close database',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 C | backend: cannot close database (8e9e05c52164694d)',
  },
  {
    entry: 'snapshotting taking too long to transfer',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"backend/backend.go:120","msg":"snapshotting taking too long to transfer","taking":"1.2s","bytes":"x","size":"x"}',
  },
  {
    entry: 'snapshotting taking too long to transfer',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tbackend/backend.go:120\tsnapshotting taking too long to transfer\t{"taking": "1.2s", "bytes": "x", "size": "x"}',
  },
  {
    entry: 'snapshotting taking too long to transfer',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 W | backend: snapshotting is taking more than etcdserver: request timed out seconds to finish transferring etcdserver: request timed out MB [started at etcdserver: request timed out]',
  },
  {
    entry: 'failed to remove temporary file',
    shape: 'zap',
    line: '{"level":"error","ts":"2024-05-14T08:30:00.123Z","caller":"backend/backend.go:120","msg":"failed to remove temporary file","path":"x","error":"x"}',
  },
  {
    entry: 'failed to remove temporary file',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tERROR\tbackend/backend.go:120\tfailed to remove temporary file\t{"path": "x", "error": "x"}',
  },
  {
    entry: 'failed to remove db.tmp after defragmentation completed',
    shape: 'zap',
    line: '{"level":"error","ts":"2024-05-14T08:30:00.123Z","caller":"backend/backend.go:120","msg":"failed to remove db.tmp after defragmentation completed","error":"x"}',
  },
  {
    entry: 'failed to remove db.tmp after defragmentation completed',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tERROR\tbackend/backend.go:120\tfailed to remove db.tmp after defragmentation completed\t{"error": "x"}',
  },
  {
    entry: 'failed to remove db.tmp after defragmentation completed',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 C | backend: failed to remove db.tmp after defragmentation completed: etcdserver: request timed out',
  },
  {
    entry: 'unexpected panic during defrag',
    shape: 'zap',
    line: '{"level":"fatal","ts":"2024-05-14T08:30:00.123Z","caller":"backend/backend.go:120","msg":"unexpected panic during defrag","error":"x"}',
  },
  {
    entry: 'unexpected panic during defrag',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tFATAL\tbackend/backend.go:120\tunexpected panic during defrag\t{"error": "x"}',
  },
  {
    entry: 'failed to defragment',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"v3rpc/maintenance.go:120","msg":"failed to defragment","error":"x"}',
  },
  {
    entry: 'failed to defragment',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tv3rpc/maintenance.go:120\tfailed to defragment\t{"error": "x"}',
  },
  {
    entry: 'failed to defragment',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 E | v3rpc: failed to defragment the storage backend (etcdserver: request timed out)',
  },
  {
    entry: 'range failed to find revision pair',
    shape: 'zap',
    line: '{"level":"fatal","ts":"2024-05-14T08:30:00.123Z","caller":"kvstore_txn.go:120","msg":"range failed to find revision pair","revision-main":"x","revision-sub":"x"}',
  },
  {
    entry: 'range failed to find revision pair',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tFATAL\tkvstore_txn.go:120\trange failed to find revision pair\t{"revision-main": "x", "revision-sub": "x"}',
  },
  {
    entry: 'range failed to find revision pair',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 C | mvcc: range cannot find rev (42,42)',
  },
  {
    entry: 'failed to unmarshal mvccpb.KeyValue',
    shape: 'zap',
    line: '{"level":"fatal","ts":"2024-05-14T08:30:00.123Z","caller":"kvstore.go:120","msg":"failed to unmarshal mvccpb.KeyValue","error":"x"}',
  },
  {
    entry: 'failed to unmarshal mvccpb.KeyValue',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tFATAL\tkvstore.go:120\tfailed to unmarshal mvccpb.KeyValue\t{"error": "x"}',
  },
  {
    entry: 'failed to unmarshal mvccpb.KeyValue',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 C | mvcc: cannot unmarshal event: etcdserver: request timed out',
  },
  {
    entry: 'failed to tombstone an existing key',
    shape: 'zap',
    line: '{"level":"fatal","ts":"2024-05-14T08:30:00.123Z","caller":"kvstore_txn.go:120","msg":"failed to tombstone an existing key","key":"x","error":"x"}',
  },
  {
    entry: 'failed to tombstone an existing key',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tFATAL\tkvstore_txn.go:120\tfailed to tombstone an existing key\t{"key": "x", "error": "x"}',
  },
  {
    entry: 'failed to tombstone an existing key',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 C | mvcc: cannot tombstone an existing key (8e9e05c52164694d): etcdserver: request timed out',
  },
  {
    entry: "'put' with an unexpected smaller revision",
    shape: 'zap',
    line: '{"level":"panic","ts":"2024-05-14T08:30:00.123Z","caller":"key_index.go:120","msg":"\'put\' with an unexpected smaller revision","given-revision-main":"x","key":"x"}',
  },
  {
    entry: "'put' with an unexpected smaller revision",
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tPANIC\tkey_index.go:120\t\'put\' with an unexpected smaller revision\t{"given-revision-main": "x", "key": "x"}',
  },
  {
    entry: "'put' with an unexpected smaller revision",
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 C | mvcc: store.keyindex: put with unexpected smaller revision [etcdserver: request timed out / etcdserver: request timed out]',
  },
  {
    entry: "'get' got an unexpected empty keyIndex",
    shape: 'zap',
    line: '{"level":"panic","ts":"2024-05-14T08:30:00.123Z","caller":"key_index.go:120","msg":"\'get\' got an unexpected empty keyIndex","key":"x"}',
  },
  {
    entry: "'get' got an unexpected empty keyIndex",
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tPANIC\tkey_index.go:120\t\'get\' got an unexpected empty keyIndex\t{"key": "x"}',
  },
  {
    entry: "'get' got an unexpected empty keyIndex",
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 C | mvcc: store.keyindex: unexpected get on empty keyIndex 8e9e05c52164694d',
  },
  {
    entry: "'tombstone' got an unexpected empty keyIndex",
    shape: 'zap',
    line: '{"level":"panic","ts":"2024-05-14T08:30:00.123Z","caller":"key_index.go:120","msg":"\'tombstone\' got an unexpected empty keyIndex","key":"x"}',
  },
  {
    entry: "'tombstone' got an unexpected empty keyIndex",
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tPANIC\tkey_index.go:120\t\'tombstone\' got an unexpected empty keyIndex\t{"key": "x"}',
  },
  {
    entry: "'tombstone' got an unexpected empty keyIndex",
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 C | mvcc: store.keyindex: unexpected tombstone on empty keyIndex 8e9e05c52164694d',
  },
  {
    entry: "'compact' got an unexpected empty keyIndex",
    shape: 'zap',
    line: '{"level":"panic","ts":"2024-05-14T08:30:00.123Z","caller":"key_index.go:120","msg":"\'compact\' got an unexpected empty keyIndex","key":"x"}',
  },
  {
    entry: "'compact' got an unexpected empty keyIndex",
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tPANIC\tkey_index.go:120\t\'compact\' got an unexpected empty keyIndex\t{"key": "x"}',
  },
  {
    entry: "'compact' got an unexpected empty keyIndex",
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 C | mvcc: store.keyindex: unexpected compact on empty keyIndex 8e9e05c52164694d',
  },
  {
    entry: 'failed to delete during compaction',
    shape: 'zap',
    line: '{"level":"panic","ts":"2024-05-14T08:30:00.123Z","caller":"index.go:120","msg":"failed to delete during compaction","error":"x"}',
  },
  {
    entry: 'failed to delete during compaction',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tPANIC\tindex.go:120\tfailed to delete during compaction\t{"error": "x"}',
  },
  {
    entry: 'failed to delete during compaction',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 C | mvcc: store.index: unexpected delete failure during compaction',
  },
  {
    entry: 'failed to attach a lease',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"kvstore.go:120","msg":"failed to attach a lease","lease-id":"8e9e05c52164694d","error":"x"}',
  },
  {
    entry: 'failed to attach a lease',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tkvstore.go:120\tfailed to attach a lease\t{"lease-id": "8e9e05c52164694d", "error": "x"}',
  },
  {
    entry: 'failed to attach a lease',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 E | mvcc: unexpected Attach error: etcdserver: request timed out',
  },
  {
    entry: 'failed to detach old lease from a key',
    shape: 'zap',
    line: '{"level":"fatal","ts":"2024-05-14T08:30:00.123Z","caller":"kvstore_txn.go:120","msg":"failed to detach old lease from a key","error":"x"}',
  },
  {
    entry: 'failed to detach old lease from a key',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tFATAL\tkvstore_txn.go:120\tfailed to detach old lease from a key\t{"error": "x"}',
  },
  {
    entry: 'failed to detach old lease from a key',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 E | mvcc: unexpected error from lease detach: etcdserver: request timed out',
  },
  {
    entry: 'compaction encountered error',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"kvstore.go:120","msg":"compaction encountered error","error":"x"}',
  },
  {
    entry: 'compaction encountered error',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tkvstore.go:120\tcompaction encountered error\t{"error": "x"}',
  },
  {
    entry: 'Failed compaction',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"kvstore.go:120","msg":"Failed compaction","error":"x"}',
  },
  {
    entry: 'Failed compaction',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tkvstore.go:120\tFailed compaction\t{"error": "x"}',
  },
  {
    entry: 'finished scheduled compaction',
    shape: 'zap',
    line: '{"level":"info","ts":"2024-05-14T08:30:00.123Z","caller":"kvstore_compaction.go:120","msg":"finished scheduled compaction","compact-revision":"x","took":"1.2s"}',
  },
  {
    entry: 'finished scheduled compaction',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tINFO\tkvstore_compaction.go:120\tfinished scheduled compaction\t{"compact-revision": "x", "took": "1.2s"}',
  },
  {
    entry: 'finished scheduled compaction',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 I | mvcc: finished scheduled compaction at 42 (took etcdserver: request timed out)',
  },
  {
    entry: 'failed auto periodic compaction',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"v3compactor/periodic.go:120","msg":"failed auto periodic compaction","revision":"x","error":"x"}',
  },
  {
    entry: 'failed auto periodic compaction',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tv3compactor/periodic.go:120\tfailed auto periodic compaction\t{"revision": "x", "error": "x"}',
  },
  {
    entry: 'failed auto periodic compaction',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 N | compactor: Failed auto-compaction at revision 42 (etcdserver: request timed out)',
  },
  {
    entry: 'failed auto revision compaction',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"v3compactor/revision.go:120","msg":"failed auto revision compaction","revision":"x","error":"x"}',
  },
  {
    entry: 'failed auto revision compaction',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tv3compactor/revision.go:120\tfailed auto revision compaction\t{"revision": "x", "error": "x"}',
  },
  {
    entry: 'failed to receive watch request from gRPC stream',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"v3rpc/watch.go:120","msg":"failed to receive watch request from gRPC stream","error":"x"}',
  },
  {
    entry: 'failed to receive watch request from gRPC stream',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tv3rpc/watch.go:120\tfailed to receive watch request from gRPC stream\t{"error": "x"}',
  },
  {
    entry: 'failed to receive watch request from gRPC stream',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 W | v3rpc: failed to receive watch request from gRPC stream ("10.0.0.2:2380")',
  },
  {
    entry: 'failed to send watch response to gRPC stream',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"v3rpc/watch.go:120","msg":"failed to send watch response to gRPC stream","error":"x"}',
  },
  {
    entry: 'failed to send watch response to gRPC stream',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tv3rpc/watch.go:120\tfailed to send watch response to gRPC stream\t{"error": "x"}',
  },
  {
    entry: 'failed to send watch response to gRPC stream',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 W | v3rpc: failed to send watch response to gRPC stream ("10.0.0.2:2380")',
  },
  {
    entry: 'failed to send watch control response to gRPC stream',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"v3rpc/watch.go:120","msg":"failed to send watch control response to gRPC stream","error":"x"}',
  },
  {
    entry: 'failed to send watch control response to gRPC stream',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tv3rpc/watch.go:120\tfailed to send watch control response to gRPC stream\t{"error": "x"}',
  },
  {
    entry: 'failed to send watch control response to gRPC stream',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 W | v3rpc: failed to send watch control response to gRPC stream ("10.0.0.2:2380")',
  },
  {
    entry: 'failed to receive lease keepalive request from gRPC stream',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"v3rpc/lease.go:120","msg":"failed to receive lease keepalive request from gRPC stream","error":"x"}',
  },
  {
    entry: 'failed to receive lease keepalive request from gRPC stream',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tv3rpc/lease.go:120\tfailed to receive lease keepalive request from gRPC stream\t{"error": "x"}',
  },
  {
    entry: 'failed to receive lease keepalive request from gRPC stream',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 W | v3rpc: failed to receive lease keepalive request from gRPC stream ("10.0.0.2:2380")',
  },
  {
    entry: 'failed to send lease keepalive response to gRPC stream',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"v3rpc/lease.go:120","msg":"failed to send lease keepalive response to gRPC stream","error":"x"}',
  },
  {
    entry: 'failed to send lease keepalive response to gRPC stream',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tv3rpc/lease.go:120\tfailed to send lease keepalive response to gRPC stream\t{"error": "x"}',
  },
  {
    entry: 'failed to send lease keepalive response to gRPC stream',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 W | v3rpc: failed to send lease keepalive response to gRPC stream ("10.0.0.2:2380")',
  },
  {
    entry: 'unexpected error code',
    shape: 'zap',
    line: '{"level":"error","ts":"2024-05-14T08:30:00.123Z","caller":"v3rpc/watch.go:120","msg":"unexpected error code","error":"x"}',
  },
  {
    entry: 'unexpected error code',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tERROR\tv3rpc/watch.go:120\tunexpected error code\t{"error": "x"}',
  },
  {
    entry: 'request stats',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"api/v3rpc/interceptor.go:120","msg":"request stats","start time":"x","time spent":"x","remote":"x","response type":"x","request count":"x","request size":"x","response count":"x","response size":"x","request content":"x"}',
  },
  {
    entry: 'request stats',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tapi/v3rpc/interceptor.go:120\trequest stats\t{"start time": "x", "time spent": "x", "remote": "x", "response type": "x", "request count": "x", "request size": "x", "response count": "x", "response size": "x", "request content": "x"}',
  },
  {
    entry: 'failed to close snapshot',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"v3rpc/maintenance.go:120","msg":"failed to close snapshot","error":"x"}',
  },
  {
    entry: 'failed to close snapshot',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tv3rpc/maintenance.go:120\tfailed to close snapshot\t{"error": "x"}',
  },
  {
    entry: 'failed to close snapshot',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 E | v3rpc: error closing snapshot (etcdserver: request timed out)',
  },
  {
    entry: 'failed to send database snapshot to writer',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"etcdsnapshot_merge.go:120","msg":"failed to send database snapshot to writer","error":"x"}',
  },
  {
    entry: 'failed to send database snapshot to writer',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tetcdsnapshot_merge.go:120\tfailed to send database snapshot to writer\t{"error": "x"}',
  },
  {
    entry: 'failed to send database snapshot to writer',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 W | etcdserver: failed to write database snapshot out [written bytes: 42]: etcdserver: request timed out',
  },
  {
    entry: 'invalid auth token',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"store.go:120","msg":"invalid auth token","token":"x"}',
  },
  {
    entry: 'invalid auth token',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tstore.go:120\tinvalid auth token\t{"token": "x"}',
  },
  {
    entry: 'failed to parse a JWT token',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"jwt.go:120","msg":"failed to parse a JWT token","token":"x","error":"x"}',
  },
  {
    entry: 'failed to parse a JWT token',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tjwt.go:120\tfailed to parse a JWT token\t{"token": "x", "error": "x"}',
  },
  {
    entry: 'simple token is not cryptographically signed',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"store.go:120","msg":"simple token is not cryptographically signed"}',
  },
  {
    entry: 'simple token is not cryptographically signed',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tstore.go:120\tsimple token is not cryptographically signed\t{}',
  },
  {
    entry: 'request auth revision is less than current node auth revision',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"store.go:120","msg":"request auth revision is less than current node auth revision","current node auth revision":"x","request auth revision":"x"}',
  },
  {
    entry: 'request auth revision is less than current node auth revision',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tstore.go:120\trequest auth revision is less than current node auth revision\t{"current node auth revision": "x", "request auth revision": "x"}',
  },
  {
    entry: 'cannot find a user for permission check',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"store.go:120","msg":"cannot find a user for permission check","user-name":"x"}',
  },
  {
    entry: 'cannot find a user for permission check',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tstore.go:120\tcannot find a user for permission check\t{"user-name": "x"}',
  },
  {
    entry: 'invalid authentication was requested',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","caller":"etcdv3_server.go:120","msg":"invalid authentication was requested","user":"x","error":"x"}',
  },
  {
    entry: 'invalid authentication was requested',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tWARN\tetcdv3_server.go:120\tinvalid authentication was requested\t{"user": "x", "error": "x"}',
  },
  {
    entry: 'became candidate at term',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 I | raft: 8e9e05c52164694d became candidate at term 42',
  },
  {
    entry: 'became candidate at term',
    shape: 'raft-std',
    line: 'raft2020/05/14 08:30:10 INFO: 8e9e05c52164694d became candidate at term 42',
  },
  {
    entry: 'became candidate at term',
    shape: 'zap',
    line: '{"level":"info","ts":"2024-05-14T08:30:00.123Z","logger":"raft","caller":"etcdserver/zap_raft.go:77","msg":"8e9e05c52164694d became candidate at term 42"}',
  },
  {
    entry: 'became pre-candidate at term',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 I | raft: 8e9e05c52164694d became pre-candidate at term 42',
  },
  {
    entry: 'became pre-candidate at term',
    shape: 'raft-std',
    line: 'raft2020/05/14 08:30:10 INFO: 8e9e05c52164694d became pre-candidate at term 42',
  },
  {
    entry: 'became pre-candidate at term',
    shape: 'zap',
    line: '{"level":"info","ts":"2024-05-14T08:30:00.123Z","logger":"raft","caller":"etcdserver/zap_raft.go:77","msg":"8e9e05c52164694d became pre-candidate at term 42"}',
  },
  {
    entry: 'is starting a new election at term',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 I | raft: 8e9e05c52164694d is starting a new election at term 42',
  },
  {
    entry: 'is starting a new election at term',
    shape: 'raft-std',
    line: 'raft2020/05/14 08:30:10 INFO: 8e9e05c52164694d is starting a new election at term 42',
  },
  {
    entry: 'is starting a new election at term',
    shape: 'zap',
    line: '{"level":"info","ts":"2024-05-14T08:30:00.123Z","logger":"raft","caller":"etcdserver/zap_raft.go:77","msg":"8e9e05c52164694d is starting a new election at term 42"}',
  },
  {
    entry: 'became leader at term',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 I | raft: 8e9e05c52164694d became leader at term 42',
  },
  {
    entry: 'became leader at term',
    shape: 'raft-std',
    line: 'raft2020/05/14 08:30:10 INFO: 8e9e05c52164694d became leader at term 42',
  },
  {
    entry: 'became leader at term',
    shape: 'zap',
    line: '{"level":"info","ts":"2024-05-14T08:30:00.123Z","logger":"raft","caller":"etcdserver/zap_raft.go:77","msg":"8e9e05c52164694d became leader at term 42"}',
  },
  {
    entry: 'became follower at term',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 I | raft: 8e9e05c52164694d became follower at term 42',
  },
  {
    entry: 'became follower at term',
    shape: 'raft-std',
    line: 'raft2020/05/14 08:30:10 INFO: 8e9e05c52164694d became follower at term 42',
  },
  {
    entry: 'became follower at term',
    shape: 'zap',
    line: '{"level":"info","ts":"2024-05-14T08:30:00.123Z","logger":"raft","caller":"etcdserver/zap_raft.go:77","msg":"8e9e05c52164694d became follower at term 42"}',
  },
  {
    entry: 'elected leader',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 I | raft: raft.node: 8e9e05c52164694d elected leader 8e9e05c52164694d at term 42',
  },
  {
    entry: 'elected leader',
    shape: 'raft-std',
    line: 'raft2020/05/14 08:30:10 INFO: raft.node: 8e9e05c52164694d elected leader 8e9e05c52164694d at term 42',
  },
  {
    entry: 'elected leader',
    shape: 'zap',
    line: '{"level":"info","ts":"2024-05-14T08:30:00.123Z","logger":"raft","caller":"etcdserver/zap_raft.go:77","msg":"raft.node: 8e9e05c52164694d elected leader 8e9e05c52164694d at term 42"}',
  },
  {
    entry: 'lost leader',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 I | raft: raft.node: 8e9e05c52164694d lost leader 8e9e05c52164694d at term 42',
  },
  {
    entry: 'lost leader',
    shape: 'raft-std',
    line: 'raft2020/05/14 08:30:10 INFO: raft.node: 8e9e05c52164694d lost leader 8e9e05c52164694d at term 42',
  },
  {
    entry: 'lost leader',
    shape: 'zap',
    line: '{"level":"info","ts":"2024-05-14T08:30:00.123Z","logger":"raft","caller":"etcdserver/zap_raft.go:77","msg":"raft.node: 8e9e05c52164694d lost leader 8e9e05c52164694d at term 42"}',
  },
  {
    entry: 'is out of range [lastIndex(',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 C | raft: tocommit(42) is out of range [lastIndex(42)]. Was the raft log corrupted, truncated, or lost?',
  },
  {
    entry: 'is out of range [lastIndex(',
    shape: 'raft-std',
    line: 'raft2020/05/14 08:30:10 PANIC: tocommit(42) is out of range [lastIndex(42)]. Was the raft log corrupted, truncated, or lost?',
  },
  {
    entry: 'is out of range [lastIndex(',
    shape: 'zap',
    line: '{"level":"panic","ts":"2024-05-14T08:30:00.123Z","logger":"raft","caller":"etcdserver/zap_raft.go:77","msg":"tocommit(42) is out of range [lastIndex(42)]. Was the raft log corrupted, truncated, or lost?"}',
  },
  {
    entry: ' message with lower term from ',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 I | raft: 8e9e05c52164694d [term: 42] ignored a 8e9e05c52164694d message with lower term from 8e9e05c52164694d [term: 42]',
  },
  {
    entry: ' message with lower term from ',
    shape: 'raft-std',
    line: 'raft2020/05/14 08:30:10 INFO: 8e9e05c52164694d [term: 42] ignored a 8e9e05c52164694d message with lower term from 8e9e05c52164694d [term: 42]',
  },
  {
    entry: ' message with lower term from ',
    shape: 'zap',
    line: '{"level":"info","ts":"2024-05-14T08:30:00.123Z","logger":"raft","caller":"etcdserver/zap_raft.go:77","msg":"8e9e05c52164694d [term: 42] ignored a 8e9e05c52164694d message with lower term from 8e9e05c52164694d [term: 42]"}',
  },
  {
    entry: 'A tick missed to fire. Node blocks too long!',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 W | raft: 8e9e05c52164694d A tick missed to fire. Node blocks too long!',
  },
  {
    entry: 'A tick missed to fire. Node blocks too long!',
    shape: 'raft-std',
    line: 'raft2020/05/14 08:30:10 WARN: 8e9e05c52164694d A tick missed to fire. Node blocks too long!',
  },
  {
    entry: 'A tick missed to fire. Node blocks too long!',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","logger":"raft","caller":"etcdserver/zap_raft.go:77","msg":"8e9e05c52164694d A tick missed to fire. Node blocks too long!"}',
  },
  {
    entry: 'stepped down to follower since quorum is not active',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 W | raft: 8e9e05c52164694d stepped down to follower since quorum is not active',
  },
  {
    entry: 'stepped down to follower since quorum is not active',
    shape: 'raft-std',
    line: 'raft2020/05/14 08:30:10 WARN: 8e9e05c52164694d stepped down to follower since quorum is not active',
  },
  {
    entry: 'stepped down to follower since quorum is not active',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","logger":"raft","caller":"etcdserver/zap_raft.go:77","msg":"8e9e05c52164694d stepped down to follower since quorum is not active"}',
  },
  {
    entry: ' state.commit ',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 C | raft: 8e9e05c52164694d state.commit 42 is out of range [42, 42]',
  },
  {
    entry: ' state.commit ',
    shape: 'raft-std',
    line: 'raft2020/05/14 08:30:10 PANIC: 8e9e05c52164694d state.commit 42 is out of range [42, 42]',
  },
  {
    entry: ' state.commit ',
    shape: 'zap',
    line: '{"level":"panic","ts":"2024-05-14T08:30:00.123Z","logger":"raft","caller":"etcdserver/zap_raft.go:77","msg":"8e9e05c52164694d state.commit 42 is out of range [42, 42]"}',
  },
  {
    entry: 'pending configuration changes to apply',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 W | raft: 8e9e05c52164694d cannot campaign at term 42 since there are still 42 pending configuration changes to apply',
  },
  {
    entry: 'pending configuration changes to apply',
    shape: 'raft-std',
    line: 'raft2020/05/14 08:30:10 WARN: 8e9e05c52164694d cannot campaign at term 42 since there are still 42 pending configuration changes to apply',
  },
  {
    entry: 'pending configuration changes to apply',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","logger":"raft","caller":"etcdserver/zap_raft.go:77","msg":"8e9e05c52164694d cannot campaign at term 42 since there are still 42 pending configuration changes to apply"}',
  },
  {
    entry: 'is unpromotable and can not campaign',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 W | raft: 8e9e05c52164694d is unpromotable and can not campaign',
  },
  {
    entry: 'is unpromotable and can not campaign',
    shape: 'raft-std',
    line: 'raft2020/05/14 08:30:10 WARN: 8e9e05c52164694d is unpromotable and can not campaign',
  },
  {
    entry: 'is unpromotable and can not campaign',
    shape: 'zap',
    line: '{"level":"warn","ts":"2024-05-14T08:30:00.123Z","logger":"raft","caller":"etcdserver/zap_raft.go:77","msg":"8e9e05c52164694d is unpromotable and can not campaign"}',
  },
  {
    entry: 'sending database snapshot',
    shape: 'zap',
    line: '{"level":"info","ts":"2024-05-14T08:30:00.123Z","caller":"rafthttp/snapshot_sender.go:120","msg":"sending database snapshot","snapshot-index":"x","remote-peer-id":"8e9e05c52164694d","size":"x"}',
  },
  {
    entry: 'sending database snapshot',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tINFO\trafthttp/snapshot_sender.go:120\tsending database snapshot\t{"snapshot-index": "x", "remote-peer-id": "8e9e05c52164694d", "size": "x"}',
  },
  {
    entry: 'sending database snapshot',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 I | rafthttp: start to send database snapshot [index: 42, to 8e9e05c52164694d]...',
  },
  {
    entry: 'sent database snapshot',
    shape: 'zap',
    line: '{"level":"info","ts":"2024-05-14T08:30:00.123Z","caller":"rafthttp/snapshot_sender.go:120","msg":"sent database snapshot","snapshot-index":"x","remote-peer-id":"8e9e05c52164694d","size":"x","took":"1.2s"}',
  },
  {
    entry: 'sent database snapshot',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tINFO\trafthttp/snapshot_sender.go:120\tsent database snapshot\t{"snapshot-index": "x", "remote-peer-id": "8e9e05c52164694d", "size": "x", "took": "1.2s"}',
  },
  {
    entry: 'sent database snapshot',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 I | rafthttp: database snapshot [index: 42, to: 8e9e05c52164694d] sent out successfully',
  },
  {
    entry: 'receiving database snapshot',
    shape: 'zap',
    line: '{"level":"info","ts":"2024-05-14T08:30:00.123Z","caller":"rafthttp/http.go:120","msg":"receiving database snapshot","snapshot-index":"x","remote-snapshot-sender-id":"8e9e05c52164694d","incoming-snapshot-message-size":"x"}',
  },
  {
    entry: 'receiving database snapshot',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tINFO\trafthttp/http.go:120\treceiving database snapshot\t{"snapshot-index": "x", "remote-snapshot-sender-id": "8e9e05c52164694d", "incoming-snapshot-message-size": "x"}',
  },
  {
    entry: 'receiving database snapshot',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 I | rafthttp: receiving database snapshot [index:42, from 8e9e05c52164694d] ...',
  },
  {
    entry: 'received and saved database snapshot',
    shape: 'zap',
    line: '{"level":"info","ts":"2024-05-14T08:30:00.123Z","caller":"rafthttp/http.go:120","msg":"received and saved database snapshot","snapshot-index":"x","remote-snapshot-sender-id":"8e9e05c52164694d","db-size":"x","took":"1.2s"}',
  },
  {
    entry: 'received and saved database snapshot',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tINFO\trafthttp/http.go:120\treceived and saved database snapshot\t{"snapshot-index": "x", "remote-snapshot-sender-id": "8e9e05c52164694d", "db-size": "x", "took": "1.2s"}',
  },
  {
    entry: 'received and saved database snapshot',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 I | rafthttp: received and saved database snapshot [index: 42, from: 8e9e05c52164694d] successfully',
  },
  {
    entry: 'saved snapshot',
    shape: 'zap',
    line: '{"level":"info","ts":"2024-05-14T08:30:00.123Z","caller":"etcdserver.go:120","msg":"saved snapshot","snapshot-index":"x"}',
  },
  {
    entry: 'saved snapshot',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tINFO\tetcdserver.go:120\tsaved snapshot\t{"snapshot-index": "x"}',
  },
  {
    entry: 'saved snapshot',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 I | etcdserver: saved snapshot at index 42',
  },
  {
    entry: 'compacted Raft logs',
    shape: 'zap',
    line: '{"level":"info","ts":"2024-05-14T08:30:00.123Z","caller":"etcdserver.go:120","msg":"compacted Raft logs","compact-index":"x"}',
  },
  {
    entry: 'compacted Raft logs',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tINFO\tetcdserver.go:120\tcompacted Raft logs\t{"compact-index": "x"}',
  },
  {
    entry: 'compacted Raft logs',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 I | etcdserver: compacted raft log at 42',
  },
  {
    entry: 'starting defragment',
    shape: 'zap',
    line: '{"level":"info","ts":"2024-05-14T08:30:00.123Z","caller":"v3rpc/maintenance.go:120","msg":"starting defragment"}',
  },
  {
    entry: 'starting defragment',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tINFO\tv3rpc/maintenance.go:120\tstarting defragment\t{}',
  },
  {
    entry: 'starting defragment',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 N | v3rpc: starting to defragment the storage backend...',
  },
  {
    entry: 'finished defragmenting directory',
    shape: 'zap',
    line: '{"level":"info","ts":"2024-05-14T08:30:00.123Z","caller":"backend/backend.go:120","msg":"finished defragmenting directory","current-db-size-bytes":"x","current-db-size-in-use-bytes":"x","took":"1.2s"}',
  },
  {
    entry: 'finished defragmenting directory',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tINFO\tbackend/backend.go:120\tfinished defragmenting directory\t{"current-db-size-bytes": "x", "current-db-size-in-use-bytes": "x", "took": "1.2s"}',
  },
  {
    entry: 'finished defragmenting directory',
    shape: 'capnslog',
    line: '2018-03-02 08:30:00.123456 N | v3rpc: finished defragmenting the storage backend',
  },
  {
    entry: 'defragmented',
    shape: 'zap',
    line: '{"level":"info","ts":"2024-05-14T08:30:00.123Z","caller":"backend/backend.go:120","msg":"defragmented","current-db-size-bytes":"x","current-db-size":"x","took":"1.2s"}',
  },
  {
    entry: 'defragmented',
    shape: 'zap-console',
    line: '2024-05-14T08:30:00.123Z\tINFO\tbackend/backend.go:120\tdefragmented\t{"current-db-size-bytes": "x", "current-db-size": "x", "took": "1.2s"}',
  },
];
