import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { cliInProcess } from '../../support/process/cli-in-process.js';

/**
 * The causes issue 37 adds, through `etcd-doctor analyze --json` as a user pastes a log: the cause,
 * its severity and member, and that it comes first before the symptoms it explains. Logs from
 * public reports come from the real-log corpus (test/fixtures/real-logs/, source in
 * expected.json); the rest (test/fixtures/offline/logs/causes/, README.md there) are real lines
 * where a report has them and otherwise lines of the shape etcd writes at the release tag named.
 */
const REAL = join(import.meta.dirname, '../../fixtures/real-logs');
const CAUSES = join(import.meta.dirname, '../../fixtures/offline/logs/causes');

interface Finding {
  cause: string;
  severity: string;
  members: string[];
  summary: string;
  causedBy: string | null;
  evidence: string[];
  remediation: string[];
}

async function analyze(...paths: string[]): Promise<{ code: number; findings: Finding[] }> {
  const r = await cliInProcess(['analyze', ...paths, '--json']);
  if (r.stderr) throw new Error(r.stderr);
  const report = JSON.parse(r.stdout) as { findings: Finding[] };
  return { code: r.code, findings: report.findings };
}

const real = (file: string) => join(REAL, file);
const fixture = (...parts: string[]) => join(CAUSES, ...parts);
const causes = (findings: Finding[]) => findings.map((f) => f.cause);

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'etcd-doctor-causes-'));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe('fd-exhaustion', () => {
  it('etcd 0.4 under journald, accept on the peer and client ports (deis/deis#1240): critical', async () => {
    const { code, findings } = await analyze(real('deis-1240.log'));
    expect(code).toBe(1);
    expect(findings[0]).toMatchObject({
      cause: 'fd-exhaustion',
      severity: 'critical',
      members: ['deis-1240'],
    });
    expect(findings[0]?.evidence[0]).toMatch(/^deis-1240: 3 × too many open files/);
  });

  it('zap 3.5: the 80 % warnings, then EMFILE on peer dials and the WAL purge; the dials are no peer-network', async () => {
    const { findings } = await analyze(fixture('fd-zap-3.5', 'etcd-1.log'));
    expect(findings[0]).toMatchObject({ cause: 'fd-exhaustion', severity: 'critical', members: ['etcd-1'] });
    expect(findings[0]?.evidence).toContain("etcd's last count: etcd-1: 88863 of 102400 in use");
    expect(findings[0]?.remediation[0]).toMatch(/ls \/proc\/\$\(pidof etcd\)\/fd/);
    // The failed dials never left etcd-1: its peers are not blamed, and the fatal is not unexplained.
    expect(causes(findings)).toEqual(['fd-exhaustion']);
  });

  it("capnslog 3.4: etcd's 80 % warning alone is a warning, with its counts", async () => {
    const log = join(tmp, 'etcd-2.log');
    await writeFile(
      log,
      [
        '2021-03-08 10:00:00.000000 I | etcdmain: etcd Version: 3.4.14',
        '2021-03-08 10:00:00.200000 I | etcdserver: restarting member d7523d07ecd5d55e in cluster cdf818194e3a8c32 at commit index 88231',
        // The line of the jianshu report (wsa.jianshu.io/p/e09264aeb3f3), in 3.4 capnslog.
        '2021-03-08 10:10:00.000000 W | etcdserver: 80% of the file descriptor limit is used [used = 88863, limit = 102400]',
        '2021-03-08 10:20:00.000000 W | etcdserver: 80% of the file descriptor limit is used [used = 91022, limit = 102400]',
        '',
      ].join('\n'),
    );
    const { findings } = await analyze(log);
    expect(findings[0]).toMatchObject({ cause: 'fd-exhaustion', severity: 'warning', members: ['etcd-2'] });
    expect(findings[0]?.summary).toBe(
      'etcd-2 has used 80 % of its file descriptors (etcd-2: 91022 of 102400 in use): at the limit new connections are refused',
    );
  });
});

describe('disk-full', () => {
  it('capnslog 3.2, `create wal error: no space left on device` (etcd-io/etcd#8330)', async () => {
    const { findings } = await analyze(real('etcd-8330.log'));
    expect(findings[0]).toMatchObject({ cause: 'disk-full', severity: 'critical', members: ['etcd-8330'] });
    expect(findings[0]?.summary).toMatch(/\(no space left on device writing the WAL\)/);
    expect(findings[0]?.remediation[0]).toMatch(/never delete files under member\/wal or member\/snap/);
  });

  it('zap 3.5: the WAL write fails on etcd-1, etcd-2 loses it; disk-full comes first, member-down is its symptom', async () => {
    const { findings } = await analyze(
      fixture('disk-zap-3.5', 'etcd-1.log'),
      fixture('disk-zap-3.5', 'etcd-2.log'),
    );
    expect(findings.map((f) => [f.cause, f.severity, f.members, f.causedBy])).toEqual([
      ['disk-full', 'critical', ['etcd-1'], null],
      ['member-down', 'critical', ['etcd-1'], 'disk-full'],
    ]);
  });

  it('not the quota: NOSPACE stays db-quota, and no disk-full beside it', async () => {
    const { findings } = await analyze(
      join(import.meta.dirname, '../../fixtures/offline/logs/cri-etcd-3.log'),
    );
    expect(findings[0]?.cause).toBe('db-quota');
    expect(causes(findings)).not.toContain('disk-full');
  });
});

describe('out-of-memory', () => {
  it("zap 3.5 then Go's `fatal error: runtime: out of memory`: out-of-memory, not a crash of etcd's own", async () => {
    const { findings } = await analyze(fixture('oom-zap-3.5', 'etcd-2.log'));
    expect(findings[0]).toMatchObject({ cause: 'out-of-memory', severity: 'critical', members: ['etcd-2'] });
    expect(findings[0]?.summary).toMatch(/\(Go: fatal error: runtime: out of memory\)/);
    expect(causes(findings)).not.toContain('etcd-crash');
    expect(causes(findings)).not.toContain('unexplained-errors');
  });
});

describe('dns-resolution', () => {
  it.each([
    [
      'etcd-7798.log',
      'capnslog 3.x, `server misbehaving` (etcd-io/etcd#7798)',
      'etcd2.etcd',
      'server misbehaving',
    ],
    ['etcd-11654.log', 'capnslog 3.3, `no such host` (etcd-io/etcd#11654)', 'etcd-0.etcd', 'no such host'],
  ])('%s (%s): critical, etcd cannot start', async (file, _what, host, reason) => {
    const member = file.replace(/\.log$/, '');
    const { findings } = await analyze(real(file));
    expect(findings[0]).toMatchObject({ cause: 'dns-resolution', severity: 'critical', members: [member] });
    expect(findings[0]?.summary).toBe(
      `${member} cannot resolve ${host} (${reason}): etcd retries until its peer URLs resolve and does not start before`,
    );
  });

  it('zap 3.5 `failed to resolve URL Host` (apecloud/kubeblocks#5702): its own name, with the fix for a StatefulSet', async () => {
    const { findings } = await analyze(fixture('dns-zap-3.5', 'milvus-cluster-etcd-0.log'));
    expect(findings[0]).toMatchObject({
      cause: 'dns-resolution',
      severity: 'critical',
      members: ['milvus-cluster-etcd-0'],
    });
    expect(findings[0]?.remediation[1]).toMatch(/publishNotReadyAddresses: true/);
  });

  it('zap 3.5 peer dials that fail on the lookup: one peer link, a warning, and no peer-network', async () => {
    const { findings } = await analyze(fixture('dns-dial-zap-3.5', 'etcd-1.log'));
    expect(findings[0]).toMatchObject({ cause: 'dns-resolution', severity: 'warning', members: ['etcd-1'] });
    expect(findings[0]?.summary).toMatch(
      /cannot resolve etcd-3\.etcd-headless\.default\.svc\.cluster\.local/,
    );
    expect(causes(findings)).not.toContain('peer-network');
  });
});

describe('etcd-crash', () => {
  it('capnslog 3.4.20 then a nil pointer panic (etcd-io/etcd#14402): the message, the first frame, the known issue; first before peer-network', async () => {
    const { findings } = await analyze(real('etcd-14402.log'));
    expect(findings[0]).toMatchObject({ cause: 'etcd-crash', severity: 'critical', members: ['etcd-14402'] });
    expect(findings[0]?.summary).toMatch(
      /^etcd crashed on etcd-14402: "runtime error: invalid memory address or nil pointer dereference", a known bug: .*\(https:\/\/github\.com\/etcd-io\/etcd\/issues\/14402\)$/,
    );
    expect(findings[0]?.evidence).toContain(
      'etcd-14402: first frames: go.etcd.io/etcd/etcdserver.(*EtcdServer).requestCurrentIndex',
    );
    expect(findings[0]?.remediation).toEqual([expect.stringMatching(/upgrade to 3\.4\.21 or later/)]);
    expect(causes(findings)).toContain('peer-network');
  });

  it('zap 3.6, a recovered panic logged as `execute job failed` (etcd-io/etcd#21850): the version and the known issue', async () => {
    const { findings } = await analyze(fixture('crash-zap-3.6', 'etcd-1.log'));
    expect(findings[0]).toMatchObject({ cause: 'etcd-crash', severity: 'critical', members: ['etcd-1'] });
    expect(findings[0]?.summary).toMatch(
      /^etcd crashed on etcd-1 \(etcd 3\.6\.11\): "execute job failed: detected disallowed v2 WAL for stage --v2-deprecation=write-only", a known bug/,
    );
    expect(findings[0]?.evidence).toContain(
      'etcd-1: first frames: go.etcd.io/etcd/pkg/v3/schedule.(*fifo).executeJob.func1 < go.etcd.io/etcd/server/v3/etcdserver.v2ToV3Request < go.etcd.io/etcd/server/v3/etcdserver.(*EtcdServer).applyEntryNormal',
    );
    expect(findings[0]?.remediation[0]).toMatch(/etcdutl check v2store/);
  });

  it('an unknown panic says so and how to report it', async () => {
    const log = join(tmp, 'etcd-3.log');
    await writeFile(
      log,
      [
        '2024-03-01 10:00:00.000000 I | etcdmain: etcd Version: 3.4.27',
        '2024-03-01 10:05:00.000000 W | etcdserver: read-only range request "key:\\"/registry/pods\\" " with result "range_response_count:1 size:4410" took too long (132.3ms) to execute',
        'panic: runtime error: index out of range [3] with length 3',
        '',
        'goroutine 212 [running]:',
        'go.etcd.io/etcd/mvcc.(*treeIndex).Range(0xc0001a2000, 0xc0003c8000, 0x12, 0x18)',
        '\t/go/src/go.etcd.io/etcd/mvcc/index.go:102 +0x3a5',
        'created by go.etcd.io/etcd/etcdserver.(*EtcdServer).run',
        '',
      ].join('\n'),
    );
    const { findings } = await analyze(log);
    expect(findings[0]).toMatchObject({ cause: 'etcd-crash', severity: 'critical', members: ['etcd-3'] });
    expect(findings[0]?.summary).toBe(
      'etcd crashed on etcd-3 (etcd 3.4.27): "runtime error: index out of range [3] with length 3", with no outside cause in its log',
    );
    expect(findings[0]?.evidence).toContain('etcd-3: first frames: go.etcd.io/etcd/mvcc.(*treeIndex).Range');
    expect(findings[0]?.remediation[0]).toMatch(/search etcd's issues for the message and the first frames/);
  });
});

describe('corruption: a data dir without its snapshot database', () => {
  it.each([
    ['capnslog 3.x, kubectl logs (etcd-io/etcd#12492)', [real('etcd-12492.log')], 'etcd-12492'],
    [
      'zap 3.4 under kubectl --timestamps (kubernetes/kubernetes#88574)',
      [fixture('corruption-zap-3.4', 'master-0.log')],
      'master-0',
    ],
  ])('%s: critical, remove the member and add it back empty', async (_what, paths, member) => {
    const { findings } = await analyze(...paths);
    expect(findings[0]).toMatchObject({ cause: 'corruption', severity: 'critical', members: [member] });
    expect(findings[0]?.summary).toBe(
      `${member}'s data dir is damaged: it lost its snapshot database (the <index>.snap.db its WAL points at is gone), so etcd cannot start from it`,
    );
    expect(findings[0]?.remediation[0]).toMatch(
      /etcdctl member remove <id>.*etcdctl member add .*empty data dir/,
    );
    // The panic that follows is the damage's, never a crash of etcd's own.
    expect(causes(findings)).not.toContain('etcd-crash');
  });
});

describe('corruption: snapshot files etcd could not read (.snap.broken)', () => {
  it('etcd2 under journald, every start lists them after a full disk (etcd-io/etcd#5518): a warning', async () => {
    const { findings } = await analyze(real('etcd-5518.log'));
    expect(findings[0]).toMatchObject({ cause: 'corruption', severity: 'warning', members: ['etcd-5518'] });
    expect(findings[0]?.summary).toMatch(
      /set aside as \.snap\.broken .*older intact snapshot if one is left/,
    );
    expect(findings[0]?.remediation[0]).toMatch(/^If etcd-5518 does not start or keeps failing, replace it/);
  });

  it('zap 3.5: a broken snapshot, then the snapshot database its WAL needs is gone: critical', async () => {
    const file = join(tmp, 'etcd-2.log');
    await writeFile(
      file,
      [
        // v3.5.0 server/etcdserver/api/snap/snapshotter.go:146 and :154 (loadSnap), snap/db.go:88
        '{"level":"warn","ts":"2023-02-01T08:00:00.000Z","caller":"snap/snapshotter.go:146","msg":"failed to read a snap file","path":"/var/lib/etcd/member/snap/0000000000000002-0000000000018a9f.snap","error":"unexpected EOF"}',
        '{"level":"warn","ts":"2023-02-01T08:00:00.001Z","caller":"snap/snapshotter.go:154","msg":"renamed to a broken snap file","path":"/var/lib/etcd/member/snap/0000000000000002-0000000000018a9f.snap","broken-path":"/var/lib/etcd/member/snap/0000000000000002-0000000000018a9f.snap.broken"}',
        '{"level":"warn","ts":"2023-02-01T08:00:00.002Z","caller":"snap/db.go:88","msg":"failed to find [SNAPSHOT-INDEX].snap.db","snapshot-index":100990,"snapshot-file-path":"/var/lib/etcd/member/snap/0000000000018a7e.snap.db","error":"snap: snapshot file doesn\'t exist"}',
      ].join('\n'),
    );
    const { findings } = await analyze(file);
    expect(findings[0]).toMatchObject({ cause: 'corruption', severity: 'critical', members: ['etcd-2'] });
    expect(findings[0]?.summary).toMatch(
      /holds snapshot files .* and lost its snapshot database .*, so etcd cannot start from it$/,
    );
  });
});

describe("corruption: bbolt's page check fails as etcd opens its database", () => {
  // etcd 3.4–3.6 open the backend with NoFreelistSync, so bbolt walks every page at each start and
  // panics on a damaged file (go.etcd.io/bbolt v1.3.11 db.go:1204 freepages); Go's panic names no
  // module of etcd's, yet the log is etcd's.
  it.each([
    [
      'a Go panic alone',
      'panic: freepages: failed to get all reachable pages (page 15493: multiple references (stack: [10971 15493]))',
    ],
    [
      'journald',
      'Mar 02 11:20:41 cp-1 etcd[912]: panic: freepages: failed to get all reachable pages (page 4096: unreachable unfreed)',
    ],
    [
      'CRI (crictl logs)',
      '2024-03-02T11:20:41.102934411Z stderr F panic: freepages: failed to get all reachable pages (page 812: out of bounds: 800 (stack: [3 812]))',
    ],
  ])('%s: read, and the db file named damaged', async (_what, line) => {
    const log = join(tmp, 'cp-1.log');
    await writeFile(log, `${line}\n`);
    const { findings } = await analyze(log);
    expect(findings[0]).toMatchObject({ cause: 'corruption', severity: 'critical', members: ['cp-1'] });
    expect(findings[0]?.summary).toMatch(/holds a database file bbolt's page check finds damaged/);
    expect(causes(findings)).not.toContain('etcd-crash');
  });
});

describe('quorum-lost as one member sees it', () => {
  it('capnslog 3.3 under journald, its only peer never answers a vote at term 1.28 million (etcd-io/etcd#11307)', async () => {
    const { findings } = await analyze(real('etcd-11307.log'));
    expect(findings[0]).toMatchObject({ cause: 'quorum-lost', severity: 'warning', members: ['etcd-11307'] });
    expect(findings[0]?.summary).toMatch(/cannot reach f0a5010c8c14209b/);
  });

  it('zap 3.5 with pre-vote: the term does not rise, each pre-candidacy counts', async () => {
    const { findings } = await analyze(fixture('quorum-prevote-zap-3.5', 'etcd-3.log'));
    expect(findings[0]).toMatchObject({ cause: 'quorum-lost', severity: 'warning', members: ['etcd-3'] });
    expect(findings[0]?.summary).toMatch(/campaigned 4 times without a leader \(term 9\)/);
  });

  it("beside another member's log that keeps its leader: one member cut off, no quorum-lost", async () => {
    const dir = 'quorum-led-elsewhere';
    const { findings } = await analyze(fixture(dir, 'etcd-3.log'), fixture(dir, 'etcd-1.log'));
    expect(causes(findings)).not.toContain('quorum-lost');
  });
});

describe("a cluster that never formed: campaigns from raft's bootstrap entries alone", () => {
  it('capnslog 3.x in /var/log/messages, both peers time out, [logterm: 1, index: 3] (etcd-io/etcd#10721): peer-network first, no quorum-lost', async () => {
    const { findings } = await analyze(real('etcd-10721.log'));
    expect(findings[0]).toMatchObject({
      cause: 'peer-network',
      severity: 'warning',
      members: ['etcd-10721'],
    });
    expect(findings[0]?.summary).toMatch(
      /^The cluster never formed: etcd-10721 has never been reached by a leader and campaigns alone \(term \d+\); none of etcd-10721's 2 peers answered a vote request/,
    );
    expect(findings[0]?.evidence[0]).toMatch(
      /its last entry \[logterm: 1, index: 3\] \(raft's bootstrap entries of 3 members only\)/,
    );
    expect(causes(findings)).not.toContain('quorum-lost');
  });

  it('journald 3.3, only vote requests to two peers that never answer (opsnull/follow-me-install-kubernetes-cluster#342: the firewall)', async () => {
    const { findings } = await analyze(real('opsnull-342.log'));
    expect(findings.map((f) => [f.cause, f.severity, f.members])).toEqual([
      ['peer-network', 'warning', ['opsnull-342']],
    ]);
  });

  it('the same lines past the bootstrap entries (a leader once reached it), or in a 2-member cluster with history: quorum-lost as before', async () => {
    const lines = (logterm: number, index: number) =>
      [36007, 36008, 36009]
        .flatMap((term) => [
          `Oct 16 04:25:38 kube-node1 etcd[19493]: 582361b45b77a869 became candidate at term ${term}`,
          `Oct 16 04:25:38 kube-node1 etcd[19493]: 582361b45b77a869 [logterm: ${logterm}, index: ${index}] sent MsgVote request to 9a7c3024a51eff05 at term ${term}`,
          `Oct 16 04:25:38 kube-node1 etcd[19493]: 582361b45b77a869 [logterm: ${logterm}, index: ${index}] sent MsgVote request to d95b855a62c773ea at term ${term}`,
        ])
        .join('\n');
    const formed = join(tmp, 'kube-node1.log');
    await writeFile(formed, `${lines(2, 4)}\n`);
    const { findings } = await analyze(formed);
    expect(findings[0]).toMatchObject({ cause: 'quorum-lost', members: ['kube-node1'] });
    // A 4th initial member's entry is still bootstrap only when the cluster has 4 voters, not 3.
    await writeFile(formed, `${lines(1, 4)}\n`);
    expect((await analyze(formed)).findings[0]?.cause).toBe('quorum-lost');
    await writeFile(formed, `${lines(1, 3)}\n`);
    expect((await analyze(formed)).findings[0]?.cause).toBe('peer-network');
  });

  it('zap 3.5 raft lines (pre-vote) from the bootstrap entries', async () => {
    const zap = (msg: string) =>
      `{"level":"info","ts":"2024-02-20T09:10:10.000Z","logger":"raft","caller":"etcdserver/zap_raft.go:77","msg":"${msg}"}`;
    const text = [1, 2, 3, 4]
      .flatMap(() => [
        zap('b366cbcd316c915f became pre-candidate at term 1'),
        zap('b366cbcd316c915f [logterm: 1, index: 3] sent MsgPreVote request to 6c3c0d6c8f2c5b1a at term 1'),
        zap('b366cbcd316c915f [logterm: 1, index: 3] sent MsgPreVote request to 9d1c7a1e4b3f2e10 at term 1'),
      ])
      .join('\n');
    const file = join(tmp, 'etcd-0.log');
    await writeFile(file, `${text}\n`);
    const { findings } = await analyze(file);
    expect(findings[0]).toMatchObject({ cause: 'peer-network', members: ['etcd-0'] });
    expect(causes(findings)).not.toContain('quorum-lost');
  });
});

describe('follower-behind: the whole database again and again to one follower', () => {
  it('capnslog 3.1 (etcd-io/etcd#7944): the follower named, the send error quoted', async () => {
    const { findings } = await analyze(fixture('snapshots-capnslog-3.1', 'coreos01.log'));
    expect(findings[0]).toMatchObject({
      cause: 'follower-behind',
      severity: 'warning',
      members: ['864e9ff97f31db34'],
    });
    expect(findings[0]?.summary).toMatch(
      /^864e9ff97f31db34 never catches up: coreos01 sent it the whole database 3 times, 15:08:20–15:12:55, and sends failed \(unexpected http status Internal Server Error/,
    );
  });

  it("zap 3.5, the follower's disk is full: disk-full first, follower-behind its symptom", async () => {
    const dir = 'snapshots-zap-3.5';
    const { findings } = await analyze(fixture(dir, 'etcd-1.log'), fixture(dir, 'etcd-3.log'));
    expect(findings.map((f) => [f.cause, f.members, f.causedBy])).toEqual([
      ['disk-full', ['etcd-3'], null],
      ['follower-behind', ['etcd-3'], 'disk-full'],
    ]);
  });
});

describe('cert-expiry from the logs: who is refused, since when', () => {
  it('zap 3.5, clients refused (etcd-io/etcd#15740): cert-expiry, not peer-tls', async () => {
    const { findings } = await analyze(real('etcd-15740.log'));
    expect(findings[0]).toMatchObject({
      cause: 'cert-expiry',
      severity: 'critical',
      members: ['etcd-15740'],
    });
    expect(findings[0]?.summary).toBe(
      'etcd-15740 refuses clients from 127.168.22.126, 127.168.211.110 and 127.117.148.205: the certificate has expired (at 2023-04-18 07:04:06 UTC); refused since 2023-04-18 07:04:23 UTC',
    );
    expect(findings[0]?.remediation[0]).toMatch(/kubeadm certs renew apiserver-etcd-client/);
    expect(causes(findings)).not.toContain('peer-tls');
  });

  it('zap 3.5 behind CRI (gardener/gardener#7146)', async () => {
    const { findings } = await analyze(real('gardener-pr-7146.log'));
    expect(findings[0]).toMatchObject({ cause: 'cert-expiry', severity: 'critical' });
    expect(findings[0]?.summary).toMatch(/expired \(at 2022-12-03 06:11:00 UTC\)/);
  });

  it('capnslog 3.4 under journald: the refused IPs are peers, named by their peer URLs; Go before 1.15 gives no dates, so expired or a clock behind', async () => {
    const { findings } = await analyze(fixture('cert-peers-capnslog-3.4', 'node132.log'));
    expect(findings[0]).toMatchObject({
      cause: 'cert-expiry',
      severity: 'warning',
      members: ['4f48c2053c5c767f', '43e008b8be62b224'],
    });
    expect(findings[0]?.summary).toBe(
      "node132 refuses peers 4f48c2053c5c767f and 43e008b8be62b224: their certificate has expired, or is not yet valid because a clock is behind (this etcd's Go, before 1.15, writes both as one message with no dates)",
    );
    expect(findings[0]?.remediation[0]).toMatch(
      /^First tell which: the certificate.s dates .*`timedatectl` on each node/,
    );
    expect(findings[0]?.remediation[1]).toMatch(/kubeadm certs renew etcd-peer/);
    expect(causes(findings)).not.toContain('peer-tls');
  });

  it('zap 3.6 `rejected connection on client endpoint`: a client expired is cert-expiry too', async () => {
    const { findings } = await analyze(fixture('cert-client-zap-3.6', 'etcd-1.log'));
    expect(findings[0]).toMatchObject({ cause: 'cert-expiry', members: ['etcd-1'] });
    expect(findings[0]?.summary).toMatch(
      /^etcd-1 refuses clients from 127\.0\.0\.21: .* \(at 2026-03-01 23:59:59 UTC\)/,
    );
  });
});

describe('cpu-starvation: late heartbeats beside slow authentication', () => {
  it('zap 3.4: authenticate requests of 300 ms and more, the user named; the late heartbeats are its symptom', async () => {
    const { findings } = await analyze(fixture('auth-zap-3.4', 'etcd-1.log'));
    expect(findings.map((f) => [f.cause, f.severity, f.members, f.causedBy])).toEqual([
      ['cpu-starvation', 'warning', ['etcd-1'], null],
      ['slow-disk', 'warning', ['etcd-1'], 'cpu-starvation'],
    ]);
    expect(findings[0]?.summary).toBe(
      'etcd-1 is starved of CPU by authentication: 12 authenticate requests (user root) took 300 ms or more (up to 402 ms) while heartbeats went out late',
    );
    // The simple token etcd prints never reaches the report.
    expect(JSON.stringify(findings)).not.toMatch(/simple_token:Ex/);
  });

  it('with slow fdatasync on the same member, the disk explains it: no cpu-starvation', async () => {
    const log = join(tmp, 'etcd-1.log');
    const { readFile } = await import('node:fs/promises');
    const lines = (await readFile(fixture('auth-zap-3.4', 'etcd-1.log'), 'utf8')).trimEnd().split('\n');
    lines.push(
      '{"level":"warn","ts":"2022-04-19T09:21:00.000Z","caller":"wal/wal.go:802","msg":"slow fdatasync","took":"1.328471093s","expected-duration":"1s"}',
    );
    await writeFile(log, `${lines.join('\n')}\n`);
    const { findings } = await analyze(log);
    expect(findings[0]?.cause).toBe('slow-disk');
    expect(causes(findings)).not.toContain('cpu-starvation');
  });
});

describe('healthy logs stay healthy', () => {
  it.each([
    join(import.meta.dirname, '../../fixtures/offline/logs/quiet-etcd-1.log'),
    real('rke-557.log'),
    real('kubernetes-111102.log'),
    real('minikube-8207.log'),
  ])('%s', async (path) => {
    const { findings } = await analyze(path);
    expect(findings.filter((f) => f.severity !== 'info')).toEqual([]);
  });
});
