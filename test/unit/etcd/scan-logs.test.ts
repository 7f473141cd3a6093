import { describe, expect, it } from '@jest/globals';
import { parseGoDuration, scanLogText } from '../../../src/etcd/scan-logs.js';

// Lines quoted from the KB §1.2 catalog and the incident reports (IPs moved to 127.0.0.0/8).
const CAPNSLOG_34 = [
  '2024-05-01 10:00:00.123456 W | wal: sync duration of 1.328471093s, expected less than 1s',
  '2024-05-01 10:00:00.223456 W | etcdserver: failed to send out heartbeat on time (exceeded the 100ms timeout for 1.1s, to b366cbcd316c915f)',
  '2024-05-01 10:00:00.223512 W | etcdserver: server is likely overloaded',
  '2024-05-01 10:00:01.000001 W | etcdserver: read-only range request "key:\\"/registry/leases/kube-system/kube-scheduler\\" " with result "range_response_count:1 size:440" took too long (1.2s) to execute',
  '2024-05-01 10:00:30.000001 W | rafthttp: the clock difference against peer d7523d07ecd5d55e is too high [10.545065453s > 1s]',
  '2024-05-01 10:00:05.000001 W | rafthttp: health check for peer b366cbcd316c915f could not connect: dial tcp 127.5.3.5:2380: i/o timeout',
  'raft2024/05/01 10:00:06 INFO: raft.node: 8e9e05c52164694d elected leader b366cbcd316c915f at term 42',
].join('\n');

const ZAP = [
  '{"level":"warn","ts":"2024-05-01T10:00:00.123456Z","caller":"wal/wal.go:805","msg":"slow fdatasync","took":"1.328471093s","expected-duration":"1s"}',
  '{"level":"warn","ts":"2024-05-01T10:00:00.223456Z","caller":"etcdserver/raft.go:416","msg":"leader failed to send out heartbeat on time; took too long, leader is overloaded likely from slow disk","to":"b366cbcd316c915f","heartbeat-interval":"100ms","expected-duration":"200ms","exceeded-duration":"1.1s"}',
  '{"level":"warn","ts":"2024-05-01T10:00:30.000001Z","caller":"rafthttp/probing_status.go:82","msg":"prober found high clock drift","round-tripper-name":"ROUND_TRIPPER_RAFT_MESSAGE","remote-peer-id":"d7523d07ecd5d55e","clock-drift":"10.545065453s","rtt":"1.2ms"}',
  '{"level":"warn","ts":"2024-05-01T10:00:05.000001Z","caller":"rafthttp/probing_status.go:68","msg":"prober detected unhealthy status","round-tripper-name":"ROUND_TRIPPER_SNAPSHOT","remote-peer-id":"b366cbcd316c915f","rtt":"0s","error":"dial tcp 127.5.3.5:2380: i/o timeout"}',
  '{"level":"info","ts":"2024-05-01T10:00:06.000001Z","logger":"raft","caller":"etcdserver/zap_raft.go:77","msg":"raft.node: 8e9e05c52164694d elected leader b366cbcd316c915f at term 42"}',
  '{"level":"warn","ts":"2024-01-31T16:54:41.675186+0800","caller":"txn/util.go:93","msg":"apply request took too long","took":"4.99863799s","expected-duration":"100ms","prefix":"read-only range ","request":"key:\\"t104\\" ","response":"","error":"context canceled"}',
].join('\n');

describe('scanLogText on etcd lines', () => {
  it('reads etcd 3.4 capnslog lines', () => {
    const s = scanLogText(CAPNSLOG_34);
    expect(s.slowFdatasync).toMatchObject({ count: 1, maxSeconds: 1.328471093 });
    expect(s.heartbeatLate.count).toBe(1);
    expect(s.tookTooLong).toMatchObject({ count: 1, maxSeconds: 1.2 });
    expect(s.clockDrift).toEqual([
      expect.objectContaining({ peerId: 'd7523d07ecd5d55e', count: 1, maxSeconds: 10.545065453 }),
    ]);
    expect(s.peerUnreachable).toEqual([
      expect.objectContaining({
        peerId: 'b366cbcd316c915f',
        address: '127.5.3.5:2380',
        lastError: 'dial tcp 127.5.3.5:2380: i/o timeout',
      }),
    ]);
    expect(s.leaderElected.count).toBe(1);
  });

  it('reads etcd 3.4-zap and 3.5-zap entries from their fields, the same as capnslog', () => {
    const zap = scanLogText(ZAP);
    const cap = scanLogText(CAPNSLOG_34);
    expect(zap.slowFdatasync.maxSeconds).toBe(cap.slowFdatasync.maxSeconds);
    expect(zap.heartbeatLate.count).toBe(1);
    expect(zap.clockDrift.map(({ peerId, maxSeconds }) => ({ peerId, maxSeconds }))).toEqual([
      { peerId: 'd7523d07ecd5d55e', maxSeconds: 10.545065453 },
    ]);
    expect(zap.peerUnreachable.map(({ peerId, address }) => ({ peerId, address }))).toEqual([
      { peerId: 'b366cbcd316c915f', address: '127.5.3.5:2380' },
    ]);
    expect(zap.leaderElected.count).toBe(1);
    expect(zap.tookTooLong).toMatchObject({ count: 1, maxSeconds: 4.99863799 });
  });

  it('reads the 3.2/3.3 incident lines with the prober suffix, behind a crictl timestamp', () => {
    const s = scanLogText(
      [
        '2020-05-15 14:48:47.640740 W | rafthttp: the clock difference against peer d7523d07ecd5d55e is too high [10.545065453s > 1s] (prober "ROUND_TRIPPER_RAFT_MESSAGE")',
        '2020-05-15T13:27:49.8684449Z 2020-05-15 13:27:49.868296 W | rafthttp: health check for peer b366cbcd316c915f could not connect: dial tcp 127.5.3.5:2380: i/o timeout (prober "ROUND_TRIPPER_RAFT_MESSAGE")',
      ].join('\n'),
    );
    expect(s.clockDrift[0]).toMatchObject({ peerId: 'd7523d07ecd5d55e', maxSeconds: 10.545065453 });
    expect(s.peerUnreachable[0]).toMatchObject({
      peerId: 'b366cbcd316c915f',
      lastError: 'dial tcp 127.5.3.5:2380: i/o timeout',
    });
  });

  it('does not need the capnslog prefix: journald keeps only the message', () => {
    const s = scanLogText(
      [
        'health check for peer 361f5805326a5a9a could not connect: dial tcp 127.6.0.52:2380: i/o timeout',
        'the clock difference against peer 361f5805326a5a9a is too high [2.1s > 1s]',
        'sync duration of 2.5s, expected less than 1s',
      ].join('\n'),
    );
    expect(s.peerUnreachable[0]?.peerId).toBe('361f5805326a5a9a');
    expect(s.clockDrift[0]?.maxSeconds).toBe(2.1);
    expect(s.slowFdatasync.maxSeconds).toBe(2.5);
  });

  it('tells a fresh WAL from an existing one, and sees the raft panic', () => {
    const fresh = scanLogText(
      [
        '2024-05-14 09:28:29.000001 I | etcdserver: starting member d7523d07ecd5d55e in cluster cdf818194e3a8c32',
        '{"level":"info","ts":"2024-05-14T09:28:29.1Z","caller":"etcdserver/raft.go:495","msg":"starting local member","local-member-id":"d7523d07ecd5d55e","cluster-id":"cdf818194e3a8c32"}',
        '{"level":"panic","ts":"2024-05-14T09:28:29.2Z","logger":"raft","caller":"etcdserver/zap_raft.go:101","msg":"tocommit(9310447) is out of range [lastIndex(3)]. Was the raft log corrupted, truncated, or lost?"}',
      ].join('\n'),
    );
    expect(fresh.startingMember.count).toBe(2);
    expect(fresh.restartingMember.count).toBe(0);
    expect(fresh.tocommitOutOfRange.count).toBe(1);
    const existing = scanLogText(
      [
        '2024-05-14 09:28:29.000001 I | etcdserver: restarting member d7523d07ecd5d55e in cluster cdf818194e3a8c32 at commit index 9310447',
        '{"level":"info","ts":"2024-05-14T09:28:29.1Z","caller":"etcdserver/raft.go:530","msg":"restarting local member","local-member-id":"d7523d07ecd5d55e","commit-index":9310447}',
      ].join('\n'),
    );
    expect(existing.restartingMember.count).toBe(2);
    expect(existing.startingMember.count).toBe(0);
  });

  it('counts database space exceeded in client errors and in the 3.5 quota message', () => {
    const s = scanLogText(
      [
        'E0514 09:01:02.000001       1 status.go:71] apiserver received an error that is not an metav1.Status: rpctypes.EtcdError{code:0x8, desc:"etcdserver: mvcc: database space exceeded"}: etcdserver: mvcc: database space exceeded',
        '{"level":"warn","ts":"2024-05-14T09:01:01Z","caller":"etcdserver/server.go:2391","msg":"message exceeded backend quota; raising alarm","quota-size-bytes":2147483648,"quota-size":"2.1 GB","error":"etcdserver: mvcc: database space exceeded"}',
      ].join('\n'),
    );
    expect(s.databaseSpaceExceeded.count).toBe(2);
  });
});

describe('scanLogText on control-plane lines', () => {
  it('reads the incident (f) controller-manager and apiserver lines', () => {
    const s = scanLogText(
      [
        'E0224 03:54:36.433286       1 cronjob_controller.go:125] Failed to extract job list: etcdserver: request timed out',
        'E0224 03:54:37.592575       1 leaderelection.go:331] error retrieving resource lock kube-system/kube-controller-manager: etcdserver: request timed out',
        'I0224 03:54:38.047024       1 leaderelection.go:288] failed to renew lease kube-system/kube-controller-manager: timed out waiting for the condition',
        'F0224 03:54:38.047158       1 controllermanager.go:279] leaderelection lost',
        'E0224 03:54:37.591267       1 status.go:71] apiserver received an error that is not an metav1.Status: rpctypes.EtcdError{code:0xe, desc:"etcdserver: request timed out"}',
      ].join('\n'),
    );
    expect(s.requestTimedOut.count).toBe(3);
    expect(s.leaseRenewFailed).toMatchObject({ count: 1, leases: ['kube-system/kube-controller-manager'] });
    expect(s.leaderElectionLost.count).toBe(1);
  });

  it('reads the structured forms of newer releases', () => {
    const s = scanLogText(
      [
        'E0514 09:28:42.047158       1 server.go:245] "Leaderelection lost"',
        'I0514 09:28:42.047024       1 leaderelection.go:258] "Failed to renew lease" lock="kube-system/kube-scheduler" err="timed out waiting for the condition"',
        'E0514 09:28:41.591267       1 writers.go:122] "Unhandled Error" err="apiserver received an error that is not an metav1.Status: rpctypes.EtcdError{code:0xe, desc:\\"etcdserver: leader changed\\"}: etcdserver: leader changed"',
      ].join('\n'),
    );
    expect(s.leaderElectionLost.count).toBe(1);
    expect(s.leaseRenewFailed.leases).toEqual(['kube-system/kube-scheduler']);
    expect(s.leaderChanged.count).toBe(1);
  });

  it('finds nothing in healthy lines that share words with the patterns', () => {
    const s = scanLogText(
      [
        'I0514 09:27:12.301551       1 leaderelection.go:250] attempting to acquire leader lease kube-system/kube-controller-manager...',
        'I0514 09:27:31.886117       1 leaderelection.go:260] successfully acquired lease kube-system/kube-controller-manager',
        '{"level":"info","ts":"2024-05-14T08:00:00Z","caller":"mvcc/index.go:214","msg":"compact tree index","revision":8812331}',
        '{"level":"info","ts":"2024-05-14T08:00:00Z","caller":"embed/etcd.go:309","msg":"starting an etcd server","name":"master-2"}',
        '{"level":"info","ts":"2024-05-14T08:00:00Z","caller":"etcdserver/server.go:1397","msg":"triggering snapshot","local-member-id":"8e9e05c52164694d"}',
      ].join('\n'),
    );
    const counts = Object.values(s).map((v) => (Array.isArray(v) ? v.length : v.count));
    expect(counts.every((n) => n === 0)).toBe(true);
  });
});

describe('when a signal was seen (firstSeenAt, lastSeenAt)', () => {
  it('takes the time of the matching lines: zap ts, capnslog, raft, and the kubectl --timestamps prefix first', () => {
    const s = scanLogText(
      [
        '2024-05-14 08:30:00.000000 W | rafthttp: the clock difference against peer d7523d07ecd5d55e is too high [10.5s > 1s]',
        '2024-05-14T08:31:00.123456789Z 2024-05-14 08:36:00.000000 W | rafthttp: the clock difference against peer d7523d07ecd5d55e is too high [10.4s > 1s]',
        '{"level":"warn","ts":"2024-05-14T08:41:00.000Z","msg":"prober detected unhealthy status","remote-peer-id":"b366cbcd316c915f","error":"dial tcp 127.20.0.13:2380: i/o timeout"}',
        '{"level":"warn","ts":"2024-05-14T08:42:30.250Z","msg":"prober detected unhealthy status","remote-peer-id":"b366cbcd316c915f","error":"dial tcp 127.20.0.13:2380: i/o timeout"}',
        'raft2024/05/14 08:30:10 INFO: raft.node: 8e9e05c52164694d lost leader b366cbcd316c915f at term 431',
        'I0514 09:27:12.301551       1 leaderelection.go:250] failed to renew lease kube-system/kube-scheduler: timed out',
      ].join('\n'),
    );
    expect(s.clockDrift[0]).toMatchObject({
      firstSeenAt: '2024-05-14T08:30:00.000Z',
      lastSeenAt: '2024-05-14T08:31:00.123Z',
    });
    expect(s.peerUnreachable[0]).toMatchObject({
      count: 2,
      firstSeenAt: '2024-05-14T08:41:00.000Z',
      lastSeenAt: '2024-05-14T08:42:30.250Z',
    });
    expect(s.leaderLost).toMatchObject({ firstSeenAt: '2024-05-14T08:30:10.000Z' });
    // klog has no year: counted, but no time.
    expect(s.leaseRenewFailed.count).toBe(1);
    expect(s.leaseRenewFailed.lastSeenAt).toBeUndefined();
    expect(s.tookTooLong.firstSeenAt).toBeUndefined();
  });
});

describe('parseGoDuration', () => {
  it('reads Go duration strings', () => {
    expect(parseGoDuration('1.328471093s')).toBe(1.328471093);
    expect(parseGoDuration('512.3ms')).toBeCloseTo(0.5123);
    expect(parseGoDuration('1m2.5s')).toBe(62.5);
    expect(parseGoDuration('850µs')).toBeCloseTo(0.00085);
    expect(parseGoDuration('0s')).toBe(0);
    expect(parseGoDuration('-1.5s')).toBe(-1.5);
    expect(parseGoDuration('1.2 s')).toBeUndefined();
    expect(parseGoDuration('fast')).toBeUndefined();
  });
});

describe('etcd 2.x peers that cannot be reached (etcd-io/etcd at 550c58713, 38b8e848a, v2.1.0)', () => {
  it('names the peer of rafthttp’s send errors and keeps the refusal', () => {
    const s = scanLogText(
      'rafthttp: encountered error sending messages in stream msgapp from 6e3bd23ae5f1eae0 to 924e2e83e93f2560: dial tcp 127.0.0.1:7003: connection refused',
    );
    expect(s.peerUnreachable).toMatchObject([
      {
        peerId: '924e2e83e93f2560',
        lastError: 'dial tcp 127.0.0.1:7003: connection refused',
        address: '127.0.0.1:7003',
      },
    ]);
  });

  it('takes the peer of a round-trip error from the URL’s host, not the path’s id (the member that dials)', () => {
    const s = scanLogText(
      'rafthttp: roundtripping error: error roundtripping to http://node3:2380/raft/stream/message/1c72a8f45eb39769: dial tcp 127.30.104.4:2380: connection refused',
    );
    expect(s.peerUnreachable.map((p) => p.peerId)).toEqual(['node3:2380']);
  });

  it('joins raft’s one unreachable peer to the one address dialled', () => {
    const s = scanLogText(
      [
        'INFO: raft: 4d4ab69f33ba6775 failed to send message to e402adc05fa52b85 because it is unreachable [next = 47228, match = 0, state = ProgressStateProbe, waiting = false, pendingSnapshot = 0]',
        '2015/05/06 14:04:26 rafthttp: roundtripping error: error roundtripping to http://127.17.0.14:2380/raft/stream/msgapp/4d4ab69f33ba6775: dial tcp 127.17.0.14:2380: connection refused',
      ].join('\n'),
    );
    expect(s.peerUnreachable).toMatchObject([
      { peerId: 'e402adc05fa52b85', count: 2, address: '127.17.0.14:2380' },
    ]);
  });

  it('reads 2.1’s `the connection with <id> became inactive` and the failure after it', () => {
    const s = scanLogText(
      [
        '2015-09-01 10:00:00.000000 I | rafthttp: the connection with 1c72a8f45eb39769 became inactive',
        '2015-09-01 10:00:00.000001 E | rafthttp: failed to dial 1c72a8f45eb39769 on stream MsgApp v2 (dial tcp 127.0.0.3:2380: connection refused)',
      ].join('\n'),
    );
    expect(s.peerUnreachable).toMatchObject([
      { peerId: '1c72a8f45eb39769', count: 1, lastError: 'dial tcp 127.0.0.3:2380: connection refused' },
    ]);
  });
});

describe('a peer certificate without the peer’s address (Go crypto/x509 HostnameError)', () => {
  it.each([
    "x509: cannot validate certificate for 127.17.8.101 because it doesn't contain any IP SANs",
    'x509: certificate is not valid for any names, but wanted to match etcd-1',
    'x509: certificate relies on legacy Common Name field, use SANs instead',
  ])('%s', (error) => {
    const s = scanLogText(
      `2016-01-01 00:00:00.000000 W | rafthttp: health check for peer 1c72a8f45eb39769 could not connect: ${error}`,
    );
    expect(s.tlsRejected).toMatchObject({ count: 1, peers: ['1c72a8f45eb39769'] });
  });
});

// A peer's dials refused, then a connection from its host refused for its certificate: the peer
// runs (etcd binds its peer listener before it dials). etcd-io/etcd v3.2.3 etcdmain/etcd.go
// `rejected connection from %q (%v)`, v3.2.12+ and v3.3+ embed `rejected connection from %q (error %q,
// ServerName %q[, IPAddresses %q, DNSNames %q])`, v3.5.0 zap `rejected connection` with `remote-addr`,
// v3.6.0 `rejected connection on peer endpoint`; the failed dial in capnslog (health check) and zap
// (`prober detected unhealthy status`, `remote-peer-id`, `error`).
describe('a peer that dials the member after its refused dials (dialledUsSince)', () => {
  const CAPNSLOG_DIAL =
    '2017-07-18 17:10:45.629933 W | rafthttp: health check for peer bca0434ec5dbf601 could not connect: dial tcp 127.2.2.77:2380: getsockopt: connection refused';
  const ZAP_DIAL =
    '{"level":"warn","ts":"2024-05-01T10:00:05.000001Z","caller":"rafthttp/probing_status.go:68","msg":"prober detected unhealthy status","round-tripper-name":"ROUND_TRIPPER_SNAPSHOT","remote-peer-id":"bca0434ec5dbf601","rtt":"0s","error":"dial tcp 127.2.2.77:2380: connect: connection refused"}';
  it.each([
    [
      '3.2.3 capnslog, the error unquoted',
      CAPNSLOG_DIAL,
      '2017-07-18 17:10:46.927812 I | etcdmain: rejected connection from "127.2.2.77:53656" (tls: "127.2.2.77" does not match any of DNSNames ["*.etcd.svc.cluster.local"])',
    ],
    [
      '3.4 capnslog under journald, the error quoted with the SANs',
      'Jul 25 06:52:56 k8s-1 etcd[1234]: health check for peer bca0434ec5dbf601 could not connect: dial tcp 127.2.2.77:2380: connect: connection refused',
      'Jul 25 06:52:57 k8s-1 etcd[1234]: rejected connection from "127.2.2.77:53178" (error "tls: \\"127.2.2.77\\" does not match any of DNSNames [\\"etcd\\"]", ServerName "", IPAddresses [], DNSNames ["etcd"])',
    ],
    [
      '3.5 zap',
      ZAP_DIAL,
      '{"level":"warn","ts":"2024-05-01T10:00:06.000001Z","caller":"embed/config_logging.go:169","msg":"rejected connection","remote-addr":"127.2.2.77:43211","server-name":"","ip-addresses":[],"dns-names":["etcd-1"],"error":"tls: \\"127.2.2.77\\" does not match any of DNSNames [\\"etcd-1\\"]"}',
    ],
    [
      '3.6 zap, on the peer endpoint',
      ZAP_DIAL,
      '{"level":"warn","ts":"2025-05-15T10:00:06.000001Z","caller":"embed/config_logging.go:189","msg":"rejected connection on peer endpoint","remote-addr":"127.2.2.77:43211","server-name":"","ip-addresses":[],"dns-names":["etcd-1"],"error":"tls: \\"127.2.2.77\\" does not match any of DNSNames [\\"etcd-1\\"]"}',
    ],
  ])('%s: the refused connection comes from the peer’s host', (_, dial, rejected) => {
    const s = scanLogText([dial, rejected].join('\n'));
    expect(s.tlsRejected).toMatchObject({ count: 1, from: ['127.2.2.77'] });
    expect(s.tlsRejected.reasons[0]).toMatch(/^tls: "127\.2\.2\.77" does not match any of DNSNames \[/);
    expect(s.peerUnreachable).toMatchObject([
      { peerId: 'bca0434ec5dbf601', address: '127.2.2.77:2380', dialledUsSince: true },
    ]);
  });

  it('not before the failure, not from another host, and a later failure starts over', () => {
    const other =
      '2017-07-18 17:10:44.000000 I | etcdmain: rejected connection from "127.2.2.78:53656" (tls: "127.2.2.78" does not match any of DNSNames ["etcd"])';
    const before =
      '2017-07-18 17:10:44.500000 I | etcdmain: rejected connection from "127.2.2.77:53650" (tls: "127.2.2.77" does not match any of DNSNames ["etcd"])';
    expect(scanLogText([other, before, CAPNSLOG_DIAL].join('\n')).peerUnreachable[0]?.dialledUsSince).toBe(
      false,
    );
    const after =
      '2017-07-18 17:10:46.927812 I | etcdmain: rejected connection from "127.2.2.77:53656" (tls: "127.2.2.77" does not match any of DNSNames ["etcd"])';
    const again = CAPNSLOG_DIAL.replace('17:10:45', '17:10:47');
    expect(scanLogText([CAPNSLOG_DIAL, after, again].join('\n')).peerUnreachable[0]?.dialledUsSince).toBe(
      false,
    );
  });
});

describe("a pod's log in zap's console encoder (--log-format=console)", () => {
  it('reads as the zap JSON entry it encodes: the same signals, peer and error', () => {
    const json =
      '{"level":"warn","ts":"2023-10-31T08:16:06.598Z","caller":"rafthttp/probing_status.go:68","msg":"prober detected unhealthy status","round-tripper-name":"ROUND_TRIPPER_RAFT_MESSAGE","remote-peer-id":"b366cbcd316c915f","rtt":"0s","error":"dial tcp 127.0.0.2:2380: connect: connection refused"}';
    const console =
      '2023-10-31T08:16:06.598Z\tWARN\trafthttp/probing_status.go:68\tprober detected unhealthy status\t{"round-tripper-name": "ROUND_TRIPPER_RAFT_MESSAGE", "remote-peer-id": "b366cbcd316c915f", "rtt": "0s", "error": "dial tcp 127.0.0.2:2380: connect: connection refused"}';
    const fromConsole = scanLogText(console).peerUnreachable;
    expect(fromConsole).toEqual([
      expect.objectContaining({ peerId: 'b366cbcd316c915f', count: 1, address: '127.0.0.2:2380' }),
    ]);
    expect(fromConsole.map(({ example: _, ...rest }) => rest)).toEqual(
      scanLogText(json).peerUnreachable.map(({ example: _, ...rest }) => rest),
    );
  });
});

describe('requests over 100 ms whose answer was small (tookTooLong.small)', () => {
  // etcdserver/util.go warnOfExpensive*Request (v3.4.0): capnslog `%srequest %q with result %q took
  // too long (%v) to execute`, the result the response or `error:<err>`; zap `apply request took too
  // long` with `response` and `error`.
  const small = [
    '2022-03-15 09:04:44.521958 W | etcdserver: read-only range request "key:\\"/registry/health\\" " with result "range_response_count:0 size:7" took too long (146.553126ms) to execute',
    '2022-03-15 09:04:44.555798 W | etcdserver: read-only range request "key:\\"/registry/leases/kube-system/kube-controller-manager\\" " with result "range_response_count:1 size:529" took too long (135.106455ms) to execute',
    '2022-03-15 09:04:45.000001 W | etcdserver: request "header:<ID:8912191783742552676 username:\\"etcd-client\\" auth_revision:1 > txn:<compare:<target:MOD key:\\"/registry/x\\" mod_revision:9 > success:<request_put:<key:\\"/registry/x\\" value_size:726 >> failure:<>>" with result "size:18" took too long (150ms) to execute',
    '{"level":"warn","ts":"2022-03-15T09:04:46.000Z","caller":"etcdserver/util.go:166","msg":"apply request took too long","took":"130ms","expected-duration":"100ms","prefix":"read-only range ","request":"key:\\"/registry/health\\" ","response":"range_response_count:0 size:7"}',
  ];
  const notSmall = [
    // a list: the request's own cost
    '2022-03-15 09:04:47.000001 W | etcdserver: read-only range request "key:\\"/registry/pods/\\" range_end:\\"/registry/pods0\\" " with result "range_response_count:5000 size:9000000" took too long (900ms) to execute',
    // an error: its time is what it waited for (an election), not the answer's
    '2022-01-12 08:35:31.391649 W | etcdserver: read-only range request "key:\\"/registry/pods/a/b\\" " with result "error:etcdserver: leader changed" took too long (1.039229803s) to execute',
    // authentication: its cost is bcrypt (cpu-starvation-logs reads it)
    '2019-08-09 10:57:50.500232 W | etcdserver: request "header:<ID:17006274213493527777 > authenticate:<name:root simple_token:>" with result "size:796" took too long (331.139139ms) to execute',
    // 3.0–3.2 names no request or answer
    '2016-12-09 16:03:21.925822 W | etcdserver: apply entries took too long [202.238741ms for 1 entries]',
    '{"level":"warn","ts":"2022-03-15T09:04:48.000Z","caller":"etcdserver/util.go:166","msg":"apply request took too long","took":"4.99s","expected-duration":"100ms","prefix":"read-only range ","request":"key:\\"t104\\" ","response":"","error":"context canceled"}',
    '{"level":"warn","ts":"2022-03-15T09:04:49.000Z","caller":"etcdserver/util.go:166","msg":"apply request took too long","took":"300ms","expected-duration":"100ms","prefix":"read-only range ","request":"key:\\"/registry/pods/\\" ","response":"range_response_count:20 size:90000"}',
  ];

  it('counts writes and ranges of at most one key, capnslog and zap alike', () => {
    const s = scanLogText(small.join('\n'));
    expect(s.tookTooLong).toMatchObject({ count: 4, small: 4 });
  });

  it('does not count lists, errors, authentication or 3.0–3.2 applies', () => {
    const s = scanLogText(notSmall.join('\n'));
    expect(s.tookTooLong).toMatchObject({ count: 6, small: 0 });
  });
});

describe('late heartbeats in every wording', () => {
  it('reads 2.3 `deadline exceeded for` beside 3.x `exceeded the … timeout`, and zap once per line', () => {
    const s = scanLogText(
      [
        // etcdserver/server.go v2.3.0
        '2016-07-01 09:16:35.257437 W | etcdserver: failed to send out heartbeat on time (deadline exceeded for 936.918092ms)',
        '2016-07-01 09:16:35.257471 W | etcdserver: server is likely overloaded',
        // etcdserver/raft.go v3.3.0
        '2019-08-09 10:57:51.131115 W | etcdserver: failed to send out heartbeat on time (exceeded the 100ms timeout for 71.742296ms)',
        '{"level":"warn","ts":"2024-05-01T10:00:00.223456Z","caller":"etcdserver/raft.go:416","msg":"leader failed to send out heartbeat on time; took too long, leader is overloaded likely from slow disk","to":"b366cbcd316c915f","heartbeat-interval":"100ms","expected-duration":"200ms","exceeded-duration":"1.1s"}',
      ].join('\n'),
    );
    expect(s.heartbeatLate.count).toBe(3);
  });

  it('does not count the overload line alone', () => {
    expect(
      scanLogText('2016-07-01 09:16:34.120567 W | etcdserver: server is likely overloaded').heartbeatLate
        .count,
    ).toBe(0);
  });
});
