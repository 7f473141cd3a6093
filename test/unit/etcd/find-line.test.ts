import { describe, expect, it } from '@jest/globals';
import { findCapnslogPackage } from '../../../src/etcd/find-capnslog-package.js';
import {
  findEtcdLine,
  findProgram,
  isEtcdProgram,
  repeatedMessage,
  sourceOf,
} from '../../../src/etcd/find-line.js';
import { emptySignals, scanLine } from '../../../src/etcd/scan-logs.js';
import { scanLogStream } from '../../../src/offline/log-stream.js';

/** Lines of the shapes etcd writes, behind the wrappers of test/fixtures/real-logs/ (each from a public report). */
describe('etcd’s line inside any wrapper', () => {
  it.each([
    [
      'container service (docker swarm)',
      '    percona_etcd.1.pu3dhbwh5tdx@test-011    | 2018-04-24 18:26:05.857945 E | pkg/netutil: could not resolve host galera_etcd:2380',
      'capnslog',
      '2018-04-24 18:26:05.857945 E | pkg/netutil: could not resolve host galera_etcd:2380',
      'percona_etcd.1',
    ],
    [
      'Procfile runner (goreman) around Go’s log',
      '13:51:19 etcd2 | 2015/02/27 13:51:19 rafthttp: encountered error sending messages in stream msgapp from 6e3bd23ae5f1eae0 to 924e2e83e93f2560: dial tcp 127.0.0.1:7003: connection refused',
      'go-log',
      'rafthttp: encountered error sending messages in stream msgapp from 6e3bd23ae5f1eae0 to 924e2e83e93f2560: dial tcp 127.0.0.1:7003: connection refused',
      'etcd2',
    ],
    [
      'svlogd’s time before Go’s log',
      '2015-08-01_01:08:58.60949 2015/07/31 20:08:58 rafthttp: request sent was ignored (cluster ID mismatch: remote[f92953d55e622c7f]=5f72a9421d9f31ec, local=f709fd0e454bd1c6)',
      'go-log',
      'rafthttp: request sent was ignored (cluster ID mismatch: remote[f92953d55e622c7f]=5f72a9421d9f31ec, local=f709fd0e454bd1c6)',
      undefined,
    ],
    [
      'capnslog with its caller tag',
      '2019-08-09 10:57:51.131115 [pkg_logger.go:114] W | etcdserver: failed to send out heartbeat on time (exceeded the 100ms timeout for 71.742296ms)',
      'capnslog',
      '2019-08-09 10:57:51.131115 W | etcdserver: failed to send out heartbeat on time (exceeded the 100ms timeout for 71.742296ms)',
      undefined,
    ],
    [
      'a web console’s time, the pipe escaped by markdown',
      'Tue, Mar 15 2022 5:04:44 pm | 2022-03-15 09:04:44.521958 W \\| etcdserver: read-only range request "key:\\"/registry/health\\" " with result "range_response_count:0 size:7" took too long (146.553126ms) to execute',
      'capnslog',
      '2022-03-15 09:04:44.521958 W | etcdserver: read-only range request "key:\\"/registry/health\\" " with result "range_response_count:0 size:7" took too long (146.553126ms) to execute',
      undefined,
    ],
    [
      'minikube logs',
      '* 2020-03-24 20:01:46.883655 I | mvcc: finished scheduled compaction at 8488 (took 13.592225ms)',
      'capnslog',
      '2020-03-24 20:01:46.883655 I | mvcc: finished scheduled compaction at 8488 (took 13.592225ms)',
      undefined,
    ],
    [
      'minikube logs around raft’s logger',
      '* raft2020/08/05 16:06:25 INFO: b273bc7741bcb020 switched to configuration voters=(12858828581462913056)',
      'raft',
      'raft2020/08/05 16:06:25 INFO: b273bc7741bcb020 switched to configuration voters=(12858828581462913056)',
      undefined,
    ],
    [
      'journalctl -o json-pretty',
      '    "MESSAGE" : "2017-05-14 16:12:28.454798 I | mvcc: finished scheduled compaction at 1815435 (took 912.595µs)"',
      'capnslog',
      '2017-05-14 16:12:28.454798 I | mvcc: finished scheduled compaction at 1815435 (took 912.595µs)"',
      undefined,
    ],
    [
      'talosctl logs',
      '127.168.100.11: {"level":"info","ts":"2026-07-05T12:46:29.425754Z","caller":"membership/cluster.go:424","msg":"added member","cluster-id":"8138989705488bf0"}',
      'zap-json',
      '{"level":"info","ts":"2026-07-05T12:46:29.425754Z","caller":"membership/cluster.go:424","msg":"added member","cluster-id":"8138989705488bf0"}',
      '127.168.100.11',
    ],
  ])('%s', (_what, line, shape, text, source) => {
    const found = findEtcdLine(line);
    expect(found).toMatchObject({ shape, text, glued: false });
    expect(found?.source).toBe(source);
  });

  it('reads a portal table’s row (tab-separated columns before capnslog)', () => {
    const row =
      'k8s-agentpool1-41071407-vmss000046\tvolume-etcd-kbwvg97vx5\t2020-05-08T18:23:45.254Z\t2020-05-08 18:23:45.254588 I | mvcc: finished scheduled compaction at 467 (took 302.001µs) ';
    expect(findEtcdLine(row)).toMatchObject({
      shape: 'capnslog',
      text: expect.stringMatching(/^2020-05-08 18:23:45\.254588 I \| mvcc/),
    });
  });

  it('reads zap console as the zap entry it encodes', () => {
    const line =
      '2021-05-14T12:11:46.514+0200    warn    etcdmain/etcd.go:104    \'data-dir\' was empty; using default     {"data-dir": "default.etcd"}';
    const found = findEtcdLine(line);
    expect(found?.shape).toBe('zap-console');
    expect(JSON.parse(found?.text ?? '')).toEqual({
      level: 'warn',
      ts: '2021-05-14T12:11:46.514+02:00',
      caller: 'etcdmain/etcd.go:104',
      msg: "'data-dir' was empty; using default",
      'data-dir': 'default.etcd',
    });
  });

  it('reads a zap entry whose first characters a narrow terminal cut off', () => {
    const found = findEtcdLine(
      'aller":"etcdserver/backend.go:79","msg":"opened backend db","path":"/var/lib/etcd/member/snap/db","took":"3.557338ms"}',
    );
    expect(found?.shape).toBe('zap-json');
    expect(JSON.parse(found?.text ?? '')).toMatchObject({ msg: 'opened backend db' });
  });

  it('reads zap fields a copy quoted from a key on, without the opening brace (3.5 server.go:1127-1128)', () => {
    // A blog quoting the `msg` and `error` of an entry, cut on both sides: still etcd's zap line.
    const quoted = findEtcdLine(
      '"msg":"server error","error":"the member has been permanently removed from the cluster"',
    );
    expect(quoted?.shape).toBe('zap-json');
    // Cut at the key's quote with the closing brace kept: read as the entry it is.
    const whole = findEtcdLine(
      '"level":"warn","ts":"2025-04-15T08:28:33.766235Z","caller":"etcdserver/server.go:1128","msg":"data-dir used by this member must be removed"}',
    );
    expect(whole?.shape).toBe('zap-json');
    expect(JSON.parse(whole?.text ?? '')).toMatchObject({
      msg: 'data-dir used by this member must be removed',
    });
    // A key-value line of another program's, without zap's `msg`, is not.
    expect(findEtcdLine('"name":"web","status":"ok"')).toBeUndefined();
  });

  it('dates Go’s standard log', () => {
    expect(
      findEtcdLine('2015/03/07 05:44:00 etcdserver: start to snapshot (applied: 30003, lastsnap: 20002)'),
    ).toMatchObject({
      shape: 'go-log',
      text: 'etcdserver: start to snapshot (applied: 30003, lastsnap: 20002)',
      at: '2015-03-07T05:44:00.000Z',
    });
  });

  it('tells a head glued to text (mail re-wrapped the log) from a collector’s prefix', () => {
    expect(findEtcdLine('entries]2018-12-08 06:57:52.861997 W | etcdserver: avoid queries with')?.glued).toBe(
      true,
    );
    expect(
      findEtcdLine('etcd-1  | 2018-12-08 06:57:52.861997 W | etcdserver: avoid queries with')?.glued,
    ).toBe(false);
  });

  it('finds nothing in a line that is not etcd’s, and nothing past a collector’s prefix length', () => {
    expect(
      findEtcdLine('127.0.0.1 - - [17/Aug/2023:12:26:12 +0000] "GET / HTTP/1.1" 200 612'),
    ).toBeUndefined();
    expect(
      findEtcdLine(`${'x '.repeat(400)}2018-12-08 06:57:52.861997 W | etcdserver: late`),
    ).toBeUndefined();
  });

  it('names the writer only where the prefix is one', () => {
    expect(sourceOf('etcd-00.1.6icbla764imb@swarm-worker-00    |')).toBe('etcd-00.1');
    expect(sourceOf('etcd.1  |')).toBe('etcd.1');
    expect(sourceOf('Tue, Mar 15 2022 5:04:44 pm |')).toBeUndefined();
    expect(sourceOf('*')).toBeUndefined();
  });

  it('reads the program of syslog lines in the shapes people paste', () => {
    expect(findProgram('> etcd[54776]: open wal error: no space left on device')).toEqual({
      program: 'etcd',
      text: 'open wal error: no space left on device',
    });
    expect(findProgram('localhost etcd: rejected connection from "127.168.2.55:55152"')?.program).toBe(
      'etcd',
    );
    expect(
      findProgram('1月 18 00:35:31 centos1 etcd[7426]: ce2a822cea30bfca became candidate at term 3896')
        ?.program,
    ).toBe('etcd');
    expect(
      findProgram('systemd[1]: etcd.service: Main process exited, code=exited, status=1/FAILURE')?.program,
    ).toBe('systemd');
    expect(['etcd', 'etcd2', 'etcd-wrapper', 'etcd.sh', 'etcd-member'].every(isEtcdProgram)).toBe(true);
    expect(['etcdctl', 'systemd', 'kernel', 'etcdserver'].some(isEtcdProgram)).toBe(false);
  });

  it('reads capnslog’s `<pkg>: <message>` whose time and level a copy left out (kubernetes/kops#11527)', () => {
    // etcd's messages at v3.2.32 (etcdmain/etcd.go), v3.3.27 (embed/config.go, rafthttp/probing_status.go,
    // wal/wal.go), as capnslog writes them after its time and level: `<pkg>: <message>`.
    const rejected =
      'rejected connection from "127.0.2.11:64762" (error "tls: failed to verify client\'s certificate: x509: certificate has expired or is not yet valid", ServerName "")';
    expect(findCapnslogPackage(`etcdmain: ${rejected}`)).toBe(`etcdmain: ${rejected}`);
    expect(findCapnslogPackage(`embed: ${rejected}`)).toBe(`embed: ${rejected}`);
    expect(
      findCapnslogPackage(
        '> rafthttp: the clock difference against peer 5bd0394181f126dd is too high [10.449391606s > 1s] (prober "ROUND_TRIPPER_RAFT_MESSAGE")',
      ),
    ).toBe(
      'rafthttp: the clock difference against peer 5bd0394181f126dd is too high [10.449391606s > 1s] (prober "ROUND_TRIPPER_RAFT_MESSAGE")',
    );
    expect(findCapnslogPackage('wal: sync duration of 1.5857053s, expected less than 1s')).toBe(
      'wal: sync duration of 1.5857053s, expected less than 1s',
    );
    expect(findCapnslogPackage('etcdserver/api/v3rpc: grpc: Server.Serve failed')).toBe(
      'etcdserver/api/v3rpc: grpc: Server.Serve failed',
    );
    // Not a package tag of etcd's, or one other programs start lines with too: not etcd's line.
    for (const line of [
      'proxy: dial tcp 127.0.0.1:8080: connect: connection refused',
      'etcdctl: command not found',
      'Error: context deadline exceeded',
      'systemd: etcd.service failed',
      'stats: 3 requests',
      'etcdmain:',
    ])
      expect(findCapnslogPackage(line)).toBeUndefined();
  });

  it('reads rsyslog’s repeats', () => {
    expect(
      repeatedMessage(
        'message repeated 3 times: [ 2019-05-06 10:00:00.000000 W | etcdserver: server is likely overloaded]',
      ),
    ).toEqual({ text: '2019-05-06 10:00:00.000000 W | etcdserver: server is likely overloaded', times: 3 });
  });
});

describe('a stream of wrapped lines', () => {
  async function* lines(text: string): AsyncGenerator<string> {
    for (const line of text.split('\n')) yield line;
  }
  const scan = (text: string) => scanLogStream(lines(text), { name: 'm1', maxLineChars: 65_536 });

  it("reads capnslog's journald lines without any metadata (`journalctl -o cat`) by etcd's own message", async () => {
    // capnslog's journald formatter sends the message alone (2.3–3.4); `journalctl -o cat` shows only it.
    const [w] = await scan(
      [
        'lost the TCP streaming connection with peer 8a4bb0af2f19bd46 (stream MsgApp v2 reader)',
        '91d63231b87fadda became candidate at term 8',
        '80% of the file descriptor limit is used [used = 88863, limit = 102400]',
      ].join('\n'),
    );
    expect(w?.etcdLines).toBe(3);
    expect(w?.signals.fdNearLimit).toMatchObject({ count: 1, used: 88863, limit: 102400 });
  });

  it('does not take another program’s line that quotes etcd’s message for etcd’s', async () => {
    const [w] = await scan(
      'kube-apiserver: lost the TCP streaming connection with peer 8a4bb0af2f19bd46 (stream MsgApp v2 reader)\n',
    );
    expect(w?.etcdLines).toBe(0);
  });

  it('does not take a short phrase other programs write too for etcd’s message', async () => {
    const [w] = await scan(
      ['player lost leader position', 'open wal error in game save', 'GET /health 200'].join('\n'),
    );
    expect(w?.etcdLines).toBe(0);
  });

  it('joins a line a terminal cut in two (CRLF endings), so its request and its time are one line', async () => {
    const [w] = await scan(
      '2019-08-09 10:57:50.500232 [pkg_logger.go:114] W | etcdserver: request "header:<ID:17006274213493527777 > authenticate:<name:root simple_token:>" with result "size:796" too\r\n' +
        'k too long (331.139139ms) to execute\r\n' +
        '2019-08-09 10:57:51.131115 [pkg_logger.go:114] W | etcdserver: failed to send out heartbeat on time (exceeded the 100ms timeout for 71.742296ms)\r\n',
    );
    expect(w?.etcdLines).toBe(2);
    expect(w?.signals.slowAuth).toMatchObject({ count: 1, users: ['root'] });
    expect(w?.signals.heartbeatLate.count).toBe(1);
  });

  it('joins mail re-wrapped at 70 columns and splits it at etcd’s heads', async () => {
    const [w] = await scan(
      [
        'timed out waiting for read index response2018-12-08 06:57:52.861971 W',
        '| etcdserver: apply entries took too long [287.709698ms for 2',
        'entries]2018-12-08 06:58:40.003521 W | wal: sync',
        'duration of 1.07701685s, expected less than 1s2018-12-08',
        '06:59:03.397005 W | wal: sync duration of 3.478824796s, expected less',
        'than 1s',
      ].join('\n'),
    );
    expect(w?.signals.slowFdatasync).toMatchObject({ count: 2, maxSeconds: 3.478824796 });
    expect(w?.signals.tookTooLong.count).toBe(1);
    expect(w?.etcdLines).toBe(3);
  });

  it('joins a date alone on its line to its message (a web console’s copy)', async () => {
    const [w] = await scan(
      '2022-03-15 09:04:44.521958\nW | wal: sync duration of 2.1s, expected less than 1s\n',
    );
    expect(w?.signals.slowFdatasync.count).toBe(1);
  });

  it('counts rsyslog’s repeated message as its N lines', async () => {
    const [w] = await scan(
      'May  6 10:00:00 host etcd[42]: message repeated 4 times: [ 2019-05-06 10:00:00.000000 W | etcdserver: failed to send out heartbeat on time (exceeded the 100ms timeout for 71.7ms)]\n',
    );
    expect(w?.signals.heartbeatLate.count).toBe(4);
  });

  it('keeps a crash and its goroutine trace one etcd line, its frames read by the crash scan', async () => {
    const [w] = await scan(
      [
        'panic: invalid Go type int for field github_com.coreos.etcd.etcdserver.etcdserverpb.loggablePutRequest.value_size',
        'goroutine 661 [running]:',
        'go.etcd.io/etcd/server/v3/etcdserver.(*EtcdServer).apply(0xc000, 0x1)',
        '\t/go/src/go.etcd.io/etcd/server/etcdserver/server.go:2130 +0x1f',
      ].join('\n'),
    );
    expect(w?.etcdLines).toBe(1);
    expect(w?.signals.crashes.events[0]?.frames).toContain(
      'go.etcd.io/etcd/server/v3/etcdserver.(*EtcdServer).apply',
    );
  });

  it('reads capnslog lines that kept only their package and message as etcd’s (kubernetes/kops#11527)', async () => {
    const [w] = await scan(
      [
        'etcdmain: rejected connection from "MASTER-B-ADDRESS:64762" (error "tls: failed to verify client\'s certificate: x509: certificate has expired or is not yet valid',
        'etcdmain: rejected connection from "MASTER-C-ADDRESS:64762" (error "tls: failed to verify client\'s certificate: x509: certificate has expired or is not yet valid',
        'wal: sync duration of 2.905337722s, expected less than 1s',
      ].join('\n'),
    );
    expect(w?.etcdLines).toBe(3);
    expect(w?.signals.certExpired.count).toBe(2);
    expect(w?.signals.slowFdatasync).toMatchObject({ count: 1, maxSeconds: 2.905337722 });
  });

  it('leaves a line that only looks like a package tag unread', async () => {
    const [w] = await scan('proxy: dial tcp 127.0.0.1:8080: connect: connection refused\n');
    expect(w?.etcdLines).toBe(0);
  });

  it('splits a container service’s replicas into members', async () => {
    const writers = await scan(
      [
        'etcd-00.1.6icbla764imb@swarm-worker-00    | 2018-02-11 21:40:32.226154 I | etcdserver: published',
        'etcd-01.1.aaaaaaaaaaaa@swarm-worker-01    | 2018-02-11 21:40:32.226154 I | etcdserver: published',
      ].join('\n'),
    );
    expect(writers.map((w) => w.name).sort()).toEqual(['etcd-00.1', 'etcd-01.1']);
  });
});

describe('bounded on hostile lines', () => {
  it('reads a 64 KiB adversarial line in well under a second', () => {
    const shapes = [
      '2018-12-08 06:57:52.861971 '.repeat(2500),
      '{"level":"warn",'.repeat(4000),
      `${'took too long ('.repeat(4000)}x`,
      `${'became candidate at term '.repeat(2600)}`,
      `rejected connection from "${'x509: certificate is valid for '.repeat(2000)}`,
      `failed to reach the peerURL(${'('.repeat(60_000)}`,
      `database space exceeded${' alarm raised'.repeat(5000)}`,
      `0${'1'.repeat(65_000)}`,
      `a.1.${'b'.repeat(30)}@${'c'.repeat(65_000)} | `,
      `${'2015/03/07 05:44:00 '.repeat(3000)}`,
      `2021-05-14T12:11:46.514+0200    info    ${'a/'.repeat(30_000)}.go:1    msg`,
      `${'remote error: tls: '.repeat(3500)}`,
      `${'serving /health false due to an alarm '.repeat(1700)}`,
      `${'failed to reach the peerURL(x) of member ab ('.repeat(1400)}`,
      `vote ${'a'.repeat(65_000)} [logterm: 1, index: 2] sent`,
      `health check for peer ab could not connect: ${' (prober "x'.repeat(6000)}`,
    ];
    for (const shape of shapes) {
      const line = shape.slice(0, 65_536);
      const started = performance.now();
      findEtcdLine(line);
      findProgram(line);
      findCapnslogPackage(line);
      scanLine(line, emptySignals());
      expect({ shape: shape.slice(0, 30), ms: Math.min(performance.now() - started, 250) }).toEqual({
        shape: shape.slice(0, 30),
        ms: expect.any(Number),
      });
      expect(performance.now() - started).toBeLessThan(250);
    }
  });
});
