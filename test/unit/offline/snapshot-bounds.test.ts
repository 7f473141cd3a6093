import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readSnapshot } from '../../../src/etcd/snapshot/read-snapshot.js';
import { type SnapshotBombOptions, writeSnapshotBomb } from '../../support/offline/snapshot-bomb.js';

/**
 * The snapshot reader holds what a sane bbolt file can make it hold, whatever the file says: a page
 * at most as large as its kind can be, no page read twice or overlapping another, and at most
 * 80 MiB of pages from a bucket's root down to the page being read. Crafted files (issue 38, H1)
 * get one short line; the largest pages bbolt makes still read.
 */

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'etcd-doctor-snapshot-bounds-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function read(name: string, opts: SnapshotBombOptions) {
  const path = join(dir, name);
  await writeSnapshotBomb(path, opts);
  return readSnapshot(path).then(
    (r) => r.snapshot,
    (err: Error) => err,
  );
}

/** The error's message, checked to be one short line: what a user is shown. */
function refusal(read: unknown): string {
  if (!(read instanceof Error)) throw new Error(`read, not refused: ${JSON.stringify(read)}`);
  expect(read.name).toBe('SnapshotError');
  expect(read.message).not.toContain('\n');
  expect(read.message.length).toBeLessThanOrEqual(300);
  return read.message;
}

describe('crafted files: one line saying the file is no sane bbolt file', () => {
  it("the review's bomb: 33 branch pages, each overflowing to the end of a 64 MiB file (~33x the file held before)", async () => {
    expect(refusal(await read('bomb.db', {}))).toBe(
      `${join(dir, 'bomb.db')} is not a sane bbolt file: page 4 (the key bucket) spans 64 MiB, over the 1 MiB a branch page holds; copy the snapshot again`,
    );
  });

  it('branch pages of 1 MiB each, each inside the one above: the second overlaps the first', async () => {
    expect(refusal(await read('overlap.db', { spanPages: 256 }))).toBe(
      `${join(dir, 'overlap.db')} is not a sane bbolt file: page 5 (the key bucket's page 4) overlaps a page read before (at page 5), and bbolt pages never overlap; copy the snapshot again`,
    );
  });

  it('pages that never overlap but add up: 32 branch pages of 1 MiB above a 64 MiB leaf', async () => {
    const message = refusal(
      await read('tall.db', {
        fileBytes: 128 * 1024 ** 2,
        spanPages: 256,
        stridePages: 256,
        leafSpanPages: 16384,
      }),
    );
    expect(message).toMatch(
      /is not a sane bbolt file: page 8196 \(the key bucket's page 7940\) spans 64 MiB: with the 32 MiB of pages above it, over the 80 MiB one walk holds; copy the snapshot again$/,
    );
  });
});

describe('the largest pages bbolt makes still read', () => {
  it('a 64 MiB leaf (one value of etcd at its largest request and more) below the bucket root', async () => {
    const read1 = await read('big-leaf.db', { fileBytes: 65 * 1024 ** 2, levels: 1, leafSpanPages: 16384 });
    expect(read1).toMatchObject({ revision: 0, totalKeys: 0, hashOk: null });
  });

  it('32 levels of 1 MiB branch pages above a 16 MiB leaf: 48 MiB held, under the walk budget', async () => {
    const read2 = await read('deep.db', {
      fileBytes: 64 * 1024 ** 2,
      spanPages: 256,
      stridePages: 256,
      leafSpanPages: 4096,
    });
    expect(read2).toMatchObject({ revision: 0, totalKeys: 0 });
  });
});
