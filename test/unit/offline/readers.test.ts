import { mkdtemp, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { OfflineInputError } from '../../../src/offline/collection.js';
import {
  readClusterInfoDumpStream,
  readCollection,
  sniffCollection,
} from '../../../src/offline/readers/index.js';
import { loadKubeFixture } from '../../support/kube-fixtures.js';
import {
  clusterInfoDumpFiles,
  clusterInfoDumpStdout,
  containerLogs,
  MG_ROOT,
  memberId,
  mustGatherFiles,
  withTimestamps,
  writeTarball,
  writeTree,
} from '../../support/offline-fixtures.js';
import { recordingSink } from '../../support/recording-sink.js';

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
    const members = (rec.etcdInfo.get('member_list') as { members: Array<{ ID: unknown; name: string }> })
      .members;
    expect(members.map((m) => [m.name, m.ID])).toEqual(
      ['master-0', 'master-1', 'master-2'].map((n) => [n, memberId(n).toString()]),
    );
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
