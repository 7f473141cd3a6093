import { describe, expect, it } from '@jest/globals';
import { compareVersions, matchKnownCrash } from '../../../src/etcd/known-crashes.js';
import { scanLogText } from '../../../src/etcd/scan-logs.js';

/**
 * The fault signals (src/etcd/scan-faults.ts) on lines of the shape each etcd version writes:
 * real lines from public reports where they exist (the issue is named beside them; addresses moved
 * to 127.0.0.0/8), and otherwise the message and fields of etcd's source at the tag named.
 */
const scan = (...lines: string[]) => scanLogText(lines.join('\n'));

describe('too many open files', () => {
  it.each([
    // etcd 2.x, Go's standard log (etcd-io/etcd#2928)
    [
      '2.x Go log',
      '2015/06/06 21:52:41 etcdserver: failed to purge wal file open /etcd-data/member/wal: too many open files',
    ],
    // etcd 0.4 under journald (deis/deis#1240)
    [
      '0.4 journald',
      'Jul 02 12:22:32 ip-10-0-3-246 etcd[668]: 2014/07/02 12:22:32 http: Accept error: accept tcp [::]:7001: too many open files; retrying in 1s',
    ],
    // 3.5 zap (server/etcdserver/server.go:910 `failed to purge wal file`)
    [
      '3.5 zap',
      '{"level":"fatal","ts":"2023-06-05T09:36:40.000Z","caller":"etcdserver/server.go:910","msg":"failed to purge wal file","error":"open /var/lib/etcd/member/wal: too many open files"}',
    ],
  ])('%s', (_format, line) => {
    const s = scan(line);
    expect(s.fdExhausted.count).toBe(1);
    // Counted as the fault, not as an unexplained error.
    expect(s.unexplainedErrors).toEqual([]);
  });

  it("reads etcd's 80 % warning in each logger, with its counts", () => {
    // 2.x under journald (contiv/ansible#166), 3.4 capnslog (the jianshu report), 3.5 zap (metrics.go:235)
    const old = scan(
      'Apr 18 09:56:28 ucsb-blade2 etcd.sh[135370]: 2016/04/18 09:56:28 etcdserver: 80% of the file descriptor limit is used [used = 982, limit = 1024]',
    );
    const capnslog = scan(
      '2021-03-08 10:10:00.000000 W | etcdserver: 80% of the file descriptor limit is used [used = 88863, limit = 102400]',
    );
    const zap = scan(
      '{"level":"warn","ts":"2023-06-05T09:30:00.000Z","caller":"etcdserver/metrics.go:235","msg":"80% of file descriptors are used","used":88863,"limit":102400}',
    );
    expect(old.fdNearLimit).toMatchObject({ count: 1, used: 982, limit: 1024 });
    expect(capnslog.fdNearLimit).toMatchObject({ count: 1, used: 88863, limit: 102400 });
    expect(zap.fdNearLimit).toMatchObject({ count: 1, used: 88863, limit: 102400 });
  });
});

describe('no space left on device, and where', () => {
  it.each([
    [
      '3.2 capnslog (etcd-io/etcd#8330)',
      '2017-07-28 16:46:57.148924 C | etcdserver: create wal error: no space left on device',
      'wal',
    ],
    [
      '2.x Go log (etcd-io/etcd-mesos#30)',
      '2015/08/17 17:24:41 etcdserver: raft save state and entries error: write etcd_data/member/wal/000000000000001f-00000000007582d2.wal: no space left on device',
      'wal',
    ],
    [
      '3.x journald (Azure/acs-engine#382)',
      '> etcd[54776]: failed to allocate space when creating new wal file (no space left on device)',
      'wal',
    ],
    [
      '3.5 zap, an incoming snapshot (rafthttp/http.go:270)',
      '{"level":"warn","ts":"2023-09-14T09:13:40.000Z","caller":"rafthttp/http.go:270","msg":"failed to save incoming database snapshot","local-member-id":"b366cbcd316c915f","remote-snapshot-sender-id":"8e9e05c52164694d","incoming-snapshot-index":1210000,"error":"write /var/lib/etcd/member/snap/tmp3941882: no space left on device"}',
      'snap',
    ],
    [
      '3.4 zap, the backend (backend/batch_tx.go `failed to commit tx`)',
      '{"level":"fatal","ts":"2022-01-04T03:02:01.000Z","caller":"backend/batch_tx.go:274","msg":"failed to commit tx","error":"write /var/lib/etcd/member/snap/db: no space left on device"}',
      'db',
    ],
  ])('%s', (_what, line, where) => {
    const s = scan(line);
    expect(s.diskFull).toMatchObject({ count: 1, where: [where] });
    expect(s.databaseSpaceExceeded.count).toBe(0);
  });

  it('the quota is not the disk: `mvcc: database space exceeded` and the NOSPACE alarm count no disk-full', () => {
    const s = scan(
      '{"level":"warn","ts":"2024-05-14T10:04:12Z","caller":"etcdserver/util.go:166","msg":"apply request took too long","took":"1.1s","error":"etcdserver: no space"}',
      '2024-05-14 10:04:12.000000 W | etcdserver: alarm NOSPACE raised by peer 9f0c2d1e3b4a5c6d',
    );
    expect(s.diskFull.count).toBe(0);
    expect(s.databaseSpaceExceeded.count).toBe(2);
  });
});

describe("Go's out of memory", () => {
  it('2.x (etcd-io/etcd#2471) and the runtime trace after it: one out-of-memory, a crash it explains', () => {
    const s = scan(
      '2015/03/07 08:20:54 etcdserver: compacted log at index 50005',
      'fatal error: runtime: out of memory',
      '',
      'runtime stack:',
      'runtime.SysMap(0xc2311e0000, 0x14870000, 0xa54d00, 0xa5f678)',
      '        /usr/local/go/src/runtime/mem_linux.c:149 +0x98',
    );
    expect(s.outOfMemory.count).toBe(1);
    expect(s.crashes.events).toEqual([
      expect.objectContaining({ message: 'runtime: out of memory', explainedBy: 'outOfMemory' }),
    ]);
  });
});

describe('names that do not resolve', () => {
  it('3.3 capnslog at start (etcd-io/etcd#11654): the host, the answer, at start', () => {
    const s = scan(
      '2020-02-25 11:19:13.289579 W | pkg/netutil: failed resolving host etcd-0.etcd:2380 (lookup etcd-0.etcd on 127.16.0.10:53: no such host); retrying in 1s',
      '2020-02-25 11:19:14.400573 W | pkg/netutil: failed resolving host etcd-0.etcd:2380 (lookup etcd-0.etcd on 127.16.0.10:53: no such host); retrying in 1s',
    );
    expect(s.dnsFailed).toMatchObject({
      count: 2,
      hosts: ['etcd-0.etcd'],
      reason: 'no such host',
      atStart: 2,
    });
  });

  it('3.x swarm service logs (xinity/pxc_swarm#5): `could not resolve host`, and the fatal that follows names it too', () => {
    const s = scan(
      '2018-04-24 18:26:05.857945 E | pkg/netutil: could not resolve host galera_etcd:2380',
      '2018-04-24 18:26:05.858792 C | etcdmain: failed to resolve http://galera_etcd:2380 to match --initial-cluster=etcd0=http://galera_etcd:2380 (failed to resolve "http://galera_etcd:2380" (lookup galera_etcd on 127.0.0.11:53: no such host))',
    );
    expect(s.dnsFailed).toMatchObject({ count: 2, hosts: ['galera_etcd'], atStart: 1 });
    expect(s.unexplainedErrors).toEqual([]);
  });

  it('3.5 zap (apecloud/kubeblocks#5702) and a peer dial: the lookup, not the network', () => {
    const s = scan(
      '{"level":"warn","ts":"2023-10-31T08:16:05.598Z","caller":"netutil/netutil.go:121","msg":"failed to resolve URL Host","url":"http://milvus-cluster-etcd-0.milvus-cluster-etcd-headless.default.svc.cluster.local:2380","host":"milvus-cluster-etcd-0.milvus-cluster-etcd-headless.default.svc.cluster.local:2380","retry-interval":"1s","error":"lookup milvus-cluster-etcd-0.milvus-cluster-etcd-headless.default.svc.cluster.local on 127.0.240.10:53: no such host"}',
      '{"level":"warn","ts":"2023-10-31T09:10:00.000Z","caller":"rafthttp/probing_status.go:68","msg":"prober detected unhealthy status","round-tripper-name":"ROUND_TRIPPER_RAFT_MESSAGE","remote-peer-id":"b366cbcd316c915f","rtt":"0s","error":"dial tcp: lookup etcd-3.etcd on 127.0.0.10:53: server misbehaving"}',
    );
    expect(s.dnsFailed).toMatchObject({
      count: 2,
      hosts: ['milvus-cluster-etcd-0.milvus-cluster-etcd-headless.default.svc.cluster.local', 'etcd-3.etcd'],
      atStart: 1,
    });
  });

  it.each([
    [
      '3.5 zap',
      '{"level":"warn","ts":"2026-12-06T19:40:01.123Z","caller":"embed/config_logging.go:169","msg":"rejected connection","remote-addr":"127.0.0.1:51234","server-name":"","ip-addresses":[],"dns-names":["etcd-3.invalid"],"error":"tls: \\"127.0.0.1\\" does not match any of DNSNames [\\"etcd-3.invalid\\"] (lookup etcd-3.invalid on 127.0.0.53:53: no such host)"}',
    ],
    [
      '3.4 capnslog',
      '2026-12-06 19:40:01.123456 I | embed: rejected connection from "127.0.0.1:51234" (error "tls: \\"127.0.0.1\\" does not match any of DNSNames [\\"etcd-3.invalid\\"] (lookup etcd-3.invalid: no such host)", ServerName "", IPAddresses [], DNSNames ["etcd-3.invalid"])',
    ],
  ])(
    '%s: the lookup inside a certificate SAN check is the certificate refused, no name to reach',
    (_, line) => {
      expect(scan(line).dnsFailed.count).toBe(0);
    },
  );

  it('a dial that times out on a reachable address is no name lookup', () => {
    const s = scan(
      '2019-05-14 17:04:58.000000 W | rafthttp: health check for peer 18c54abf5eae5036 could not connect: dial tcp 127.16.137.103:2380: i/o timeout',
    );
    expect(s.dnsFailed.count).toBe(0);
  });
});

describe('a damaged data dir', () => {
  it.each([
    [
      '3.3/3.4 capnslog (etcd-io/etcd#12492)',
      [
        "2020-11-25 09:12:01.000000 C | etcdserver: recovering backend from snapshot error: database snapshot file path error: snap: snapshot file doesn't exist",
        "panic: recovering backend from snapshot error: database snapshot file path error: snap: snapshot file doesn't exist",
      ],
      'snapshot database',
    ],
    [
      '3.5 zap (etcd-io/etcd#13937, goreman)',
      [
        '17:03:01 etcd2 | {"level":"panic","ts":"2022-04-13T17:03:01.990+0800","caller":"etcdserver/bootstrap.go:416","msg":"failed to recover v3 backend from snapshot","error":"failed to find database snapshot file (snap: snapshot file doesn\'t exist)"}',
        '17:03:01 etcd2 | panic: failed to recover v3 backend from snapshot',
      ],
      'snapshot database',
    ],
    [
      '3.5 zap, the WAL gone (server/etcdserver/storage.go:96)',
      [
        '{"level":"fatal","ts":"2023-02-01T08:00:00.000Z","caller":"etcdserver/storage.go:96","msg":"failed to open WAL","error":"wal: file not found"}',
      ],
      'WAL',
    ],
    [
      '3.4 capnslog, the WAL unreadable (etcdserver/storage.go:110)',
      [
        '2021-06-01 08:00:00.000000 C | etcdserver: read wal error (walpb: crc mismatch) and cannot be repaired',
      ],
      'WAL unreadable',
    ],
    [
      '2.0 Go log under journald, the WAL unreadable and no repair (v2.0.13 etcdserver/storage.go:86; etcd-io/etcd#3065)',
      ['Jun 26 09:43:52 node-1 etcd2[26016]: 2015/06/26 09:43:52 etcdserver: read wal error: unexpected EOF'],
      'WAL unreadable',
    ],
    // bbolt's page check as etcd 3.4–3.6 open the backend (NoFreelistSync): go.etcd.io/bbolt v1.3.11
    // db.go:1204 freepages, its error from tx_check.go (`multiple references`, `unreachable unfreed`).
    [
      '3.5 bbolt at open, Go panic on stderr (a page referenced twice)',
      [
        'panic: freepages: failed to get all reachable pages (page 15493: multiple references (stack: [10971 15493]))',
      ],
      'database file',
    ],
    [
      '3.6 bbolt v1.4 at open, journald-wrapped (a page never freed)',
      [
        'Mar 02 11:20:41 cp-1 etcd[912]: panic: freepages: failed to get all reachable pages (page 4096: unreachable unfreed)',
      ],
      'database file',
    ],
    [
      '3.4 bbolt at open, CRI-wrapped (a page out of bounds)',
      [
        '2024-03-02T11:20:41.102934411Z stderr F panic: freepages: failed to get all reachable pages (page 812: out of bounds: 800 (stack: [3 812]))',
      ],
      'database file',
    ],
  ])('%s', (_what, lines, where) => {
    const s = scan(...lines);
    expect(s.dataDirDamaged.where).toEqual([where]);
    // A panic right after is the damage's, not etcd's own crash.
    for (const e of s.crashes.events) expect(e.explainedBy).toBe('dataDirDamaged');
  });

  // snap/snapshotter.go loadSnap sets a snapshot it cannot read aside as `<name>.snap.broken`; every
  // later start lists it (checkSuffix). Messages of v2.3.0/v3.3.0 snap/, v3.4.0 etcdserver/api/snap/,
  // v3.5.0/v3.6.0 server/etcdserver/api/snap/.
  it.each([
    [
      '2.3 journald, capnslog journal formatter (etcd-io/etcd#5518)',
      'Jun 01 16:14:01 ip-172-24-106-233.eu-west-1.compute.internal etcd2[1058]: skipped unexpected non snapshot file 0000000000000003-0000000000d98351.snap.broken',
    ],
    [
      '3.3 capnslog (v3.3.0 snap/snapshotter.go:192 checkSuffix)',
      '2019-03-02 08:30:00.123456 W | snap: skipped unexpected non snapshot file 0000000000000002-0000000000018a9f.snap.broken',
    ],
    [
      '3.5 zap (v3.5.0 snapshotter.go:249 checkSuffix)',
      '{"level":"warn","ts":"2023-02-01T08:00:00.000Z","caller":"snap/snapshotter.go:249","msg":"found unexpected non-snap file; skipping","path":"0000000000000002-0000000000018a9f.snap.broken"}',
    ],
    [
      '3.5 zap console (v3.5.0 snapshotter.go:249 checkSuffix)',
      '2023-02-01T08:00:00.000Z\tWARN\tsnap/snapshotter.go:249\tfound unexpected non-snap file; skipping\t{"path": "0000000000000002-0000000000018a9f.snap.broken"}',
    ],
    [
      '3.6 zap, the rename itself (v3.6.0 snapshotter.go:149 loadSnap)',
      '{"level":"warn","ts":"2025-06-01T08:00:00.000Z","caller":"snap/snapshotter.go:149","msg":"renamed to a broken snap file","path":"/var/lib/etcd/member/snap/0000000000000002-0000000000018a9f.snap","broken-path":"/var/lib/etcd/member/snap/0000000000000002-0000000000018a9f.snap.broken"}',
    ],
    [
      '3.4 capnslog, a CRC mismatch (v3.4.0 snapshotter.go:200 Read)',
      '2020-01-01 08:00:00.000000 E | snap: corrupted snapshot file /var/lib/etcd/member/snap/0000000000000002-0000000000018a9f.snap: crc mismatch',
    ],
    [
      '3.5 zap, a CRC mismatch (v3.5.0 snapshotter.go:196 Read)',
      '{"level":"warn","ts":"2023-02-01T08:00:00.000Z","caller":"snap/snapshotter.go:196","msg":"snap file is corrupt","path":"/var/lib/etcd/member/snap/0000000000000002-0000000000018a9f.snap","prev-crc":1234,"new-crc":5678}',
    ],
    [
      '3.5 zap, an empty file (v3.5.0 snapshotter.go:173 Read)',
      '{"level":"warn","ts":"2023-02-01T08:00:00.000Z","caller":"snap/snapshotter.go:173","msg":"failed to read empty snapshot file","path":"/var/lib/etcd/member/snap/0000000000000002-0000000000018a9f.snap"}',
    ],
    [
      '2.0 Go log, an empty file (v2.0 snap/snapshotter.go Read; etcd-io/etcd#3498)',
      '2015/09/10 16:25:10 snap: unexpected empty snapshot',
    ],
  ])('broken snapshot files: %s', (_what, line) => {
    const s = scan(line);
    expect(s.dataDirDamaged.where).toEqual(['snapshot files']);
    expect(s.dataDirDamaged.count).toBe(1);
  });

  it.each([
    [
      '3.3 capnslog: another stray file of the snap dir',
      '2019-03-02 08:30:00.123456 W | snap: skipped unexpected non snapshot file 0000000000000002-0000000000018a9f.snap.tmp',
    ],
    [
      '3.5 zap: another stray file of the snap dir',
      '{"level":"warn","ts":"2023-02-01T08:00:00.000Z","caller":"snap/snapshotter.go:249","msg":"found unexpected non-snap file; skipping","path":"notes.txt"}',
    ],
    [
      '3.5 zap: a snapshot written and purged normally',
      '{"level":"info","ts":"2023-02-01T08:00:00.000Z","caller":"fileutil/purge.go:77","msg":"purged","path":"/var/lib/etcd/member/snap/0000000000000002-0000000000018a9f.snap"}',
    ],
  ])('no broken snapshot: %s', (_what, line) => {
    expect(scan(line).dataDirDamaged.count).toBe(0);
  });

  it.each([
    [
      '2.1 on, capnslog: a torn WAL tail repaired at start (v2.1.0 etcdserver/storage.go:93)',
      '2015-08-20 10:00:00.000000 I | etcdserver: repaired WAL error (unexpected EOF)',
    ],
    [
      '2.0: the WAL opened fine, the snapshot restored',
      '2015/06/26 09:43:52 etcdserver: recovered store from snapshot at index 160016',
    ],
    [
      "bbolt's freelist rollback failing is no page check (v1.3.11 db.go:1192)",
      'panic: freepages: failed to rollback tx',
    ],
  ])('not damaged: %s', (_what, line) => {
    expect(scan(line).dataDirDamaged.count).toBe(0);
  });
});

describe('database snapshots to a follower', () => {
  it('capnslog (etcd-io/etcd#7944): per follower, sends and failures', () => {
    const s = scan(
      '2017-05-17 15:08:20.434193 I | rafthttp: start to send database snapshot [index: 5790966, to 864e9ff97f31db34]...',
      '2017-05-17 15:08:35.739152 W | rafthttp: database snapshot [index: 5790966, to: 864e9ff97f31db34] failed to be sent out (unexpected http status Internal Server Error while posting to "https://coreos02.kub.do.modio.se:2380/raft/snapshot")',
    );
    expect(s.snapshotsSent.peers).toEqual([
      expect.objectContaining({
        peerId: '864e9ff97f31db34',
        count: 1,
        failed: 1,
        firstSeenAt: '2017-05-17T15:08:20.434Z',
        lastSeenAt: '2017-05-17T15:08:35.739Z',
      }),
    ]);
  });

  it('3.5 zap (rafthttp/snapshot_sender.go:85, http.go:258): the size, and the follower side', () => {
    const s = scan(
      '{"level":"info","ts":"2023-09-14T09:12:00.000Z","caller":"rafthttp/snapshot_sender.go:85","msg":"sending database snapshot","snapshot-index":1210000,"remote-peer-id":"b366cbcd316c915f","bytes":1887436800,"size":"1.9 GB"}',
      '{"level":"info","ts":"2023-09-14T09:12:00.100Z","caller":"rafthttp/http.go:258","msg":"receiving database snapshot","local-member-id":"b366cbcd316c915f","remote-snapshot-sender-id":"8e9e05c52164694d","incoming-snapshot-index":1210000}',
    );
    expect(s.snapshotsSent.peers).toEqual([
      expect.objectContaining({ peerId: 'b366cbcd316c915f', count: 1, size: '1.9 GB' }),
    ]);
    expect(s.snapshotsReceived.count).toBe(1);
  });
});

describe('slow authenticate requests', () => {
  it('3.3 capnslog with a caller tag (etcd-io/etcd#11012, the line as etcd wrote it before the paste broke it)', () => {
    const s = scan(
      '2019-08-09 10:57:50.500232 [pkg_logger.go:114] W | etcdserver: request "header:<ID:17006274213493527777 > authenticate:<name:root simple_token:>" with result "size:796" took too long (331.139139ms) to execute',
      '2019-08-09 10:57:51.131115 [pkg_logger.go:114] W | etcdserver: failed to send out heartbeat on time (exceeded the 100ms timeout for 71.742296ms)',
    );
    expect(s.slowAuth).toMatchObject({ count: 1, users: ['root'], seconds: [0.331139139] });
    expect(s.heartbeatLate.count).toBe(1);
  });

  it('3.4 capnslog without quotes (etcd-io/etcd#12088) and 3.4 zap; the simple token never reaches an example', () => {
    const s = scan(
      '2020-06-28 17:22:25.600495 W | etcdserver: request header:<ID:14775872673591124241 > authenticate:<name:root simple_token:> with result size:478 took too long (229.537514ms) to execute',
      '{"level":"warn","ts":"2022-04-19T09:20:00.120Z","caller":"etcdserver/util.go:163","msg":"apply request took too long","took":"402.118774ms","expected-duration":"100ms","prefix":"","request":"header:<ID:17006274213493527779 > authenticate:<name:root simple_token:Ex2ruZThbROrGAms>","response":"size:796"}',
    );
    expect(s.slowAuth).toMatchObject({ count: 2, users: ['root'] });
    expect(s.slowAuth.maxSeconds).toBeCloseTo(0.402118774, 9);
    expect(JSON.stringify(s)).not.toContain('Ex2ruZThbROrGAms');
  });

  it('3.3 capnslog with a token (etcd-io/etcd#10080): the token is redacted in the example', () => {
    const s = scan(
      '2018-08-05 20:19:21.694670 W | etcdserver: request "header:<ID:6571144359626299740 > authenticate:<name:root simple_token:oExruZThbROrGAms>" with result "size:51" took too long (178.879407ms) to execute',
    );
    expect(s.slowAuth.example).toContain('authenticate:<name:root simple_token:[redacted]>');
    expect(s.tookTooLong.example).toContain('simple_token:[redacted]');
    expect(JSON.stringify(s)).not.toContain('oExruZThbROrGAms');
  });
});

describe('expired certificates', () => {
  it('3.5 zap, clients (etcd-io/etcd#15740): refused addresses and when it expired; not a peer TLS refusal', () => {
    const s = scan(
      '{"level":"warn","ts":"2023-04-18T07:10:00.276Z","caller":"embed/config_logging.go:169","msg":"rejected connection","remote-addr":"127.168.211.110:45886","server-name":"etcd.zragsai","error":"keys: failed to verify client certificate: x509: certificate has expired or is not yet valid: current time 2023-04-18T07:10:00Z is after 2023-04-18T07:04:06Z"}',
    );
    expect(s.certExpired).toMatchObject({
      count: 1,
      from: ['127.168.211.110'],
      notAfter: '2023-04-18T07:04:06Z',
    });
    expect(s.tlsRejected.count).toBe(0);
  });

  it('3.4 capnslog (embed/config.go:470) and 3.6 zap `on client endpoint`', () => {
    const s = scan(
      'Nov 24 12:45:08 node132 etcd[56463]: rejected connection from "127.0.198.133:50852" (error "tls: failed to verify client\'s certificate: x509: certificate has expired or is not yet valid", ServerName "")',
      '{"level":"warn","ts":"2026-03-02T09:05:00.000Z","caller":"embed/config_logging.go:199","msg":"rejected connection on client endpoint","remote-addr":"127.0.0.21:41005","server-name":"","error":"tls: failed to verify certificate: x509: certificate has expired or is not yet valid: current time 2026-03-02T09:05:00Z is after 2026-03-01T23:59:59Z"}',
    );
    expect(s.certExpired).toMatchObject({
      count: 2,
      from: ['127.0.198.133', '127.0.0.21'],
      endpoints: ['client'],
    });
    expect(s.tlsRejected.count).toBe(0);
  });

  it('a certificate not yet valid is a clock, and stays a TLS refusal', () => {
    const s = scan(
      '{"level":"warn","ts":"2023-04-18T07:10:00.276Z","caller":"embed/config_logging.go:169","msg":"rejected connection","remote-addr":"127.0.0.12:45886","server-name":"","error":"tls: failed to verify client certificate: x509: certificate has expired or is not yet valid: current time 2023-04-18T07:10:00Z is before 2023-04-19T00:00:00Z"}',
    );
    expect(s.certExpired.count).toBe(0);
    expect(s.tlsRejected.count).toBe(1);
  });
});

describe('crashes', () => {
  it('3.4.20 capnslog then a Go panic (etcd-io/etcd#14402): one crash, its etcd frame, no runtime or logger frames', () => {
    const s = scan(
      '2022-08-29 06:29:02.703504 W | rafthttp: lost the TCP streaming connection with peer 88d5d8ebd854df5a (stream Message reader)',
      'panic: runtime error: invalid memory address or nil pointer dereference',
      '[signal SIGSEGV: segmentation violation code=0x1 addr=0x18 pc=0x75745b]',
      '',
      'goroutine 287 [running]:',
      'go.uber.org/zap.(*Logger).check(0x0, 0x1, 0x10a3ea5, 0x36, 0xc003fb7480)',
      '        /root/go/pkg/mod/go.uber.org/zap@v1.10.0/logger.go:264 +0x9b',
      'go.uber.org/zap.(*Logger).Warn(0x0, 0x10a3ea5, 0x36, 0xc003fb7480, 0x2, 0x2)',
      '        /root/go/pkg/mod/go.uber.org/zap@v1.10.0/logger.go:194 +0x45',
      'go.etcd.io/etcd/etcdserver.(*EtcdServer).requestCurrentIndex(0xc000398600, 0xc005210f00, 0xd15682e845891c12, 0x0, 0x0, 0x0)',
      '        /tmp/etcd-release-3.4.20/etcd/release/etcd/etcdserver/v3_server.go:805 +0x873',
    );
    expect(s.crashes.count).toBe(1);
    expect(s.crashes.events).toEqual([
      expect.objectContaining({
        message: 'runtime error: invalid memory address or nil pointer dereference',
        frames: ['go.etcd.io/etcd/etcdserver.(*EtcdServer).requestCurrentIndex'],
      }),
    ]);
    expect(s.crashes.events[0]?.explainedBy).toBeUndefined();
  });

  it("3.6 zap: the panic entry, the scheduler's recovered one and Go's lines are one crash (etcd-io/etcd#20870)", () => {
    const s = scan(
      '{"level":"panic","ts":"2025-10-29T07:48:18.950530Z","caller":"etcdserver/apply_v2.go:31","msg":"detected disallowed v2 WAL for stage --v2-deprecation=write-only","method":"PUT"}',
      '{"level":"panic","ts":"2025-10-29T07:48:18.950581Z","caller":"schedule/schedule.go:202","msg":"execute job failed","job":"server_applyAll","panic":"detected disallowed v2 WAL for stage --v2-deprecation=write-only"}',
      'panic: detected disallowed v2 WAL for stage --v2-deprecation=write-only [recovered]',
      '        panic: execute job failed',
      'goroutine 144 [running]:',
      'go.uber.org/zap/zapcore.CheckWriteAction.OnWrite(0x2?, 0x7f531453c910?, {0x0?, 0x0?, 0xc000380be0?})',
      '        go.uber.org/zap@v1.27.0/zapcore/entry.go:196 +0x54',
      'go.etcd.io/etcd/server/v3/etcdserver.v2ToV3Request(...)',
    );
    expect(s.crashes.count).toBe(1);
    expect(s.crashes.events).toHaveLength(1);
    expect(s.crashes.events[0]?.frames).toEqual(['go.etcd.io/etcd/server/v3/etcdserver.v2ToV3Request']);
  });

  it('a trace ends at the next etcd line: a later start line is no frame', () => {
    const s = scan(
      'panic: runtime error: index out of range [3] with length 3',
      'goroutine 212 [running]:',
      'go.etcd.io/etcd/mvcc.(*treeIndex).Range(0xc0001a2000)',
      '2024-03-01 10:00:05.000000 I | etcdmain: etcd Version: 3.4.27',
      'main.main()',
    );
    expect(s.crashes.events[0]?.frames).toEqual(['go.etcd.io/etcd/mvcc.(*treeIndex).Range']);
    expect(s.etcdVersion).toBe('3.4.27');
  });

  it('an operating-system error is no crash of etcd: the panic stays an error line, quoted as such', () => {
    const s = scan('panic: failed to create WAL: open /var/lib/etcd/member/wal/0.tmp: permission denied');
    expect(s.crashes.count).toBe(0);
    expect(s.unexplainedErrors.map((e) => e.message)).toEqual([
      'panic: failed to create WAL: open /var/lib/etcd/member/wal/<n>.tmp: permission denied',
    ]);
  });

  it("a zap fatal is etcd stopping itself on an error it names: no crash (etcd's `failed to purge snap db file`)", () => {
    const s = scan(
      '{"level":"fatal","ts":"2023-09-12T07:01:00.000Z","caller":"etcdserver/server.go:887","msg":"failed to purge snap db file","error":"remove /var/lib/etcd/member/snap/0000000000000005-0000000000000001.snap.db: permission denied"}',
    );
    expect(s.crashes.count).toBe(0);
    expect(s.unexplainedErrors).toHaveLength(1);
  });
});

describe('campaigns', () => {
  it('3.x raft text (etcd-io/etcd#10721): the peers asked, and a member does not count its own vote as an answer', () => {
    const s = scan(
      'May 14 17:04:56 localhost etcd: 343c1c56a3296f58 became candidate at term 255',
      'May 14 17:04:56 localhost etcd: 343c1c56a3296f58 received MsgVoteResp from 343c1c56a3296f58 at term 255',
      'May 14 17:04:56 localhost etcd: 343c1c56a3296f58 [logterm: 1, index: 3] sent MsgVote request to 18c54abf5eae5036 at term 255',
      'May 14 17:04:56 localhost etcd: 343c1c56a3296f58 [logterm: 1, index: 3] sent MsgVote request to d3a39059afc42461 at term 255',
    );
    expect(s.campaign).toMatchObject({
      askedPeers: ['18c54abf5eae5036', 'd3a39059afc42461'],
      answeredBy: [],
      lastLog: { term: 1, index: 3 },
    });
  });

  it('2.x and 3.0 raft text (`sent vote request`, `received vote rejection`), and 3.5 pre-vote', () => {
    const s = scan(
      'Oct 05 04:21:00 core-01 etcd2[666]: 46c01644950728dc [logterm: 239, index: 3309] sent vote request to 420c9b9a89d8b23d at term 325',
      'Oct 05 04:21:00 core-01 etcd2[666]: 46c01644950728dc received vote rejection from 7538e80b548e9d14 at term 325',
      '{"level":"info","ts":"2024-02-20T09:10:10.000Z","logger":"raft","caller":"etcdserver/zap_raft.go:77","msg":"b366cbcd316c915f became pre-candidate at term 9"}',
    );
    expect(s.campaign).toMatchObject({
      askedPeers: ['420c9b9a89d8b23d'],
      answeredBy: ['7538e80b548e9d14'],
      preCandidacies: 1,
      lastLog: { term: 239, index: 3309 },
    });
  });
});

describe('known crashes', () => {
  it('match by message, frame and version; an unknown version still matches by the frame', () => {
    const frames = ['go.etcd.io/etcd/etcdserver.(*EtcdServer).requestCurrentIndex'];
    const nil = 'runtime error: invalid memory address or nil pointer dereference';
    expect(matchKnownCrash(nil, frames, '3.4.20')?.issue).toBe(
      'https://github.com/etcd-io/etcd/issues/14402',
    );
    expect(matchKnownCrash(nil, frames, undefined)?.issue).toBe(
      'https://github.com/etcd-io/etcd/issues/14402',
    );
    expect(matchKnownCrash(nil, frames, '3.4.21')).toBeUndefined();
    expect(matchKnownCrash(nil, ['go.etcd.io/etcd/mvcc.(*treeIndex).Range'], '3.4.20')).toBeUndefined();
    expect(compareVersions('3.4.9', '3.4.25')).toBeLessThan(0);
  });
});
