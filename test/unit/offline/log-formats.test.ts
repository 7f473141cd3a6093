import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { analyzePaths } from '../../../src/offline/analyze.js';
import { unwrapLine } from '../../../src/offline/log-line.js';

const FIXTURES = join(import.meta.dirname, '../../fixtures/offline/logs');
const fixture = (name: string) => join(FIXTURES, name);

describe('one line, any wrapper: detected per line', () => {
  const zap =
    '{"level":"warn","ts":"2024-01-31T08:54:41.675Z","caller":"wal/wal.go:805","msg":"slow fdatasync"}';
  it.each([
    // docs.docker.com "JSON File logging driver": {"log":"...\n","stream":"stdout","time":"..."}
    [
      'docker-json',
      `{"log":${JSON.stringify(`${zap}\n`)},"stream":"stderr","time":"2024-01-31T08:54:41.675186123Z"}`,
      zap,
      '2024-01-31T08:54:41.675Z',
    ],
    // kubernetes kubelet-cri-logging: <RFC3339Nano> <stream> <P|F> <content>
    ['cri', `2024-01-31T16:54:41.675186+08:00 stderr F ${zap}`, zap, '2024-01-31T08:54:41.675Z'],
    // journalctl(1) -o short: "Aug 17 12:26:12 host ident[pid]: message"
    [
      'journald',
      'Aug 17 12:26:12 master-2 etcd[9683]: 2023-08-17 12:26:12.1 W | wal: sync duration of 1.3s, expected less than 1s',
      '2023-08-17 12:26:12.1 W | wal: sync duration of 1.3s, expected less than 1s',
      undefined,
    ],
    // journalctl -o short-iso
    ['journald', `2024-01-31T16:54:41+0800 master-2 etcd[9683]: ${zap}`, zap, '2024-01-31T08:54:41.000Z'],
    // kubectl logs --prefix --timestamps
    [
      'kubectl-prefix',
      `[pod/etcd-m1/etcd] 2020-05-15T13:27:49.8684449Z ${zap}`,
      zap,
      '2020-05-15T13:27:49.868Z',
    ],
    // goreman / docker compose
    ['name-prefix', `12:26:12 etcd1 | ${zap}`, zap, undefined],
    ['name-prefix', `etcd-2   | ${zap}`, zap, undefined],
  ])('%s', (wrapper, raw, text, at) => {
    const line = unwrapLine(raw);
    expect(line.wrappers[0]).toBe(wrapper);
    expect(line.text).toBe(text);
    expect(line.at).toBe(at);
  });

  it('leaves bare etcd lines alone (zap, capnslog, raft) and names the prefix as the source', () => {
    for (const raw of [
      zap,
      '2020-10-20 12:15:22.088482 W | etcdserver: failed to send out heartbeat on time',
      'raft2020/10/20 12:15:02 INFO: raft.node: 2c4a elected leader 7a1f at term 41',
    ])
      expect(unwrapLine(raw)).toEqual({ text: raw, wrappers: [] });
    expect(unwrapLine(`[pod/etcd-master-3/etcd] ${zap}`)).toMatchObject({
      source: 'etcd-master-3',
      container: 'etcd',
    });
    expect(unwrapLine('2024-01-31T16:54:41.675186Z stdout P part')).toMatchObject({
      partial: true,
      text: 'part',
    });
  });
});

describe('analyze: each format hand-written from its documentation names the cause', () => {
  it.each([
    [
      'capnslog-etcd-2.log',
      'slow-disk',
      ['capnslog-etcd-2'],
      /3 × slow fdatasync, up to 2\.0 s, 12:15:22–12:16:03/,
    ],
    [
      'journald-master-2.log',
      'slow-disk',
      ['journald-master-2'],
      /14 × slow fdatasync, up to 4\.0 s, 12:26:12–12:26:27/,
    ],
    ['zap-etcd-1.log', 'clock-skew', ['b366cbcd316c915f'], /clock is 10\.5 s off from zap-etcd-1/],
    [
      'docker-etcd-1.log',
      'leader-churn',
      [],
      /6 leader changes in docker-etcd-1's log \(09:02:00–09:08:00\)/,
    ],
    ['cri-etcd-3.log', 'db-quota', ['cri-etcd-3'], /cri-etcd-3 logged 2 × NOSPACE line, 08:54:41–08:54:42/],
    [
      'goreman.log',
      'member-down',
      ['etcd2'],
      /^etcd2 is down \(etcd logs\): its log ends at 12:26:12 and etcd1 and etcd3 lost it/,
    ],
    [
      'kubectl-prefix.log',
      'peer-network',
      ['etcd-master-3', 'etcd-master-1'],
      /cannot be reached on the peer port/,
    ],
    // klog (k8s.io/klog header: Lmmdd hh:mm:ss.uuuuuu threadid file:line]) behind kubectl --timestamps
    [
      'kube-controller-manager.log',
      'control-plane-restarts',
      [],
      /^kube-controller-manager lost its leader-election lease 2 times \(logs: leaderelection lost\)/,
    ],
  ])('%s: %s', async (file, cause, members, summary) => {
    const report = await analyzePaths([fixture(file)]);
    expect(report.findings[0]).toMatchObject({ cause, members });
    expect(report.findings[0]?.summary).toMatch(summary);
    expect(report.kind).toBe('analyze');
    expect(report.source).toEqual([expect.objectContaining({ kind: 'log', path: fixture(file) })]);
    // Never a rule whose cause the logs found: that one was evaluated, from the logs.
    const notEvaluated = report.notEvaluated?.map((n) => n.rule);
    expect(notEvaluated).toEqual(expect.arrayContaining(['quorum-lost', 'slow-reads']));
    expect(notEvaluated).not.toContain(cause);
  });

  it('a slow disk before the leader changes: the timeline says so, sorted by first seen', async () => {
    const report = await analyzePaths([fixture('capnslog-etcd-2.log')]);
    const signals = report.timeline.map((t) => t.signal);
    expect(signals.indexOf('leaderElected')).toBeLessThan(signals.indexOf('slowFdatasync'));
    expect(report.timeline.find((t) => t.signal === 'slowFdatasync')).toEqual({
      signal: 'slowFdatasync',
      member: 'capnslog-etcd-2',
      firstSeenAt: '2020-10-20T12:15:22.088Z',
      lastSeenAt: '2020-10-20T12:16:03.000Z',
      count: 3,
      maxSeconds: 2.01,
    });
    const firsts = report.timeline.map((t) => t.firstSeenAt);
    expect(firsts).toEqual([...firsts].sort());
  });

  it('an etcd log and a controller-manager log: the slow disk explains the restarts', async () => {
    const report = await analyzePaths([
      fixture('capnslog-etcd-2.log'),
      fixture('kube-controller-manager.log'),
    ]);
    expect(report.findings.map((f) => [f.cause, f.causedBy])).toEqual([
      ['slow-disk', null],
      ['control-plane-restarts', 'slow-disk'],
    ]);
    expect(report.findings[1]?.evidence[0]).toBe(
      'kube-controller-manager: 2 × leaderelection lost, 12:15:35–12:16:45; 2 × failed to renew lease; 2 × etcdserver: request timed out',
    );
  });

  it('live-only rules say offline in --explain', async () => {
    const report = await analyzePaths([fixture('zap-etcd-1.log')], { explain: true });
    expect(report.explain?.find((t) => t.rule === 'clock-skew')).toMatchObject({
      skipped: true,
      explain: ['not evaluated: offline (it needs the member clocks, read now)'],
    });
  });
});

describe('analyze: several files, stdin, bad input', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'etcd-doctor-analyze-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('each file is a member named after it, and ids resolve to those names', async () => {
    const a = join(dir, 'etcd-1.log');
    const b = join(dir, 'etcd-3.log');
    await writeFile(a, await (await import('node:fs/promises')).readFile(fixture('zap-etcd-1.log')));
    await writeFile(
      b,
      '{"level":"info","ts":"2024-05-14T08:30:00.300Z","caller":"etcdserver/raft.go:448","msg":"starting local member","local-member-id":"b366cbcd316c915f","cluster-id":"9f3b8a6e1c2d4f50"}\n',
    );
    const report = await analyzePaths([a, b]);
    expect(report.findings[0]).toMatchObject({ cause: 'clock-skew', members: ['etcd-3'] });
    expect(report.findings[0]?.summary).toMatch(/^etcd-3's clock is 10\.5 s off from etcd-1/);
    expect(report.source.map((s) => s.path)).toEqual([a, b]);
  });

  it('files of the same name are named after their folders', async () => {
    const lab = join(import.meta.dirname, '../../fixtures/offline/lab/member-down');
    const paths: string[] = [];
    for (const m of ['etcd-1', 'etcd-2', 'etcd-3']) {
      await mkdir(join(dir, m), { recursive: true });
      await copyFile(join(lab, `${m}.log`), join(dir, m, 'etcd.log'));
      paths.push(join(dir, m, 'etcd.log'));
    }
    const report = await analyzePaths(paths);
    expect(report.findings[0]).toMatchObject({ cause: 'member-down', members: ['etcd-2'] });
    expect(report.findings[0]?.summary).toMatch(/etcd-1 and etcd-3 lost it/);
  });

  it('a few late heartbeats are not a slow disk: the leader churn they came with is the root cause', async () => {
    const { readFile } = await import('node:fs/promises');
    const late =
      '2022-03-01 09:05:00.100000 W | etcdserver: failed to send out heartbeat on time (exceeded the 100ms timeout for 240ms, to b366cbcd316c915f)\n';
    const path = join(dir, 'etcd-1.log');
    await writeFile(path, `${await readFile(fixture('docker-etcd-1.log'), 'utf8')}${late}${late}`);
    const report = await analyzePaths([path]);
    expect(report.findings.map((f) => f.cause)).toEqual(['leader-churn']);
  });

  it('reads - from stdin', async () => {
    const { readFile } = await import('node:fs/promises');
    const stdin = Readable.from([await readFile(fixture('journald-master-2.log'))]);
    const report = await analyzePaths(['-'], { stdin });
    expect(report.findings[0]).toMatchObject({ cause: 'slow-disk', members: ['stdin'] });
    expect(report.cluster).toBe('stdin');
  });

  it('says what to do instead, in one line', async () => {
    const empty = join(dir, 'empty.log');
    const nginx = join(dir, 'nginx.log');
    await writeFile(empty, '');
    await writeFile(nginx, '127.0.0.1 - - [17/Aug/2023:12:26:12 +0000] "GET / HTTP/1.1" 200 612\n');
    await expect(analyzePaths([empty])).rejects.toThrow(/empty\.log is empty: give the etcd log itself/);
    await expect(analyzePaths([nginx])).rejects.toThrow(
      "no etcd log lines found: is this the etcd container's log?",
    );
    // It names what it tried and quotes the first lines it could not read.
    await expect(analyzePaths([nginx])).rejects.toThrow(
      /tried etcd's zap JSON and console, capnslog, Go's log, raft's and klog lines, .*; first lines: "127\.0\.0\.1 - - \[17\/Aug\/2023:12:26:12 \+0000\] \\"GET \/ HTTP\/1\.1\\" 200 612"\)$/,
    );
    await expect(analyzePaths([join(dir, 'nope.log')])).rejects.toThrow(
      /nope\.log: no such file or directory$/,
    );
    await expect(analyzePaths([dir])).rejects.toThrow(
      /is a directory but neither a must-gather nor a kubectl cluster-info dump/,
    );
    await expect(analyzePaths(['-'])).rejects.toThrow(/there is no stdin here/);
    await expect(analyzePaths([])).rejects.toMatchObject({
      name: 'OfflineInputError',
      code: 'command_invalid',
    });
  });

  it('a clean etcd log is not a verdict: status unknown, nothing found', async () => {
    const clean = join(dir, 'clean.log');
    await writeFile(
      clean,
      '{"level":"info","ts":"2024-05-14T08:30:00.000Z","caller":"embed/etcd.go:308","msg":"starting an etcd server","name":"etcd-1"}\n',
    );
    const report = await analyzePaths([clean]);
    expect(report.status).toBe('unknown');
    expect(report.findings).toEqual([]);
    expect(report.members).toEqual([]);
  });
});

describe('analyze -: kubectl cluster-info dump piped in', () => {
  it('is read as a dump, not as a log', async () => {
    const pod = {
      kind: 'Pod',
      apiVersion: 'v1',
      metadata: {
        name: 'etcd-master-2',
        namespace: 'kube-system',
        labels: { component: 'etcd', tier: 'control-plane' },
      },
      spec: {
        nodeName: 'master-2',
        containers: [
          {
            name: 'etcd',
            command: ['etcd', '--name=master-2', '--data-dir=/var/lib/etcd'],
            volumeMounts: [{ name: 'etcd-data', mountPath: '/var/lib/etcd' }],
          },
        ],
        volumes: [{ name: 'etcd-data', hostPath: { path: '/var/lib/etcd', type: 'DirectoryOrCreate' } }],
      },
      status: { phase: 'Running' },
    };
    const { readFile } = await import('node:fs/promises');
    const log = (await readFile(fixture('zap-etcd-1.log'), 'utf8')).replaceAll('etcd-1', 'master-2');
    const dump = [
      JSON.stringify({ kind: 'NodeList', apiVersion: 'v1', items: [] }, null, 4),
      JSON.stringify({ kind: 'PodList', apiVersion: 'v1', items: [pod] }, null, 4),
      '==== START logs for container etcd of pod kube-system/etcd-master-2 ====',
      log.trimEnd(),
      '==== END logs for container etcd of pod kube-system/etcd-master-2 ====',
      '',
    ].join('\n');
    const report = await analyzePaths(['-'], { stdin: Readable.from([Buffer.from(dump)]) });
    expect(report.source).toEqual([expect.objectContaining({ kind: 'cluster-info-dump', path: '-' })]);
    expect(report.findings[0]).toMatchObject({ cause: 'clock-skew', members: ['b366cbcd316c915f'] });
    expect(report.findings[0]?.summary).toMatch(/off from master-2/);
  });
});
