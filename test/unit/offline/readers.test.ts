import { mkdtemp, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { OfflineInputError } from '../../../src/errors.js';
import {
  readClusterInfoDumpStream,
  readCollection,
  sniffCollection,
} from '../../../src/offline/readers/index.js';
import { loadKubeFixture } from '../../support/kube/kube-fixtures.js';
import {
  clusterInfoDumpFiles,
  clusterInfoDumpStdout,
  containerLogs,
  MG_ROOT,
  mustGatherFiles,
  withTimestamps,
  writeTarball,
  writeTree,
} from '../../support/offline/offline-fixtures.js';
import { recordingSink } from '../../support/process/recording-sink.js';

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'etcd-doctor-readers-'));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

const linesOf = (text: string) => text.split('\n').filter((l, i, all) => l !== '' || i < all.length - 1);

describe('must-gather', () => {
  const scenario = 'openshift-4.14-healthy';
  const fixture = loadKubeFixture(scenario);

  async function expectWholeMustGather(path: string) {
    expect(await sniffCollection(path)).toBe('must-gather');
    const rec = recordingSink();
    const summary = await readCollection(path, rec.sink);
    expect(summary).toMatchObject({ kind: 'must-gather', path, skipped: 0 });
    expect(rec.skipped).toEqual([]);

    const etcd = rec.logOf('etcd-master-0', 'etcd');
    expect(etcd?.meta).toEqual({
      source: 'namespaces/openshift-etcd/pods/etcd-master-0/etcd/etcd/logs/current.log',
      namespace: 'openshift-etcd',
      pod: 'etcd-master-0',
      container: 'etcd',
      node: 'master-0',
      previous: false,
    });
    const text = fixture.readText('logs/openshift-etcd/etcd-master-0/etcd.log') ?? '';
    expect(etcd?.lines).toEqual(linesOf(withTimestamps(text, fixture.recordedAtMs)));
    expect(etcd?.lines[0]).toMatch(/^2024-05-14T08:30:00\.000000000Z \{"level":"info"/);
    expect(rec.logs).toHaveLength(containerLogs(fixture).length);

    // each pod once, though the must-gather holds it in core/pods.yaml and in pods/<pod>/<pod>.yaml
    expect(
      rec
        .ofKind('Pod')
        .map((p) => p.metadata?.name)
        .sort(),
    ).toEqual(fixture.objects.pods.map((p) => p.metadata.name).sort());
    expect(
      rec
        .ofKind('Node')
        .map((n) => n.metadata?.name)
        .sort(),
    ).toEqual(['master-0', 'master-1', 'master-2']);
    expect(rec.ofKind('Event')).toHaveLength(fixture.objects.events.length);
    expect(rec.ofKind('Lease')).toHaveLength(fixture.objects.leases.length);
    expect(rec.ofKind('Etcd').map((e) => e.metadata?.name)).toEqual(['cluster']);
    expect(rec.ofKind('ConfigMap')).toEqual([]);

    expect([...rec.etcdInfo.keys()].sort()).toEqual([
      'alarm_list',
      'endpoint_health',
      'endpoint_status',
      'member_list',
    ]);
    // the IDs the logs announce (0x4e2a1c7f9b3d5e60, ...), exact: JSON.parse would round them
    const members = (rec.etcdInfo.get('member_list') as { members: Array<{ ID: unknown; name: string }> })
      .members;
    expect(members.map((m) => [m.name, m.ID])).toEqual([
      ['master-0', '5632345618371141216'],
      ['master-1', '8835004873388674177'],
      ['master-2', '13966759721272788182'],
    ]);
    expect(summary.entries).toBeGreaterThan(rec.logs.length);
    return rec;
  }

  test('a must-gather directory is read whole: logs with their pod, container and node, objects once, etcd_info', async () => {
    const dir = await writeTree(join(tmp, 'mg-dir'), mustGatherFiles(scenario));
    await expectWholeMustGather(dir);
  });

  test('its .tar.gz gives the same, entry by entry, and so does a plain .tar', async () => {
    const files = mustGatherFiles(scenario);
    const gz = await writeTarball(join(tmp, 'must-gather.tar.gz'), files);
    const fromGz = await expectWholeMustGather(gz);
    const tar = await writeTarball(join(tmp, 'must-gather.tar'), files, { gzip: false });
    const fromTar = await expectWholeMustGather(tar);
    expect(fromTar.logs.map((l) => l.lines.length)).toEqual(fromGz.logs.map((l) => l.lines.length));
  });

  test('previous.log is the container before its restart', async () => {
    const dir = await writeTree(join(tmp, 'mg-kubeadm'), mustGatherFiles('kubeadm-1.29-healthy'));
    const rec = recordingSink();
    await readCollection(dir, rec.sink);
    expect(rec.logOf('etcd-master-2', 'etcd', true)?.meta).toMatchObject({
      previous: true,
      node: 'master-2',
    });
    expect(rec.logOf('etcd-master-2', 'etcd', false)?.meta.previous).toBe(false);
  });

  test('a rotated, gzip-compressed log is decompressed; a binary one is skipped and said so', async () => {
    const { gzipSync } = await import('node:zlib');
    const logs = `${MG_ROOT}/namespaces/openshift-etcd/pods/etcd-master-1/etcd/etcd/logs`;
    const dir = await writeTree(join(tmp, 'mg-rotated'), [
      ...mustGatherFiles(scenario),
      {
        path: `${logs}/rotated/0.log.20240514-083000.gz`,
        content: gzipSync('2024-05-14T08:29:59.000000000Z rotated line\n'),
      },
      {
        path: `${MG_ROOT}/namespaces/openshift-etcd/pods/etcd-master-2/etcd/etcd/logs/current.log`,
        content: Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 0, 1]),
      },
    ]);
    const rec = recordingSink();
    const summary = await readCollection(dir, rec.sink);
    expect(rec.logs.find((l) => l.meta.source.includes('rotated'))?.lines).toEqual([
      '2024-05-14T08:29:59.000000000Z rotated line',
    ]);
    expect(rec.skipped).toEqual([
      {
        source:
          'must-gather.local.5012345678901234567/quay-io-openshift-release-dev-ocp-v4-0-art-dev-sha256-4f1c2a9e/namespaces/openshift-etcd/pods/etcd-master-2/etcd/etcd/logs/current.log',
        reason: 'binary',
      },
    ]);
    expect(summary.skipped).toBe(1);
    expect(rec.logOf('etcd-master-2', 'etcd')).toBeUndefined();
  });
});

describe('kubectl cluster-info dump', () => {
  const scenario = 'kubeadm-1.29-healthy';
  const fixture = loadKubeFixture(scenario);

  function expectWholeDump(rec: ReturnType<typeof recordingSink>) {
    expect(rec.skipped).toEqual([]);
    // typed Lists print their items without kind: each object still says what it is
    expect(rec.ofKind('Node').map((n) => n.metadata?.name)).toEqual(['master-1', 'master-2', 'master-3']);
    expect(rec.ofKind('Node')[0]?.apiVersion).toBe('v1');
    expect(rec.ofKind('Pod')).toHaveLength(fixture.objects.pods.length);
    expect(rec.ofKind('Event')).toHaveLength(fixture.objects.events.length);
    expect(rec.objects.every((o) => ['Node', 'Pod', 'Event'].includes(o.obj.kind))).toBe(true);
    const etcd = rec.logOf('etcd-master-1', 'etcd');
    expect(etcd?.meta).toMatchObject({
      namespace: 'kube-system',
      pod: 'etcd-master-1',
      container: 'etcd',
      node: 'master-1',
      previous: false,
    });
    expect(etcd?.lines).toEqual(linesOf(fixture.readText('logs/kube-system/etcd-master-1/etcd.log') ?? ''));
    const pods = fixture.objects.pods.map((p) => p.metadata.name);
    expect(new Set(rec.logs.map((l) => l.meta.pod))).toEqual(new Set(pods));
  }

  test('the --output-directory tree: nodes.json, <ns>/pods.json and events.json, <ns>/<pod>/logs.txt sections', async () => {
    const dir = await writeTree(join(tmp, 'dump-dir'), clusterInfoDumpFiles(scenario));
    expect(await sniffCollection(dir)).toBe('cluster-info-dump');
    const rec = recordingSink();
    const summary = await readCollection(dir, rec.sink);
    expect(summary).toMatchObject({ kind: 'cluster-info-dump', skipped: 0 });
    expectWholeDump(rec);
  });

  test('the stdout form, in chunks that split lines anywhere, and saved to a file', async () => {
    const text = clusterInfoDumpStdout(scenario);
    const chunks = Array.from({ length: Math.ceil(text.length / 997) }, (_, i) =>
      Buffer.from(text.slice(i * 997, (i + 1) * 997)),
    );
    const rec = recordingSink();
    const summary = await readClusterInfoDumpStream(Readable.from(chunks), rec.sink);
    expect(summary).toMatchObject({ kind: 'cluster-info-dump', path: '-', bytes: Buffer.byteLength(text) });
    expectWholeDump(rec);

    const file = join(tmp, 'cluster-info-dump.txt');
    await writeFile(file, text);
    expect(await sniffCollection(file)).toBe('cluster-info-dump');
    const fromFile = recordingSink();
    await readCollection(file, fromFile.sink);
    expectWholeDump(fromFile);
  });

  test('a log without a final newline: the END marker on its last line still closes the section', async () => {
    const text = [
      '==== START logs for container etcd of pod kube-system/etcd-master-1 ====',
      '{"level":"warn","ts":"2024-05-14T08:30:01.000Z","msg":"slow fdatasync","took":"1.2s"}',
      'last line==== END logs for container etcd of pod kube-system/etcd-master-1 ====',
      '==== START logs for container kube-apiserver of pod kube-system/kube-apiserver-master-1 ====',
      'I0514 08:30:00.000000 1 server.go:1] hello',
      '==== END logs for container kube-apiserver of pod kube-system/kube-apiserver-master-1 ====',
      '',
    ].join('\n');
    const rec = recordingSink();
    await readClusterInfoDumpStream(Readable.from([text]), rec.sink, { source: 'dump.txt' });
    expect(rec.logOf('etcd-master-1', 'etcd')?.lines).toEqual([
      expect.stringContaining('slow fdatasync'),
      'last line',
    ]);
    expect(rec.logOf('kube-apiserver-master-1', 'kube-apiserver')?.lines).toEqual([
      'I0514 08:30:00.000000 1 server.go:1] hello',
    ]);
  });
});

describe('tarball safety', () => {
  const good = `${MG_ROOT}/namespaces/openshift-etcd/pods/etcd-master-0/etcd/etcd/logs/current.log`;
  const line = '2024-05-14T08:30:00.000000000Z {"level":"warn","msg":"slow fdatasync","took":"1.5s"}\n';

  test('../ entries, absolute paths and links that leave the archive are skipped with the reason, never read', async () => {
    const tarball = await writeTarball(join(tmp, 'evil.tar.gz'), [
      { path: `${MG_ROOT}/timestamp`, content: 'now\n' },
      { path: `${MG_ROOT}/../../../namespaces/x/pods/p/c/c/logs/current.log`, content: line },
      { path: '/etc/namespaces/x/pods/p/c/c/logs/current.log', content: line },
      {
        path: `${MG_ROOT}/namespaces/openshift-etcd/pods/etcd-master-1/etcd/etcd/logs/current.log`,
        type: 'symlink',
        linkname: '../../../../../../../../../../etc/shadow',
      },
      {
        path: `${MG_ROOT}/namespaces/openshift-etcd/pods/etcd-master-2/etcd/etcd/logs/current.log`,
        type: 'link',
        linkname: '/etc/passwd',
      },
      { path: good, content: line },
    ]);
    const rec = recordingSink();
    const summary = await readCollection(tarball, rec.sink);
    expect(rec.skipped).toEqual([
      {
        source: `${MG_ROOT}/../../../namespaces/x/pods/p/c/c/logs/current.log`,
        reason: 'outside the archive',
      },
      { source: '/etc/namespaces/x/pods/p/c/c/logs/current.log', reason: 'outside the archive' },
      {
        source: `${MG_ROOT}/namespaces/openshift-etcd/pods/etcd-master-1/etcd/etcd/logs/current.log`,
        reason: 'symlink escapes the archive',
      },
      {
        source: `${MG_ROOT}/namespaces/openshift-etcd/pods/etcd-master-2/etcd/etcd/logs/current.log`,
        reason: 'hardlink escapes the archive',
      },
    ]);
    expect(rec.logs.map((l) => l.meta.pod)).toEqual(['etcd-master-0']);
    expect(summary.skipped).toBe(4);
  });

  test('in a directory, a symlink whose real path leaves the root is skipped; one inside is followed', async () => {
    const outside = join(tmp, 'outside-secret.log');
    await writeFile(outside, 'secret\n');
    const dir = await writeTree(join(tmp, 'mg-links'), [
      { path: good, content: line },
      { path: `${MG_ROOT}/timestamp`, content: 'now\n' },
    ]);
    const { symlink } = await import('node:fs/promises');
    const logsDir = (pod: string) =>
      join(dir, MG_ROOT, 'namespaces/openshift-etcd/pods', pod, 'etcd/etcd/logs');
    await writeTree(logsDir('etcd-master-1'), []);
    const { mkdir } = await import('node:fs/promises');
    await mkdir(logsDir('etcd-master-1'), { recursive: true });
    await mkdir(logsDir('etcd-master-2'), { recursive: true });
    await symlink(outside, join(logsDir('etcd-master-1'), 'current.log'));
    await symlink(
      join(logsDir('etcd-master-0'), 'current.log'),
      join(logsDir('etcd-master-2'), 'current.log'),
    );
    const rec = recordingSink();
    await readCollection(dir, rec.sink);
    expect(rec.skipped).toEqual([
      {
        source: `${MG_ROOT}/namespaces/openshift-etcd/pods/etcd-master-1/etcd/etcd/logs/current.log`,
        reason: 'symlink escapes the directory',
      },
    ]);
    expect(rec.logs.map((l) => l.meta.pod).sort()).toEqual(['etcd-master-0', 'etcd-master-2']);
    expect(rec.logs.flatMap((l) => l.lines)).not.toContain('secret');
  });

  test('a gzip bomb stops at the uncompressed cap, whatever the file size', async () => {
    const { createGzip } = await import('node:zlib');
    const { createWriteStream } = await import('node:fs');
    const { pipeline } = await import('node:stream/promises');
    const tarStream = (await import('tar-stream')).default;
    const entryBytes = 256 * 1024 ** 2; // 256 MiB of log lines, a few hundred KiB compressed
    const path = join(tmp, 'bomb.tar.gz');
    const pack = tarStream.pack();
    const done = pipeline(pack, createGzip({ level: 9 }), createWriteStream(path));
    const entry = pack.entry({ name: good, size: entryBytes });
    const block = Buffer.alloc(1024 * 1024, `${line}`);
    for (let written = 0; written < entryBytes; written += block.length) {
      if (!entry.write(block)) await new Promise((r) => entry.once('drain', () => r(undefined)));
    }
    entry.end(undefined);
    pack.finalize();
    await done;
    expect((await stat(path)).size).toBeLessThan(2 * 1024 ** 2);

    let linesSeen = 0;
    const rec = recordingSink({ onLine: () => linesSeen++ });
    const read = readCollection(path, rec.sink, {
      limits: { maxTotalBytes: 32 * 1024 ** 2, maxLineBytes: 64 * 1024 },
    });
    await expect(read).rejects.toThrow(OfflineInputError);
    await expect(read).rejects.toThrow(/unpacks to more than 32 MiB, over the 32 MiB limit/);
    expect(linesSeen * line.length).toBeLessThan(33 * 1024 ** 2);
  });
});

describe('bad input', () => {
  test('a truncated tarball is corrupt, said so with what to do', async () => {
    const path = await writeTarball(join(tmp, 'truncated.tar.gz'), mustGatherFiles('openshift-4.14-healthy'));
    await truncate(path, Math.floor((await stat(path)).size / 2));
    await expect(readCollection(path, recordingSink().sink)).rejects.toThrow(
      /truncated\.tar\.gz is a corrupt tarball: .*Check it with `tar -tf/,
    );
  });

  test('a tar with a damaged header is corrupt', async () => {
    const path = await writeTarball(join(tmp, 'damaged.tar'), mustGatherFiles('openshift-4.14-healthy'), {
      gzip: false,
    });
    const { open } = await import('node:fs/promises');
    const file = await open(path, 'r+');
    await file.write(Buffer.from('garbage!'), 0, 8, 1024 + 148); // the second header's checksum
    await file.close();
    await expect(readCollection(path, recordingSink().sink)).rejects.toThrow(
      /damaged\.tar is a corrupt tarball/,
    );
  });

  test.each([
    [
      'zip',
      [0x50, 0x4b, 0x03, 0x04],
      /is a zip archive, which etcd-doctor does not read: unzip it and give the directory/,
    ],
    ['xz', [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00], /is xz-compressed.*tar -xJf/],
    ['bzip2', [0x42, 0x5a, 0x68, 0x39], /is bzip2-compressed.*tar -xjf/],
    ['7z', [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c], /is a 7z archive.*7z x/],
  ])(
    'a %s archive (named .tar.gz) is refused by its bytes, saying what to do',
    async (_name, magic, message) => {
      const path = join(tmp, `must-gather-${_name}.tar.gz`);
      await writeFile(path, Buffer.concat([Buffer.from(magic), Buffer.alloc(600, 1)]));
      await expect(sniffCollection(path)).rejects.toThrow(message);
      await expect(readCollection(path, recordingSink().sink)).rejects.toThrow(message);
    },
  );

  test('a gzipped log is a log, not a collection; a plain log is not a collection; a tarball of other things holds neither', async () => {
    const { gzipSync } = await import('node:zlib');
    const gz = join(tmp, 'etcd.log.gz');
    await writeFile(gz, gzipSync('2024-05-14 08:30:02.000000 W | etcdserver: hello\n'.repeat(40)));
    expect(await sniffCollection(gz)).toBeUndefined(); // a compressed log: the log reader's
    await expect(readCollection(gz, recordingSink().sink)).rejects.toThrow(
      /etcd\.log\.gz is a file that is neither/,
    );
    const log = join(tmp, 'etcd.log');
    await writeFile(log, '2024-05-14 08:30:02.000000 W | etcdserver: hello\n');
    expect(await sniffCollection(log)).toBeUndefined();
    const other = await writeTarball(join(tmp, 'photos.tar.gz'), [
      { path: 'photos/cat.txt', content: 'meow\n' },
    ]);
    await expect(sniffCollection(other)).rejects.toThrow(/photos\.tar\.gz is a tarball with no must-gather/);
    await expect(readCollection(other, recordingSink().sink)).rejects.toThrow(
      /is a tarball with no must-gather/,
    );
    await expect(sniffCollection(join(tmp, 'nope'))).rejects.toThrow(
      /cannot read .*nope: no such file or directory/,
    );
  });

  test('an over-long line is cut to maxLineBytes', async () => {
    const long = `2024-05-14T08:30:00.000000000Z ${'x'.repeat(300_000)}`;
    const dir = await writeTree(join(tmp, 'mg-long'), [
      {
        path: `${MG_ROOT}/namespaces/openshift-etcd/pods/etcd-master-0/etcd/etcd/logs/current.log`,
        content: `${long}\nnext\n`,
      },
    ]);
    const rec = recordingSink();
    await readCollection(dir, rec.sink, { limits: { maxTotalBytes: 1024 ** 3, maxLineBytes: 1024 } });
    expect(rec.logs[0]?.lines.map((l) => l.length)).toEqual([1024, 4]);
  });
});

describe('abort', () => {
  test('aborting stops the read promptly: no further stream is handed over', async () => {
    const path = await writeTarball(join(tmp, 'abort.tar.gz'), mustGatherFiles('openshift-4.14-healthy'));
    const controller = new AbortController();
    const rec = recordingSink({ onLine: () => controller.abort(new Error('stopped by the user')) });
    await expect(readCollection(path, rec.sink, { signal: controller.signal })).rejects.toThrow(
      'stopped by the user',
    );
    expect(rec.logs).toHaveLength(1);
    const dir = await writeTree(join(tmp, 'mg-abort'), mustGatherFiles('openshift-4.14-healthy'));
    const again = new AbortController();
    const recDir = recordingSink({ onLine: () => again.abort(new Error('stopped by the user')) });
    await expect(readCollection(dir, recDir.sink, { signal: again.signal })).rejects.toThrow(
      'stopped by the user',
    );
    expect(recDir.logs).toHaveLength(1);
  });

  test('an already aborted signal reads nothing', async () => {
    const dir = await writeTree(join(tmp, 'mg-pre-abort'), mustGatherFiles('openshift-4.14-healthy'));
    const rec = recordingSink();
    await expect(readCollection(dir, rec.sink, { signal: AbortSignal.abort() })).rejects.toThrow(/aborted/i);
    expect(rec.objects).toEqual([]);
  });
});
