import type { FileHandle } from 'node:fs/promises';
import { formatBytes } from '../../format.js';
import { SnapshotError } from './snapshot-error.js';

/*
 * bbolt's on-disk format (go.etcd.io/bbolt page.go, db.go), little-endian as etcd's platforms write it:
 * - every page starts with a 16-byte header: id u64, flags u16, count u16, overflow u32; a page
 *   spans (overflow + 1) * pageSize bytes;
 * - pages 0 and 1 are meta pages: magic u32, version u32, pageSize u32, flags u32, root bucket
 *   (root pgid u64, sequence u64), freelist pgid u64, pgid u64 (pages in use), txid u64, checksum
 *   u64 (FNV-64a of the 56 bytes before it). The valid one with the higher txid is current.
 */
export const BBOLT_MAGIC = 0xed0cdaed;
const BBOLT_VERSION = 2;
export const PAGE_HEADER_BYTES = 16;
export const BRANCH_PAGE = 0x01;
export const LEAF_PAGE = 0x02;
const META_PAGE = 0x04;
const META_CHECKSUMMED_BYTES = 56;
/** The page sizes a meta page 1 is looked for at when meta page 0 is damaged (4 KiB on x86, 64 KiB on some arm64/ppc64). */
const PAGE_SIZES = [4096, 8192, 16384, 32768, 65536];
const NOT_FOUND = 'it was not found';
/** Reads go by 1 MiB blocks, 16 kept (16 MiB). */
const BLOCK_BYTES = 1024 * 1024;
const CACHED_BLOCKS = 16;
/*
 * What one page may span, overflow included. bbolt splits a node once it passes a page (node.go
 * split, spill), so only large elements make a page overflow: a branch page's are keys, at most
 * 32 KiB each (MaxKeySize), and a node keeps at least 2 of them; a leaf's are values, at most what
 * etcd took in one request (--max-request-bytes, 1.5 MiB by default; etcd warns past 10 MiB).
 */
export const MAX_BRANCH_PAGE_BYTES = 1024 * 1024;
export const MAX_LEAF_PAGE_BYTES = 64 * 1024 * 1024;

export interface BboltMeta {
  pageSize: number;
  rootPgid: number;
  /** Pages in use (the high-water mark): the data is pgid * pageSize bytes. */
  pgid: number;
  txid: number;
}

export interface Page {
  pgid: number;
  flags: number;
  count: number;
  /** The whole page, header included, overflow pages too. */
  buf: Buffer;
}

/** FNV-64a, as bbolt checksums its meta pages. */
export function fnv64a(bytes: Uint8Array): bigint {
  let hash = 0xcbf29ce484222325n;
  for (const b of bytes) hash = BigInt.asUintN(64, (hash ^ BigInt(b)) * 0x100000001b3n);
  return hash;
}

/** What a meta page says, or why it cannot be used. */
export function parseMeta(page: Buffer): BboltMeta | string {
  if (page.length < PAGE_HEADER_BYTES + 64) return 'it is cut short';
  const m = page.subarray(PAGE_HEADER_BYTES);
  if (m.readUInt32LE(0) !== BBOLT_MAGIC) return 'it has no bbolt magic';
  if ((page.readUInt16LE(8) & META_PAGE) === 0) return 'it is not marked as a meta page';
  if (m.readUInt32LE(4) !== BBOLT_VERSION) return `it is bbolt version ${m.readUInt32LE(4)}, not 2`;
  if (fnv64a(m.subarray(0, META_CHECKSUMMED_BYTES)) !== m.readBigUInt64LE(META_CHECKSUMMED_BYTES))
    return 'its checksum does not match';
  return {
    pageSize: m.readUInt32LE(8),
    rootPgid: Number(m.readBigUInt64LE(16)),
    pgid: Number(m.readBigUInt64LE(40)),
    txid: Number(m.readBigUInt64LE(48)),
  };
}

/** True when the first bytes are a bbolt meta page (the magic, whatever its checksum says). */
export function hasBboltMagic(head: Buffer): boolean {
  return head.length >= PAGE_HEADER_BYTES + 4 && head.readUInt32LE(PAGE_HEADER_BYTES) === BBOLT_MAGIC;
}

/**
 * A bbolt file read page by page with positioned reads; never the whole file. Every page is read
 * at most once and no two pages share a byte (bbolt never lets them), so a walk reads at most the
 * file; a page spans at most MAX_BRANCH_PAGE_BYTES or MAX_LEAF_PAGE_BYTES, and at most the bytes
 * its caller may still hold.
 */
export class BboltFile {
  /** Recently read blocks, oldest first (a Map keeps insertion order): at most CACHED_BLOCKS * BLOCK_BYTES held. */
  private readonly blocks = new Map<number, Buffer>();
  /** A bit per page in use: set once the page was read, itself or as another's overflow. */
  private readonly claimed: Uint8Array;
  /** A bit per page in use: set once a page starting there was read. */
  private readonly starts: Uint8Array;

  private constructor(
    private readonly file: FileHandle,
    readonly path: string,
    readonly meta: BboltMeta,
  ) {
    this.claimed = new Uint8Array(Math.ceil(meta.pgid / 8));
    this.starts = new Uint8Array(this.claimed.length);
  }

  /** Opens the current meta page; throws SnapshotError when neither meta page is usable or the file is cut short. */
  static async open(file: FileHandle, path: string, dataBytes: number): Promise<BboltFile> {
    const meta = await currentMeta(file, path);
    const needed = meta.pgid * meta.pageSize;
    if (dataBytes < needed)
      throw new SnapshotError(
        `${path} is truncated: its meta page says ${meta.pgid} pages of ${meta.pageSize} bytes (${needed} bytes) but the file holds ${dataBytes}; copy the snapshot again`,
      );
    return new BboltFile(file, path, meta);
  }

  /**
   * Page `pgid` with its overflow pages, spanning at most `maxBytes`; throws SnapshotError for a page
   * out of range or with a bad header, and for one no sane bbolt file holds: larger than its kind
   * of page can be or than `maxBytes`, or sharing a page with one read before.
   */
  async page(pgid: number, what: string, maxBytes: number): Promise<Page> {
    const { pageSize, pgid: pages } = this.meta;
    if (!Number.isSafeInteger(pgid) || pgid < 2 || pgid >= pages)
      throw this.corrupt(`${what} points to page ${pgid}, outside the ${pages} pages in use`);
    let buf = await this.read(pgid * pageSize, pageSize);
    const overflow = buf.readUInt32LE(12);
    if (Number(buf.readBigUInt64LE(0)) !== pgid)
      throw this.corrupt(`page ${pgid} (${what}) has the id ${buf.readBigUInt64LE(0)} in its header`);
    if (pgid + overflow >= pages)
      throw this.corrupt(`page ${pgid} (${what}) overflows past the ${pages} pages in use`);
    this.assertSane(pgid, what, buf.readUInt16LE(8), (overflow + 1) * pageSize, maxBytes);
    this.claim(pgid, overflow, what);
    if (overflow > 0) buf = await this.read(pgid * pageSize, (overflow + 1) * pageSize);
    return { pgid, flags: buf.readUInt16LE(8), count: buf.readUInt16LE(10), buf };
  }

  corrupt(detail: string): SnapshotError {
    return new SnapshotError(`${this.path} is corrupted: ${detail}`);
  }

  /** A page no bbolt file holds: said as such, before a byte of its span is read. */
  insane(detail: string): SnapshotError {
    return new SnapshotError(`${this.path} is not a sane bbolt file: ${detail}; copy the snapshot again`);
  }

  private assertSane(pgid: number, what: string, flags: number, spanBytes: number, maxBytes: number): void {
    const [kind, limit] =
      flags & BRANCH_PAGE ? ['branch', MAX_BRANCH_PAGE_BYTES] : ['leaf', MAX_LEAF_PAGE_BYTES];
    if (spanBytes > limit)
      throw this.insane(
        `page ${pgid} (${what}) spans ${formatBytes(spanBytes, 'binary')}, over the ${formatBytes(limit, 'binary')} a ${kind} page holds`,
      );
    if (spanBytes > maxBytes)
      throw this.insane(
        `page ${pgid} (${what}) spans ${formatBytes(spanBytes, 'binary')}: with the ${formatBytes(MAX_WALK_HELD_BYTES - maxBytes, 'binary')} of pages above it, over the ${formatBytes(MAX_WALK_HELD_BYTES, 'binary')} one walk holds`,
      );
  }

  /** Marks the page and its overflow as read; a page read before, or sharing a page with another, is refused. */
  private claim(pgid: number, overflow: number, what: string): void {
    if (isSet(this.starts, pgid)) throw this.corrupt(`page ${pgid} (${what}) is reached twice`);
    for (let p = pgid; p <= pgid + overflow; p++)
      if (isSet(this.claimed, p))
        throw this.insane(
          `page ${pgid} (${what}) overlaps a page read before (at page ${p}), and bbolt pages never overlap`,
        );
    set(this.starts, pgid);
    for (let p = pgid; p <= pgid + overflow; p++) set(this.claimed, p);
  }

  /** From a small cache of aligned blocks: a page at a time costs a system call each, and pages cluster. */
  private async read(offset: number, length: number): Promise<Buffer> {
    const block = Math.floor(offset / BLOCK_BYTES);
    if (Math.floor((offset + length - 1) / BLOCK_BYTES) !== block) return this.readDirect(offset, length);
    let cached = this.blocks.get(block);
    if (cached) this.blocks.delete(block);
    else cached = await this.readBlock(block);
    this.blocks.set(block, cached);
    if (this.blocks.size > CACHED_BLOCKS) this.blocks.delete(this.blocks.keys().next().value as number);
    const start = offset - block * BLOCK_BYTES;
    if (start + length > cached.length)
      throw new SnapshotError(`${this.path} is truncated: it ends inside the page at byte ${offset}`);
    return cached.subarray(start, start + length);
  }

  private async readBlock(block: number): Promise<Buffer> {
    const buf = Buffer.allocUnsafe(BLOCK_BYTES);
    const { bytesRead } = await this.file.read(buf, 0, BLOCK_BYTES, block * BLOCK_BYTES);
    return buf.subarray(0, bytesRead);
  }

  private async readDirect(offset: number, length: number): Promise<Buffer> {
    const buf = Buffer.allocUnsafe(length);
    const { bytesRead } = await this.file.read(buf, 0, length, offset);
    if (bytesRead < length)
      throw new SnapshotError(`${this.path} is truncated: it ends inside the page at byte ${offset}`);
    return buf;
  }
}

const isSet = (bits: Uint8Array, i: number) => ((bits[i >> 3] ?? 0) & (1 << (i & 7))) !== 0;
function set(bits: Uint8Array, i: number): void {
  bits[i >> 3] = (bits[i >> 3] ?? 0) | (1 << (i & 7));
}

/** The pages from a bucket's root down to the one being read, held at once by a walk: at most this. */
export const MAX_WALK_HELD_BYTES = 80 * 1024 * 1024;

async function readAt(file: FileHandle, offset: number, length: number): Promise<Buffer> {
  const buf = Buffer.alloc(length);
  const { bytesRead } = await file.read(buf, 0, length, offset);
  return buf.subarray(0, bytesRead);
}

/** bbolt's rule: the valid meta page with the higher txid. Meta page 1 sits one page in. */
async function currentMeta(file: FileHandle, path: string): Promise<BboltMeta> {
  const head = await readAt(file, 0, PAGE_HEADER_BYTES + 64);
  const meta0 = parseMeta(head);
  const sizes = typeof meta0 === 'string' ? PAGE_SIZES : [meta0.pageSize];
  let meta1: BboltMeta | string = NOT_FOUND;
  for (const size of sizes) {
    const found = await readAt(file, size, PAGE_HEADER_BYTES + 64);
    if (!hasBboltMagic(found)) continue;
    meta1 = parseMeta(found);
    break;
  }
  const valid = [meta0, meta1].filter((m): m is BboltMeta => typeof m !== 'string');
  const best = valid.sort((a, b) => b.txid - a.txid)[0];
  if (best && PAGE_SIZES.includes(best.pageSize)) return best;
  if (!hasBboltMagic(head) && meta1 === NOT_FOUND)
    throw new SnapshotError(
      `${path} is not an etcd snapshot: it has no bbolt meta page (magic 0xED0CDAED); give a file from etcdctl snapshot save or a member's member/snap/db`,
    );
  const said = (m: BboltMeta | string) => (typeof m === 'string' ? m : 'its page size is not one bbolt uses');
  throw new SnapshotError(
    `${path} is corrupted: both bbolt meta pages are damaged (page 0: ${said(meta0)}; page 1: ${said(meta1)}); copy the snapshot again`,
  );
}
