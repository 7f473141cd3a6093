import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { addAbortSignal } from 'node:stream';
import {
  type CollectionKind,
  type CollectionSink,
  type CollectionSummary,
  DEFAULT_READ_LIMITS,
  type ReadOptions,
} from '../collection.js';
import { OfflineInputError } from '../../errors.js';
import { looksLikeClusterInfoDump } from './cluster-info-dump.js';
import { readClusterInfoDumpStream } from './cluster-info-dump-stream.js';
import { dirEntries } from './dir-entries.js';
import { ObjectEmitter } from './documents.js';
import type { Layout } from './layout.js';
import { ByteBudget } from './limits.js';
import { type ReadContext, readEntries } from './read-entries.js';
import { notACollection, readHead, sniffDirectory, sniffTarball, tarballFormat } from './sniff.js';
import { openTarball } from './tar-entries.js';

export { looksLikeClusterInfoDump } from './cluster-info-dump.js';
export { readClusterInfoDumpStream } from './cluster-info-dump-stream.js';

/**
 * Which collection a path holds: a must-gather (directory, .tar.gz, .tar) or a `kubectl
 * cluster-info dump` (its `--output-directory` tree, a tarball of it, or its stdout saved to a
 * file). `undefined` for anything else (a log file). Throws OfflineInputError for an archive
 * etcd-doctor does not read (zip, xz, bzip2, 7z, zstd, rar), a gzip file that holds no tarball, and
 * a tarball that holds neither collection.
 */
export async function sniffCollection(path: string): Promise<Exclude<CollectionKind, 'log'> | undefined> {
  const info = await statInput(path);
  if (info.isDirectory()) return sniffDirectory(path);
  const head = await readHead(path, 64 * 1024);
  const archive = await tarballFormat(path, head);
  if (archive) return sniffTarball(path, archive === 'gzip');
  return looksLikeClusterInfoDump(head) ? 'cluster-info-dump' : undefined;
}

/** Walks a collection once, handing every log stream, object and etcd_info file to the sink. */
export async function readCollection(
  path: string,
  sink: CollectionSink,
  opts: ReadOptions = {},
): Promise<CollectionSummary> {
  const limits = opts.limits ?? DEFAULT_READ_LIMITS;
  const directory = (await statInput(path)).isDirectory();
  const head = directory ? undefined : await readHead(path, 64 * 1024);
  const archive = head && (await tarballFormat(path, head));
  if (head && !archive) {
    if (!looksLikeClusterInfoDump(head))
      throw notACollection(path, 'a file that is neither a tarball nor a dump');
    const stream = createReadStream(path, { highWaterMark: 256 * 1024 });
    if (opts.signal) addAbortSignal(opts.signal, stream);
    return readClusterInfoDumpStream(stream, sink, { ...opts, source: path });
  }
  const budget = new ByteBudget(path, limits);
  const ctx = readContext(sink, budget, limits, directory ? 'directory' : 'archive', opts.signal);
  const tar = archive ? openTarball(path, archive === 'gzip', budget, opts.signal) : undefined;
  try {
    await readEntries(tar ? tar.entries : dirEntries(path, budget, opts.signal), ctx);
  } catch (err) {
    throw opts.signal?.aborted ? opts.signal.reason : tar ? tar.explain(err) : err;
  }
  const kind = pickKind(ctx.layouts);
  if (!kind) throw notACollection(path, directory ? 'a directory' : 'a tarball');
  return { kind, path, entries: ctx.counts.entries, bytes: budget.used, skipped: ctx.counts.skipped };
}

function readContext(
  sink: CollectionSink,
  budget: ByteBudget,
  limits: ReadContext['limits'],
  container: ReadContext['container'],
  signal: AbortSignal | undefined,
): ReadContext {
  const ctx: ReadContext = {
    sink,
    emitter: new ObjectEmitter(sink),
    budget,
    limits,
    container,
    counts: { entries: 0, skipped: 0 },
    layouts: new Set<Layout>(),
  };
  if (signal) ctx.signal = signal;
  return ctx;
}

function pickKind(layouts: Set<Layout>): Layout | undefined {
  if (layouts.has('must-gather')) return 'must-gather';
  return layouts.has('cluster-info-dump') ? 'cluster-info-dump' : undefined;
}

async function statInput(path: string) {
  try {
    return await stat(path);
  } catch (err) {
    const code = (err as { code?: string }).code;
    const why =
      code === 'ENOENT' ? 'no such file or directory' : code === 'EACCES' ? 'permission denied' : String(err);
    throw new OfflineInputError(`cannot read ${path}: ${why}`, { cause: err });
  }
}
