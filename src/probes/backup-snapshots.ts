import { opendir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { type BulkheadPolicy, bulkhead } from 'cockatiel';
import { SnapshotError } from '../etcd/snapshot/snapshot-error.js';
import { verifySnapshotIsolated } from '../offline/analyze-isolated.js';
import type { SnapshotCheck, SnapshotDirData } from './backups-evidence.js';
import { formatSeconds, type Probe, ProbeError } from './probe.js';

/** The newest files listed (and, with `until: 'all'`, read): a listing, not an archive. */
export const MAX_SNAPSHOTS_LISTED = 10;
/** Directory entries looked at, at most: a backup volume of years of files is still read in bounded time. */
const MAX_DIR_ENTRIES = 20_000;
/** Checked results kept per process (a file that keeps its size, mtime and inode reads the same). */
const CACHED_CHECKS = 512;

export interface SnapshotCheckBudget {
  /** The whole probe: listing plus reading. Files not reached in time are `unchecked`. */
  totalMs: number;
  /** One file: a larger snapshot than this can hash and walk is `unchecked`, not damaged. */
  perFileMs: number;
  /**
   * `first-good`: read newest first until a good one (what backup-stale needs: a diagnosis);
   * `all`: read every listed file (`/etcd backups`, `etcd-doctor backups`).
   */
  until: 'first-good' | 'all';
  /**
   * `newest`: a snapshot with a SHA-256 trailer is checked by its hash and the pages down to its
   * newest revision; `all`: every page of its key bucket is parsed too (about 3x slower, collect-backups.ts).
   */
  pages: 'all' | 'newest';
}

export interface SnapshotDirContext {
  dir: string;
  pattern: string;
  budget: SnapshotCheckBudget;
  cache: SnapshotCheckCache;
  slots: SnapshotReadSlots;
  now: () => number;
}

/**
 * Snapshot reads at once from a process (cockatiel's bulkhead): each is a process of its own
 * (analyze-isolated.ts, ~55 MiB RSS for the reader's 16 MiB page cache and 1 MiB hash buffer), so a
 * digest of hundreds of clusters with backups reads two at a time instead of hundreds; a cluster
 * whose turn does not come within its budget says so.
 */
export type SnapshotReadSlots = Pick<BulkheadPolicy, 'execute'>;
const READS_AT_ONCE = 2;

export function createSnapshotReadSlots(concurrent = READS_AT_ONCE): SnapshotReadSlots {
  return bulkhead(concurrent, Number.MAX_SAFE_INTEGER);
}

/** A file's check, and whether every page was parsed (`pages: 'all'`). */
export interface CachedCheck {
  check: SnapshotCheck;
  allPages: boolean;
}

/** Results of files already read, by path, size, mtime and inode; a bounded LRU. */
export interface SnapshotCheckCache {
  get(key: string): CachedCheck | undefined;
  set(key: string, entry: CachedCheck): void;
}

export function createSnapshotCheckCache(size = CACHED_CHECKS): SnapshotCheckCache {
  const entries = new Map<string, CachedCheck>();
  return {
    get(key) {
      const found = entries.get(key);
      if (found) {
        entries.delete(key);
        entries.set(key, found);
      }
      return found;
    },
    set(key, entry) {
      entries.delete(key);
      entries.set(key, entry);
      if (entries.size > size) entries.delete(entries.keys().next().value as string);
    },
  };
}

/** `*.db`, `etcd-??.db`: `*` any run of characters, `?` one, the rest literal (config/schema.ts). */
export function globToRegExp(pattern: string): RegExp {
  const body = pattern
    .split('')
    .map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[.+^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${body}$`);
}

interface Listed {
  file: string;
  path: string;
  modifiedAt: number;
  sizeBytes: number;
  key: string;
}

/**
 * The snapshot files in a backup directory, newest first, each read with the snapshot reader
 * (offline/snapshot/): its revision, its SHA-256 trailer, and what is wrong when it does not read.
 * A directory that cannot be read is the probe's failure; a bad file is data.
 */
export function createBackupSnapshotsProbe(timeoutMs: number): Probe<SnapshotDirContext, SnapshotDirData> {
  return {
    kind: 'backups',
    asks: 'list the backup directory',
    timeoutMs,
    async collect(ctx, signal) {
      const started = ctx.now();
      const { listed, matched } = await listSnapshots(ctx.dir, ctx.pattern);
      const snapshots: SnapshotCheck[] = [];
      let done = false;
      for (const entry of listed) {
        const left = ctx.budget.totalMs - (ctx.now() - started);
        const check = done
          ? (ctx.cache.get(entry.key)?.check ?? unread(entry, 'not read: a newer good snapshot was found'))
          : await checkOne(entry, ctx, left, signal);
        snapshots.push(check);
        if (ctx.budget.until === 'first-good' && check.state === 'good') done = true;
      }
      return { dir: ctx.dir, pattern: ctx.pattern, matched, snapshots };
    },
  };
}

async function listSnapshots(dir: string, pattern: string): Promise<{ listed: Listed[]; matched: number }> {
  const match = globToRegExp(pattern);
  const found: Listed[] = [];
  let seen = 0;
  const handle = await opendir(dir).catch((err: unknown) => {
    throw dirError(dir, err);
  });
  for await (const entry of handle) {
    // Leaving the loop early closes the handle (the async iterator's return).
    if (++seen > MAX_DIR_ENTRIES) break;
    if (!match.test(entry.name) || !(entry.isFile() || entry.isSymbolicLink())) continue;
    const path = join(dir, entry.name);
    // A file removed (rotated) between the listing and the stat is simply not there any more.
    const st = await stat(path).catch(() => undefined);
    if (!st?.isFile()) continue;
    found.push({
      file: entry.name,
      path,
      modifiedAt: st.mtimeMs,
      sizeBytes: st.size,
      key: `${path}:${st.size}:${st.mtimeMs}:${st.ino}`,
    });
  }
  found.sort((a, b) => b.modifiedAt - a.modifiedAt || a.file.localeCompare(b.file));
  return { listed: found.slice(0, MAX_SNAPSHOTS_LISTED), matched: found.length };
}

/** ENOENT, EACCES, ENOTDIR said as what to fix, naming the config field. */
function dirError(dir: string, err: unknown): ProbeError {
  const code = (err as NodeJS.ErrnoException).code;
  const why =
    code === 'ENOENT'
      ? 'does not exist here (is the volume mounted in the worker?)'
      : code === 'EACCES' || code === 'EPERM'
        ? "may not be read by etcd-doctor's user (permission denied)"
        : code === 'ENOTDIR'
          ? 'is not a directory'
          : `cannot be read (${code ?? messageOf(err)})`;
  return new ProbeError('error', `the backup directory ${dir} (backups.dir) ${why}`, { cause: err });
}

function unread(entry: Listed, why: string): SnapshotCheck {
  return {
    file: entry.file,
    modifiedAt: entry.modifiedAt,
    sizeBytes: entry.sizeBytes,
    state: 'unchecked',
    revision: null,
    hashOk: null,
    error: why,
  };
}

/**
 * One file, from the cache or read in one of the process's read slots, within what is `left` of the
 * probe's budget (waiting for a slot included); unchecked when time runs out, never called damaged.
 */
async function checkOne(
  entry: Listed,
  ctx: SnapshotDirContext,
  left: number,
  signal: AbortSignal,
): Promise<SnapshotCheck> {
  const cached = ctx.cache.get(entry.key);
  // A listing that parses every page does not settle for a check that read fewer.
  if (cached && (cached.allPages || ctx.budget.pages !== 'all')) return cached.check;
  const ranOut = () => unread(entry, `not read: the check's ${formatSeconds(ctx.budget.totalMs)} ran out`);
  if (left <= 0) return ranOut();
  const waitedFrom = ctx.now();
  const read = await inSlot(ctx.slots, AbortSignal.any([signal, AbortSignal.timeout(left)]), () =>
    readOne(entry, ctx, Math.min(left - (ctx.now() - waitedFrom), ctx.budget.perFileMs), signal),
  );
  return read === WAITED_TOO_LONG ? ranOut() : read;
}

const WAITED_TOO_LONG = Symbol('waited too long');
/** The reading process's own time limit past the file's deadline: the deadline ends it first. */
const ISOLATION_GRACE_MS = 1000;

/**
 * Runs `fn` in a read slot; gives up (WAITED_TOO_LONG) if `wait` aborts before a slot is free. A
 * read that has started runs to its own deadline and frees its slot then.
 */
async function inSlot<T>(
  slots: SnapshotReadSlots,
  wait: AbortSignal,
  fn: () => Promise<T>,
): Promise<T | typeof WAITED_TOO_LONG> {
  let started = false;
  const run = slots.execute(() => {
    started = true;
    return fn();
  }, wait);
  // A queued read whose wait ended is dropped by the bulkhead with TaskCancelledError when its turn comes.
  run.catch(() => undefined);
  const gaveUp = new Promise<typeof WAITED_TOO_LONG>((resolve) => {
    const onAbort = () => {
      if (!started) resolve(WAITED_TOO_LONG);
    };
    if (wait.aborted) onAbort();
    else wait.addEventListener('abort', onAbort, { once: true });
  });
  return Promise.race([run, gaveUp]);
}

/** Reads one file within `ms` and caches what it learned. */
async function readOne(
  entry: Listed,
  ctx: SnapshotDirContext,
  ms: number,
  signal: AbortSignal,
): Promise<SnapshotCheck> {
  const allPages = ctx.budget.pages === 'all';
  const deadline = AbortSignal.timeout(Math.max(1, ms));
  try {
    // In a process of its own, as a file shared in chat: the backup volume is written by other hands.
    // Its own limit is later than the deadline, which says the file took too long.
    const snapshot = await verifySnapshotIsolated(entry.path, {
      signal: AbortSignal.any([signal, deadline]),
      pages: ctx.budget.pages,
      timeoutMs: Math.max(1, ms) + ISOLATION_GRACE_MS,
    });
    const check: SnapshotCheck = {
      ...unread(entry, ''),
      state: snapshot.hashOk === false ? 'damaged' : 'good',
      revision: snapshot.revision,
      hashOk: snapshot.hashOk,
      error:
        snapshot.hashOk === false
          ? 'its SHA-256 trailer does not match its bytes (a byte changed after etcdctl snapshot save wrote it)'
          : null,
    };
    ctx.cache.set(entry.key, { check, allPages });
    return check;
  } catch (err) {
    if (deadline.aborted) {
      const slow = unread(entry, `not read: it took longer than ${formatSeconds(ms)}`);
      // Given its whole per-file time, it would take as long again: a watch checking every few
      // seconds must not hash it each time. A listing (every page, more time) still tries.
      if (ms >= ctx.budget.perFileMs) ctx.cache.set(entry.key, { check: slow, allPages: false });
      return slow;
    }
    if (signal.aborted) return unread(entry, 'not read: the check was cancelled');
    if (!(err instanceof SnapshotError)) return unread(entry, `could not be read: ${messageOf(err)}`);
    const damaged: SnapshotCheck = {
      ...unread(entry, ''),
      state: 'damaged',
      hashOk: /SHA-256 trailer does not match/.test(err.message) ? false : null,
      // The reader names the path; the listing names the file already.
      error: err.message.replace(`${entry.path} `, '').replace(/^is /, ''),
    };
    // A file found damaged stays damaged: however it was read.
    ctx.cache.set(entry.key, { check: damaged, allPages: true });
    return damaged;
  }
}

function messageOf(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.split('\n')[0]?.slice(0, 200) ?? '';
}
