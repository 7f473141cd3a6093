import { open } from 'node:fs/promises';
import { BboltFile } from './bbolt-file.js';
import { bucketRoot, lastEntry, walkBucket } from './bbolt-bucket.js';
import { decodeKeyValue, parseRevision } from './mvcc.js';
import { SnapshotError } from './snapshot-error.js';
import { bboltBytes, checkSha256Trailer, hasSha256Trailer } from './snapshot-trailer.js';

/** What a snapshot says about itself: the `snapshot` object of `analyze snapshot.db --json`. */
export interface SnapshotSummary {
  /** The store's revision: the newest revision in the `key` bucket, or the compaction's if that is newer. */
  revision: number;
  /** The SHA-256 trailer of `etcdctl snapshot save` matches; null when there is none (a member's `member/snap/db`). */
  hashOk: boolean | null;
  /** Live keys at `revision` (deleted keys not counted), as `etcdctl get "" --prefix --keys-only` lists them. */
  totalKeys: number;
  sizeBytes: number;
  /** `finishedCompactRev`, or null when the store was never compacted. */
  compactRevision: number | null;
  /** `scheduledCompactRev`, or null. */
  scheduledCompactRevision: number | null;
  /** The raft index last applied (`consistent_index`), or null. */
  consistentIndex: number | null;
  pageSize: number;
}

export interface ReadSnapshotOptions {
  /**
   * `all` (default): every page of the key bucket is parsed. `newest`: with a SHA-256 trailer, only
   * the pages down to the newest revision; the trailer vouches for every byte (a snapshot without
   * one is parsed whole all the same). verifySnapshot only: readSnapshot needs every key.
   */
  pages?: 'all' | 'newest';
  /**
   * Stops the read (the page walk and the SHA-256 stream) with the signal's reason: a caller that
   * checks many files bounds the time spent on each (src/probes/backups.ts).
   */
  signal?: AbortSignal;
}

export interface SnapshotReading {
  snapshot: SnapshotSummary;
  /** Each live key (latin1, one char per byte) with its key + value bytes. */
  keys: Map<string, number>;
}

/**
 * Reads an etcd snapshot (`etcdctl snapshot save`) or a member's `member/snap/db` page by page with
 * positioned reads, never the whole file. Throws SnapshotError, naming what is wrong, for a file
 * that is not a snapshot, truncated, or damaged where it must be parsed; a damaged byte elsewhere
 * is `hashOk: false`.
 */
export async function readSnapshot(path: string, opts: ReadSnapshotOptions = {}): Promise<SnapshotReading> {
  const keys = new Map<string, number>();
  const s = await readStore(path, opts, keys);
  return {
    snapshot: {
      revision: s.revision,
      hashOk: s.hashOk,
      totalKeys: keys.size,
      sizeBytes: s.sizeBytes,
      compactRevision: s.compactRevision,
      scheduledCompactRevision: s.scheduledCompactRevision,
      consistentIndex: s.consistentIndex,
      pageSize: s.pageSize,
    },
    keys,
  };
}

/** What a snapshot says about itself, but its live keys. */
export type SnapshotCheckSummary = Omit<SnapshotSummary, 'totalKeys'>;

/**
 * The same read as readSnapshot (every page of the key bucket parsed, the SHA-256 trailer hashed),
 * without keeping the live keys: memory stays at the page cache (16 MiB) however large the
 * snapshot, for checking backups in a worker (src/probes/backup-snapshots.ts).
 */
export function verifySnapshot(path: string, opts: ReadSnapshotOptions = {}): Promise<SnapshotCheckSummary> {
  return readStore(path, opts, undefined);
}

/** The newest revision: from the last key alone when the trailer vouches for the rest, else from every revision. */
async function newestRevisionOf(
  db: BboltFile,
  header: Buffer,
  opts: ReadSnapshotOptions,
  keys: Map<string, number> | undefined,
  trailer: boolean,
): Promise<number> {
  if (keys || opts.pages !== 'newest' || !trailer) return liveKeys(db, header, opts.signal, keys);
  const root = bucketRoot(header);
  if (!root) throw db.corrupt('the key bucket header is cut short');
  const last = await lastEntry(db, root, 'key');
  if (!last) return 0;
  const rev = parseRevision(last.key);
  if (!rev) throw notRevision(db, last.key);
  return rev.main;
}

function notRevision(db: BboltFile, key: Buffer) {
  return db.corrupt(
    `the key bucket holds an entry that is no etcd revision (key 0x${key.subarray(0, 18).toString('hex')})`,
  );
}

/** The read itself; live keys go into `keys` when given. */
async function readStore(
  path: string,
  opts: ReadSnapshotOptions,
  keys: Map<string, number> | undefined,
): Promise<SnapshotCheckSummary> {
  const file = await open(path, 'r');
  try {
    const sizeBytes = (await file.stat()).size;
    const db = await BboltFile.open(file, path, bboltBytes(sizeBytes));
    // The trailer is hashed as a stream while the pages are walked.
    const hashing = checkSha256Trailer(path, file, sizeBytes, opts.signal);
    hashing.catch(() => {});
    try {
      const buckets = await rootBuckets(db);
      const keyBucket = buckets.found.get('key');
      if (!keyBucket)
        throw new SnapshotError(
          `${path} is a bbolt database but not etcd's: it has no key bucket (buckets: ${buckets.names.join(', ') || 'none'})`,
        );
      const newestRevision = await newestRevisionOf(db, keyBucket, opts, keys, hasSha256Trailer(sizeBytes));
      const meta = buckets.found.get('meta');
      const m = meta ? await metaValues(db, meta) : new Map<string, Buffer>();
      const compactRevision = revisionOf(m.get('finishedCompactRev'));
      return {
        revision: Math.max(newestRevision, compactRevision ?? 0),
        hashOk: await hashing,
        sizeBytes,
        compactRevision,
        scheduledCompactRevision: revisionOf(m.get('scheduledCompactRev')),
        consistentIndex: uint64Of(m.get('consistent_index')),
        pageSize: db.meta.pageSize,
      };
    } catch (err) {
      // A page that breaks parsing and a hash that does not match are one story: say both.
      if (err instanceof SnapshotError && (await hashing.catch(() => null)) === false)
        throw new SnapshotError(`${err.message} (and its SHA-256 trailer does not match)`, { cause: err });
      throw err;
    }
  } finally {
    await file.close();
  }
}

/** The buckets read: etcd's `key` and `meta`. Others (lease, members, auth...) are only named. */
const ROOT_BUCKETS = new Set(['key', 'meta']);
/** Other buckets' names kept for the message of a file with no key bucket, each cut short. */
const NAMED_BUCKETS = 8;
const NAME_CHARS = 40;

/** The key and meta buckets' headers (copied: a leaf entry holds its whole page), and a few other names. */
async function rootBuckets(db: BboltFile): Promise<{ found: Map<string, Buffer>; names: string[] }> {
  const found = new Map<string, Buffer>();
  const names: string[] = [];
  for await (const entry of walkBucket(db, { pgid: db.meta.rootPgid }, 'root')) {
    if (!entry.isBucket) continue;
    const name = entry.key.subarray(0, NAME_CHARS).toString('latin1');
    if (ROOT_BUCKETS.has(name) && entry.key.length === name.length) found.set(name, Buffer.from(entry.value));
    else if (names.length < NAMED_BUCKETS) names.push(entry.key.length > NAME_CHARS ? `${name}…` : name);
  }
  return { found, names: [...found.keys(), ...names] };
}

/**
 * Revisions in order: the newest write of each key wins, and a tombstone deletes it (into `keys`,
 * when given). Returns the newest revision.
 */
async function liveKeys(
  db: BboltFile,
  header: Buffer,
  signal: AbortSignal | undefined,
  keys: Map<string, number> | undefined,
): Promise<number> {
  const root = bucketRoot(header);
  if (!root) throw db.corrupt('the key bucket header is cut short');
  let newestRevision = 0;
  let seen = 0;
  for await (const { key, value } of walkBucket(db, root, 'key')) {
    // Every 4096 revisions: a check costs nothing next to the page reads between two.
    if ((++seen & 0xfff) === 0) signal?.throwIfAborted();
    const rev = parseRevision(key);
    const kv = rev && decodeKeyValue(value);
    if (!rev || !kv) throw notRevision(db, key);
    newestRevision = Math.max(newestRevision, rev.main);
    if (!keys) continue;
    const name = kv.key.toString('latin1');
    if (rev.tombstone) keys.delete(name);
    else keys.set(name, kv.key.length + kv.valueBytes);
  }
  return newestRevision;
}

/** The meta bucket's values read, each a uint64 or a revision (17 bytes). */
const META_KEYS = new Set(['finishedCompactRev', 'scheduledCompactRev', 'consistent_index']);
const META_VALUE_BYTES = 17;

async function metaValues(db: BboltFile, header: Buffer): Promise<Map<string, Buffer>> {
  const root = bucketRoot(header);
  if (!root) throw db.corrupt('the meta bucket header is cut short');
  const values = new Map<string, Buffer>();
  for await (const { key, value } of walkBucket(db, root, 'meta')) {
    const name = key.toString('latin1', 0, 32);
    if (META_KEYS.has(name) && value.length <= META_VALUE_BYTES) values.set(name, Buffer.from(value));
  }
  return values;
}

function revisionOf(bytes: Buffer | undefined): number | null {
  const rev = bytes && parseRevision(bytes);
  return rev ? rev.main : null;
}

function uint64Of(bytes: Buffer | undefined): number | null {
  return bytes?.length === 8 ? Number(bytes.readBigUInt64BE(0)) : null;
}
