// Plain helpers, usable outside Jest too (bench/ and a shell measure the same file).
import { writeFile } from 'node:fs/promises';
import { fnv64a } from '../../../src/etcd/snapshot/bbolt-file.js';

/*
 * A crafted bbolt file, written byte by byte the way go.etcd.io/bbolt lays one out (page.go,
 * db.go): the reader under test is the only judge of it, so nothing here imports its parsing.
 * Page header: id u64, flags u16, count u16, overflow u32. Meta: magic, version 2, pageSize,
 * flags, root bucket (pgid u64, sequence u64), freelist pgid, pgid (pages in use), txid, FNV-64a.
 */
const PAGE_SIZE = 4096;
const BRANCH = 0x01;
const LEAF = 0x02;
const META = 0x04;
const FREELIST = 0x10;
const BUCKET_LEAF = 0x01;
const ELEMENT_BYTES = 16;
const ROOT_PAGE = 3;
const KEY_BUCKET_ROOT = 4;

function header(file: Buffer, pgid: number, flags: number, count: number, overflow: number): void {
  const at = pgid * PAGE_SIZE;
  file.writeBigUInt64LE(BigInt(pgid), at);
  file.writeUInt16LE(flags, at + 8);
  file.writeUInt16LE(count, at + 10);
  file.writeUInt32LE(overflow, at + 12);
}

function meta(file: Buffer, pgid: number, pages: number, txid: number): void {
  header(file, pgid, META, 0, 0);
  const m = pgid * PAGE_SIZE + 16;
  file.writeUInt32LE(0xed0cdaed, m);
  file.writeUInt32LE(2, m + 4);
  file.writeUInt32LE(PAGE_SIZE, m + 8);
  file.writeBigUInt64LE(BigInt(ROOT_PAGE), m + 16);
  file.writeBigUInt64LE(2n, m + 32);
  file.writeBigUInt64LE(BigInt(pages), m + 40);
  file.writeBigUInt64LE(BigInt(txid), m + 48);
  file.writeBigUInt64LE(fnv64a(file.subarray(m, m + 56)), m + 56);
}

/** The root bucket's leaf page: one nested bucket, `key`, whose tree starts at KEY_BUCKET_ROOT. */
function rootBucket(file: Buffer): void {
  header(file, ROOT_PAGE, LEAF, 1, 0);
  const at = ROOT_PAGE * PAGE_SIZE + 16;
  const key = Buffer.from('key');
  file.writeUInt32LE(BUCKET_LEAF, at);
  file.writeUInt32LE(ELEMENT_BYTES, at + 4);
  file.writeUInt32LE(key.length, at + 8);
  file.writeUInt32LE(16, at + 12);
  key.copy(file, at + ELEMENT_BYTES);
  file.writeBigUInt64LE(BigInt(KEY_BUCKET_ROOT), at + ELEMENT_BYTES + key.length);
}

export interface SnapshotBombOptions {
  /** The file's size (default 64 MiB). */
  fileBytes?: number;
  /** Pages on the path from the key bucket's root down: branches, then one empty leaf (default 33). */
  levels?: number;
  /** Pages each level spans, overflow included (default: to the file's last page). */
  spanPages?: number;
  /** Pages the leaf at the bottom spans (default spanPages). */
  leafSpanPages?: number;
  /** Pages from one level's page to the next's (default 1: each inside the one above). */
  stridePages?: number;
}

/**
 * The review's snapshot bomb (issue 38, H1): the key bucket is a chain of branch pages, one child
 * each, `levels` deep, ending in an empty leaf. By default every page's overflow reaches the file's
 * last page, so each span holds the next page's header, and every page id is in range, read once,
 * and within the depth limit: a reader that holds a buffer per level holds ~levels x the file.
 * Mostly zeros: 64 MiB gzips to ~65 KB. `spanPages` and `stridePages` make the variants (spans
 * that overlap but are small; spans that do not overlap but add up).
 */
export async function writeSnapshotBomb(path: string, opts: SnapshotBombOptions = {}): Promise<number> {
  const pages = Math.floor((opts.fileBytes ?? 64 * 1024 ** 2) / PAGE_SIZE);
  const levels = opts.levels ?? 33;
  const stride = opts.stridePages ?? 1;
  const file = Buffer.alloc(pages * PAGE_SIZE);
  meta(file, 0, pages, 1);
  meta(file, 1, pages, 2);
  header(file, 2, FREELIST, 0, 0);
  rootBucket(file);
  for (let level = 0; level < levels; level++) {
    const pgid = KEY_BUCKET_ROOT + level * stride;
    const last = level === levels - 1;
    const span = Math.min((last ? opts.leafSpanPages : undefined) ?? opts.spanPages ?? pages, pages - pgid);
    header(file, pgid, last ? LEAF : BRANCH, last ? 0 : 1, span - 1);
    // A branch element: pos, ksize (no key), the child's pgid.
    if (!last) file.writeBigUInt64LE(BigInt(pgid + stride), pgid * PAGE_SIZE + 16 + 8);
  }
  await writeFile(path, file);
  return file.length;
}

/**
 * A bbolt file whose root bucket holds one nested bucket with a name of `nameChars` characters (and
 * no `key` bucket): its name, spilling over the root page's overflow pages, is untrusted text the
 * refusal ("not etcd's: it has no key bucket (buckets: …)") would quote (issue 38, H2).
 */
export async function writeLongBucketName(path: string, nameChars: number): Promise<number> {
  const name = Buffer.from('b'.repeat(nameChars));
  const rootBytes = 16 + ELEMENT_BYTES + name.length + 16;
  const overflow = Math.ceil(rootBytes / PAGE_SIZE) - 1;
  const bucketPage = ROOT_PAGE + overflow + 1;
  const pages = bucketPage + 1;
  const file = Buffer.alloc(pages * PAGE_SIZE);
  meta(file, 0, pages, 1);
  meta(file, 1, pages, 2);
  header(file, 2, FREELIST, 0, 0);
  header(file, ROOT_PAGE, LEAF, 1, overflow);
  const at = ROOT_PAGE * PAGE_SIZE + 16;
  file.writeUInt32LE(BUCKET_LEAF, at);
  file.writeUInt32LE(ELEMENT_BYTES, at + 4);
  file.writeUInt32LE(name.length, at + 8);
  file.writeUInt32LE(16, at + 12);
  name.copy(file, at + ELEMENT_BYTES);
  file.writeBigUInt64LE(BigInt(bucketPage), at + ELEMENT_BYTES + name.length);
  header(file, bucketPage, LEAF, 0, 0);
  await writeFile(path, file);
  return file.length;
}
