import { mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  createBackupSnapshotsProbe,
  createSnapshotCheckCache,
  createSnapshotReadSlots,
  globToRegExp,
} from '../../../src/probes/backup-snapshots.js';
import { runProbe } from '../../../src/probes/probe.js';
import { writeSnapshotBomb } from '../../support/offline/snapshot-bomb.js';

describe('globToRegExp', () => {
  it.each([
    ['*.db', 'etcd-2026.db', true],
    ['*.db', 'etcd.db.part', false],
    ['etcd-??.db', 'etcd-01.db', true],
    ['etcd-??.db', 'etcd-1.db', false],
    ['snap(1).db', 'snap(1).db', true],
    ['a.b', 'axb', false],
  ])('%s matches %s: %s', (pattern, name, matches) => {
    expect(globToRegExp(pattern).test(name)).toBe(matches);
  });
});

describe('the backup directory probe', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'etcd-doctor-backup-probe-'));
    // Not snapshots: junk with a .db name, read and reported as damaged; a .txt, not listed.
    await writeFile(join(dir, 'junk.db'), Buffer.alloc(9000, 7));
    await writeFile(join(dir, 'notes.txt'), 'x');
    const old = new Date(Date.now() - 3600_000);
    await utimes(join(dir, 'junk.db'), old, old);
    await writeFile(join(dir, 'empty.db'), '');
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  // Each file is read in a process of its own: ~0.2 s from dist/, 1-2.5 s through tsx (these tests) on
  // the shared host; a diagnosis gives a file 10 s (collect-backups.ts).
  const run = (d: string, slots = createSnapshotReadSlots(), totalMs = 20_000) =>
    runProbe(
      createBackupSnapshotsProbe(25_000),
      {
        dir: d,
        pattern: '*.db',
        budget: { totalMs, perFileMs: 10_000, until: 'all', pages: 'all' },
        cache: createSnapshotCheckCache(),
        slots,
        now: Date.now,
      },
      { subject: 'cluster prod' },
    );

  it('lists matching files newest first and says what is wrong with each', async () => {
    const outcome = await run(dir);
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect(outcome.data.matched).toBe(2);
    expect(outcome.data.snapshots.map((s) => [s.file, s.state, s.error])).toEqual([
      ['empty.db', 'damaged', expect.stringMatching(/^not an etcd snapshot: it has no bbolt meta page/)],
      ['junk.db', 'damaged', expect.stringMatching(/^not an etcd snapshot: it has no bbolt meta page/)],
    ]);
  });

  it('a directory that is not there: the probe fails naming it and the config field', async () => {
    const outcome = await run(join(dir, 'missing'));
    expect(outcome).toMatchObject({
      ok: false,
      failure: {
        kind: 'error',
        message: `cluster prod: the backup directory ${join(dir, 'missing')} (backups.dir) does not exist here (is the volume mounted in the worker?)`,
      },
    });
  });

  it('no read slot free within the budget: the files are unchecked, said so, and the probe ends on time', async () => {
    const slots = createSnapshotReadSlots(1);
    let release = () => {};
    const busy = slots.execute(() => new Promise<void>((resolve) => (release = resolve)));
    const started = Date.now();
    const outcome = await run(dir, slots, 300);
    release();
    await busy;
    expect(Date.now() - started).toBeLessThan(2000);
    expect(outcome.ok && outcome.data.snapshots.map((s) => [s.file, s.state, s.error])).toEqual([
      ['empty.db', 'unchecked', "not read: the check's 0.3 s ran out"],
      ['junk.db', 'unchecked', "not read: the check's 0.3 s ran out"],
    ]);
  });
});

describe('a crafted snapshot in the backup directory (issue 38, H1)', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'etcd-doctor-backup-bomb-'));
    await writeSnapshotBomb(join(dir, 'etcd-2026.db'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('is read in a process of its own and called damaged, in one short line, within its time', async () => {
    const outcome = await runProbe(
      createBackupSnapshotsProbe(15_000),
      {
        dir,
        pattern: '*.db',
        budget: { totalMs: 10_000, perFileMs: 8000, until: 'all', pages: 'all' },
        cache: createSnapshotCheckCache(),
        slots: createSnapshotReadSlots(),
        now: Date.now,
      },
      { subject: 'cluster prod' },
    );
    expect(outcome.ok && outcome.data.snapshots.map((s) => [s.file, s.state, s.error])).toEqual([
      [
        'etcd-2026.db',
        'damaged',
        'not a sane bbolt file: page 4 (the key bucket) spans 64 MiB, over the 1 MiB a branch page holds; copy the snapshot again',
      ],
    ]);
  });
});
