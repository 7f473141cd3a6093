import {
  type BboltFile,
  BRANCH_PAGE,
  LEAF_PAGE,
  MAX_WALK_HELD_BYTES,
  PAGE_HEADER_BYTES,
  type Page,
} from './bbolt-file.js';

/*
 * bbolt's B+tree (go.etcd.io/bbolt page.go, bucket.go): a page's elements follow its header, 16
 * bytes each; `pos` counts from the element itself.
 * - branch element: pos u32, ksize u32, pgid u64 (the child page);
 * - leaf element: flags u32, pos u32, ksize u32, vsize u32; flags 0x01 marks a nested bucket,
 *   whose value is a bucket header (root pgid u64, sequence u64). Root 0 means an inline bucket:
 *   its page follows the header inside the value.
 */
const ELEMENT_BYTES = 16;
const BUCKET_LEAF = 0x01;
const BUCKET_HEADER_BYTES = 16;
/** A B+tree of 4 KiB pages holds billions of keys in 8 levels; deeper is a damaged branch (and would nest generators without bound). */
const MAX_DEPTH = 32;

export interface LeafEntry {
  key: Buffer;
  value: Buffer;
  isBucket: boolean;
}

/** Where a bucket's tree starts: a page of the file, or a page held inline in its parent's value. */
export type BucketRoot = { pgid: number } | { inline: Buffer };

/** A nested bucket's value (its header) as a root, or undefined when the value is too short. */
export function bucketRoot(value: Buffer): BucketRoot | undefined {
  if (value.length < BUCKET_HEADER_BYTES) return undefined;
  const pgid = Number(value.readBigUInt64LE(0));
  return pgid === 0 ? { inline: value.subarray(BUCKET_HEADER_BYTES) } : { pgid };
}

/**
 * Every leaf entry of a bucket, in key order, reading one page at a time. Throws SnapshotError
 * (via file.corrupt or file.insane) for a page that is neither branch nor leaf, an element past its
 * page's end, a page reached twice or overlapping another, and for a path from the bucket's root
 * whose pages hold more than MAX_WALK_HELD_BYTES at once (each level is held while its children are read).
 */
export async function* walkBucket(
  file: BboltFile,
  root: BucketRoot,
  name: string,
): AsyncGenerator<LeafEntry> {
  async function* visit(page: Page, depth: number, heldBytes: number): AsyncGenerator<LeafEntry> {
    if (page.flags & LEAF_PAGE) {
      yield* leafEntries(file, page, name);
      return;
    }
    if (!(page.flags & BRANCH_PAGE))
      throw file.corrupt(
        `page ${page.pgid} of the ${name} bucket is neither a branch nor a leaf page (flags 0x${page.flags.toString(16)})`,
      );
    for (const child of branchChildren(file, page, name)) {
      if (depth >= MAX_DEPTH)
        throw file.corrupt(`the ${name} bucket's tree is deeper than ${MAX_DEPTH} levels at page ${child}`);
      const next = await file.page(
        child,
        `the ${name} bucket's page ${page.pgid}`,
        MAX_WALK_HELD_BYTES - heldBytes,
      );
      yield* visit(next, depth + 1, heldBytes + next.buf.length);
    }
  }
  const top =
    'inline' in root
      ? inlinePage(file, root.inline, name)
      : await file.page(root.pgid, `the ${name} bucket`, MAX_WALK_HELD_BYTES);
  yield* visit(top, 0, top.buf.length);
}

/**
 * The bucket's last entry in key order (etcd's key bucket: the newest revision), reading only the
 * pages down its rightmost branch: a few pages whatever the bucket's size. Undefined when empty.
 */
export async function lastEntry(
  file: BboltFile,
  root: BucketRoot,
  name: string,
): Promise<LeafEntry | undefined> {
  let page =
    'inline' in root
      ? inlinePage(file, root.inline, name)
      : await file.page(root.pgid, `the ${name} bucket`, MAX_WALK_HELD_BYTES);
  for (let depth = 0; !(page.flags & LEAF_PAGE); depth++) {
    if (!(page.flags & BRANCH_PAGE))
      throw file.corrupt(
        `page ${page.pgid} of the ${name} bucket is neither a branch nor a leaf page (flags 0x${page.flags.toString(16)})`,
      );
    const child = branchChildren(file, page, name).at(-1);
    if (child === undefined) return undefined;
    if (depth >= MAX_DEPTH)
      throw file.corrupt(`the ${name} bucket's tree is deeper than ${MAX_DEPTH} levels at page ${child}`);
    page = await file.page(child, `the ${name} bucket's page ${page.pgid}`, MAX_WALK_HELD_BYTES);
  }
  let last: LeafEntry | undefined;
  for (const entry of leafEntries(file, page, name)) last = entry;
  return last;
}

function inlinePage(file: BboltFile, buf: Buffer, name: string): Page {
  if (buf.length < PAGE_HEADER_BYTES) throw file.corrupt(`the inline ${name} bucket is cut short`);
  return { pgid: 0, flags: buf.readUInt16LE(8), count: buf.readUInt16LE(10), buf };
}

function* leafEntries(file: BboltFile, page: Page, name: string): Generator<LeafEntry> {
  const { buf } = page;
  for (let i = 0; i < page.count; i++) {
    const at = PAGE_HEADER_BYTES + i * ELEMENT_BYTES;
    if (at + ELEMENT_BYTES > buf.length) throw elementPast(file, page, name, i);
    const start = at + buf.readUInt32LE(at + 4);
    const ksize = buf.readUInt32LE(at + 8);
    const end = start + ksize + buf.readUInt32LE(at + 12);
    if (end > buf.length) throw elementPast(file, page, name, i);
    yield {
      key: buf.subarray(start, start + ksize),
      value: buf.subarray(start + ksize, end),
      isBucket: (buf.readUInt32LE(at) & BUCKET_LEAF) !== 0,
    };
  }
}

function branchChildren(file: BboltFile, page: Page, name: string): number[] {
  const { buf } = page;
  const children: number[] = [];
  for (let i = 0; i < page.count; i++) {
    const at = PAGE_HEADER_BYTES + i * ELEMENT_BYTES;
    if (at + ELEMENT_BYTES > buf.length) throw elementPast(file, page, name, i);
    children.push(Number(buf.readBigUInt64LE(at + 8)));
  }
  return children;
}

function elementPast(file: BboltFile, page: Page, name: string, i: number) {
  const where = page.pgid === 0 ? `the inline ${name} bucket` : `page ${page.pgid} of the ${name} bucket`;
  return file.corrupt(`element ${i} of ${where} lies past the page's end`);
}
