import { copyFile, mkdtemp, readFile, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Etcd3 } from 'etcd3';
import { analyzePaths } from '../../../src/offline/analyze.js';
import type { SnapshotReport } from '../../../src/offline/snapshot/analyze-snapshot.js';
import { readSnapshot, verifySnapshot } from '../../../src/etcd/snapshot/read-snapshot.js';
import { cliInProcess } from '../../support/process/cli-in-process.js';
import { type EtcdLab, startEtcdLab } from '../../support/lab/etcd-lab.js';

const BIG_KEY = '/registry/configmaps/kube-system/big-bundle';
const BIG_BYTES = 300_000;

/** Kubernetes-shaped keys: the resource each key prefix is, as the test wrote them. */
const RESOURCES: Array<[string, string]> = [
  ['/registry/events/', 'events'],
  ['/registry/configmaps/', 'configmaps'],
  ['/registry/pods/', 'pods'],
  ['/registry/example.com/widgets/', 'widgets.example.com'],
];

async function writeKeys(client: Etcd3): Promise<void> {
  const fill = (n: number, c: string) => c.repeat(n);
  for (let i = 0; i < 80; i++) await client.put(`/registry/events/ns-${i % 4}/ev-${i}`).value(fill(400, 'e'));
  for (let i = 0; i < 30; i++) await client.put(`/registry/pods/ns-${i % 3}/pod-${i}`).value(fill(3000, 'p'));
  for (let i = 0; i < 20; i++)
    await client.put(`/registry/configmaps/ns-${i % 2}/cm-${i}`).value(fill(1000 + i * 100, 'c'));
  for (let i = 0; i < 5; i++)
    await client.put(`/registry/example.com/widgets/ns-0/w-${i}`).value(fill(2000, 'w'));
  await client.put(BIG_KEY).value(`${fill(BIG_BYTES / 2, 'b')}MARKER${fill(BIG_BYTES / 2 - 6, 'b')}`);
  // Overwritten: the newest value counts, smaller or larger.
  for (let i = 0; i < 10; i++)
    await client.put(`/registry/configmaps/ns-${i % 2}/cm-${i}`).value(fill(i % 2 ? 50 : 9000, 'C'));
  // Deleted: gone from the count; the last write before the compaction is a delete.
  for (let i = 0; i < 25; i++) await client.delete().key(`/registry/events/ns-${i % 4}/ev-${i}`);
}

/** What etcd itself says: live keys with their key + value bytes, per resource. */
async function livePerResource(client: Etcd3): Promise<Map<string, { keys: number; bytes: number }>> {
  const all = await client.getAll().prefix('/').buffers();
  const per = new Map<string, { keys: number; bytes: number }>();
  for (const [key, value] of Object.entries(all)) {
    const resource = RESOURCES.find(([p]) => key.startsWith(p))?.[1] ?? 'other';
    const t = per.get(resource) ?? { keys: 0, bytes: 0 };
    per.set(resource, { keys: t.keys + 1, bytes: t.bytes + Buffer.byteLength(key) + value.length });
  }
  return per;
}

describe('analyze snapshot.db on a real etcd snapshot', () => {
  let lab: EtcdLab;
  let dir: string;
  let snap: string;
  let compacted: string;
  let compactedRevision: number;
  const save = async (path: string) => {
    const saved = await lab.etcdctl(['snapshot', 'save', path, `--endpoints=${lab.endpoints[0]}`], {
      timeoutMs: 30_000,
    });
    expect(saved.code).toBe(0);
  };
  let expected: {
    revision: number;
    totalKeys: number;
    perResource: Map<string, { keys: number; bytes: number }>;
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'etcd-doctor-snapshot-'));
    lab = await startEtcdLab({ size: 1 });
    const client = new Etcd3({ hosts: lab.endpoints });
    try {
      await writeKeys(client);
      const before = JSON.parse((await lab.etcdctl(['endpoint', 'status', '-w', 'json'])).stdout) as Array<{
        Status: { header: { revision: number } };
      }>;
      const rev = before[0]?.Status.header.revision ?? 0;
      expect((await lab.etcdctl(['compact', String(rev), '--physical'])).code).toBe(0);
      // The deletes just compacted away leave the key bucket's newest revision behind the store's.
      compacted = join(dir, 'compacted.db');
      await save(compacted);
      compactedRevision = rev;
      // Deleted after the compaction: tombstones in the snapshot.
      for (let i = 25; i < 28; i++) await client.delete().key(`/registry/events/ns-${i % 4}/ev-${i}`);
      await client.put('/registry/pods/ns-0/pod-0').value('p'.repeat(2500));
      snap = join(dir, 'snapshot.db');
      await save(snap);
      const status = JSON.parse(
        (await lab.etcdctl(['endpoint', 'status', '-w', 'json'])).stdout,
      ) as typeof before;
      const keysOnly = await lab.etcdctl(['get', '', '--prefix', '--keys-only']);
      expected = {
        revision: status[0]?.Status.header.revision ?? -1,
        totalKeys: keysOnly.stdout.split('\n').filter((l) => l.length > 0).length,
        perResource: await livePerResource(client),
      };
    } finally {
      client.close();
    }
  }, 120_000);

  afterAll(async () => {
    await lab?.destroy();
    await rm(dir, { recursive: true, force: true });
  });

  it('--json: revision and key count as etcdctl says, the SHA-256 trailer checked, the ranking by bytes', async () => {
    const r = await cliInProcess(['analyze', snap, '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as SnapshotReport;
    expect(expected.totalKeys).toBe(80 - 28 + 30 + 20 + 5 + 1);
    expect(report.snapshot).toMatchObject({
      revision: expected.revision,
      hashOk: true,
      totalKeys: expected.totalKeys,
      sizeBytes: (await stat(snap)).size,
      compactRevision: compactedRevision,
    });
    const want = [...expected.perResource.entries()]
      .sort((a, b) => b[1].bytes - a[1].bytes)
      .map(([resource, t]) => ({ resource, keys: t.keys, bytes: t.bytes }));
    expect(report.space.byResource.map(({ resource, keys, bytes }) => ({ resource, keys, bytes }))).toEqual(
      want,
    );
    expect(report.space.byResource.map((x) => x.resource)).toEqual([
      'configmaps',
      'pods',
      'events',
      'widgets.example.com',
    ]);
    expect(report.space.largest[0]).toEqual({
      key: BIG_KEY,
      bytes: BIG_KEY.length + BIG_BYTES,
      resource: 'configmaps',
    });
    // ns-3 held ev-3, ev-7, … ev-79 (20); ev-3 … ev-23 were deleted before the compaction, ev-27 after.
    const ns3 = [...Array(20).keys()].map((i) => 4 * i + 3).filter((i) => i > 27);
    expect(report.space.byNamespace).toContainEqual({
      resource: 'events',
      namespace: 'ns-3',
      keys: 13,
      bytes: ns3.reduce((n, i) => n + `/registry/events/ns-3/ev-${i}`.length + 400, 0),
    });
  });

  it('a snapshot whose newest writes were deletes compacted away: the revision is the compaction', async () => {
    const { snapshot } = await readSnapshot(compacted);
    expect(snapshot).toMatchObject({
      revision: compactedRevision,
      compactRevision: compactedRevision,
      hashOk: true,
    });
    expect(snapshot.totalKeys).toBe(80 - 25 + 30 + 20 + 5 + 1);
  });

  it('verifySnapshot: the same revision and hash without the keys, by every page or by the newest only', async () => {
    for (const path of [snap, compacted]) {
      const { snapshot } = await readSnapshot(path);
      const { totalKeys: _keys, ...rest } = snapshot;
      await expect(verifySnapshot(path)).resolves.toEqual(rest);
      await expect(verifySnapshot(path, { pages: 'newest' })).resolves.toEqual(rest);
    }
    // A flipped byte in a value: the newest-only read still says so, through the trailer.
    const bytes = await readFile(snap);
    bytes[bytes.indexOf('MARKER')] = 'Y'.charCodeAt(0);
    const flipped = join(dir, 'flipped-verify.db');
    await writeFile(flipped, bytes);
    await expect(verifySnapshot(flipped, { pages: 'newest' })).resolves.toMatchObject({ hashOk: false });
  });

  it('text: a short answer naming the revision, the keys, the hash and the largest object', async () => {
    const r = await cliInProcess(['analyze', snap]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      new RegExp(
        `^Snapshot snapshot\\.db: revision ${expected.revision}, ${expected.totalKeys} keys, .* SHA-256 ok`,
      ),
    );
    expect(r.stdout).toMatch(/By resource[^\n]*\n {2}configmaps +\d+ /);
    expect(r.stdout).toContain(`300 KB  ${BIG_KEY}`);
  });

  it('one flipped byte in a value: hashOk false, the report, and one line saying the file is damaged (exit 2)', async () => {
    const bytes = await readFile(snap);
    const at = bytes.indexOf('MARKER');
    expect(at).toBeGreaterThan(0);
    bytes[at] = 'X'.charCodeAt(0);
    const flipped = join(dir, 'flipped.db');
    await writeFile(flipped, bytes);
    const r = await cliInProcess(['analyze', flipped, '--json']);
    expect(r.code).toBe(2);
    expect((JSON.parse(r.stdout) as SnapshotReport).snapshot.hashOk).toBe(false);
    expect(r.stderr).toMatch(/^etcd-doctor: \S+flipped\.db is damaged: its SHA-256 trailer does not match/);
  });

  it('a damaged page: one line naming the page, and the hash mismatch', async () => {
    const bytes = await readFile(snap);
    const rootPgid = Number(bytes.readBigUInt64LE(32)); // meta: magic, version, pageSize, flags, root
    const pageSize = bytes.readUInt32LE(24);
    bytes.writeUInt16LE(0, rootPgid * pageSize + 8); // the root page's flags
    const broken = join(dir, 'broken.db');
    await writeFile(broken, bytes);
    const r = await cliInProcess(['analyze', broken]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `etcd-doctor: ${broken} is corrupted: page ${rootPgid} of the root bucket is neither a branch nor a leaf page (flags 0x0) (and its SHA-256 trailer does not match)`,
    );
  });

  it('any single damaged byte: a reading or a SnapshotError naming the file, never another exception', async () => {
    const good = await readFile(snap);
    const rootPage = Number(good.readBigUInt64LE(32)); // meta: magic, version, pageSize, flags, root
    const pageSize = good.readUInt32LE(24);
    const copy = join(dir, 'fuzzed.db');
    let refused = 0;
    for (let n = 0; n < 300; n++) {
      const bytes = Buffer.from(good);
      // A third on the root bucket's page, always parsed: its flags byte set to a page type that is
      // neither branch nor leaf (meta, freelist or none), which must be refused whatever this run's
      // page layout. A third flips a bit in the first pages (metas, the buckets' upper pages), a
      // third anywhere.
      const onRoot = n % 3 === 0;
      const at = onRoot
        ? rootPage * pageSize + 8
        : n % 3 === 1
          ? (n * 7919) % (8 * pageSize)
          : (n * 104_729) % bytes.length;
      bytes[at] = onRoot ? ([0x00, 0x04, 0x10, 0x40][n % 4] ?? 0) : (bytes[at] ?? 0) ^ (1 << (n % 8));
      await writeFile(copy, bytes);
      const read = await readSnapshot(copy).then(
        (r) => r.snapshot,
        (err: Error) => err,
      );
      if (read instanceof Error) {
        refused++;
        expect({ at, name: read.name, message: read.message }).toMatchObject({
          name: 'SnapshotError',
          message: expect.stringContaining(copy),
        });
      } else expect({ at, hashOk: read.hashOk }).toEqual({ at, hashOk: false });
    }
    expect(refused).toBeGreaterThanOrEqual(100);
  });

  it('a truncated copy and a file that is no snapshot: one line each, exit 2', async () => {
    const cut = join(dir, 'cut.db');
    await copyFile(snap, cut);
    await truncate(cut, Math.floor((await stat(snap)).size / 2) + 100);
    const r = await cliInProcess(['analyze', cut]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^etcd-doctor: \S+cut\.db is truncated: its meta page says \d+ pages of 4096 bytes \(\d+ bytes\) but the file holds \d+; copy the snapshot again$/,
    );
    const junk = join(dir, 'junk.db');
    await writeFile(junk, Buffer.alloc(20_000, 7));
    const j = await cliInProcess(['analyze', junk]);
    expect(j.code).toBe(2);
    expect(j.stderr).toMatch(/junk\.db is not an etcd snapshot: it has no bbolt meta page/);
  });

  it('a snapshot with logs, or given to the log reader itself (analyzePaths): refused in one line', async () => {
    const both = await cliInProcess(['analyze', snap, join(dir, 'compacted.db')]);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/are snapshots: analyze one snapshot at a time, on its own$/);
    await expect(analyzePaths([snap])).rejects.toThrow(
      /snapshot\.db is an etcd snapshot \(bbolt\): give it alone/,
    );
  });

  it("the member's own member/snap/db reads alike, with hashOk null", async () => {
    // The snapshot committed every write to the member's db; nothing was written since.
    await lab.kill('etcd-1');
    const memberDb = join(dir, 'db');
    await copyFile(join(lab.member('etcd-1').dataDir, 'member', 'snap', 'db'), memberDb);
    const { snapshot, keys } = await readSnapshot(memberDb);
    expect(snapshot).toMatchObject({
      revision: expected.revision,
      hashOk: null,
      totalKeys: expected.totalKeys,
    });
    expect(keys.get(BIG_KEY)).toBe(BIG_KEY.length + BIG_BYTES);
    const r = await cliInProcess(['analyze', memberDb]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('no SHA-256 trailer');
  });
});
