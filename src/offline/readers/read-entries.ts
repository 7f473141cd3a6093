import { pipeline, Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import {
  type CollectionSink,
  DEFAULT_MAX_ENTRIES,
  type LogStreamMeta,
  type ReadLimits,
} from '../collection.js';
import { OfflineInputError } from '../../errors.js';
import { readSections } from './cluster-info-dump.js';
import {
  DocumentLimitError,
  MAX_DOCUMENT_BYTES,
  type ObjectEmitter,
  parseJsonKeepingBigIntegers,
  parseYamlDocument,
  readDocument,
} from './documents.js';
import { type CollectionEntry, escapesRoot, linkEscapes } from './entry.js';
import { classifyEntry, type EntryRole, type Layout } from './layout.js';
import { formatBytes } from '../../format.js';
import { type ByteBudget, documentRefused, SHARE_INSTEAD } from './limits.js';
import { splitLines } from './lines.js';

export interface ReadContext {
  sink: CollectionSink;
  emitter: ObjectEmitter;
  budget: ByteBudget;
  limits: ReadLimits;
  /** `archive` in a tarball, `directory` when walking one: said in the reasons. */
  container: 'archive' | 'directory';
  signal?: AbortSignal;
  counts: { entries: number; skipped: number };
  layouts: Set<Layout>;
}

export function skip(ctx: ReadContext, source: string, reason: string): void {
  ctx.counts.skipped++;
  ctx.sink.skipped(source, reason);
}

/** Walks the entries once: refuses what leaves the collection, reads what the rules need, passes over the rest. */
export async function readEntries(entries: AsyncIterable<CollectionEntry>, ctx: ReadContext): Promise<void> {
  const maxEntries = ctx.limits.maxEntries ?? DEFAULT_MAX_ENTRIES;
  let seen = 0;
  for await (const entry of entries) {
    ctx.signal?.throwIfAborted();
    if (++seen > maxEntries) throw tooManyEntries(ctx, maxEntries);
    const refusal = refuse(entry, ctx.container);
    if (refusal) {
      skip(ctx, entry.path, refusal);
      continue;
    }
    const role = classifyEntry(entry.path);
    if (!role) continue;
    if (entry.type !== 'file') {
      if (entry.type === 'symlink' || entry.type === 'link')
        skip(ctx, entry.path, `${linkName(entry)} not followed in an ${ctx.container}`);
      continue;
    }
    ctx.layouts.add(role.layout);
    ctx.counts.entries++;
    await readEntry(entry, role, ctx);
  }
}

function tooManyEntries(ctx: ReadContext, maxEntries: number): OfflineInputError {
  return new OfflineInputError(
    `${ctx.budget.input} holds more than ${maxEntries} entries, over the ${maxEntries}-entry limit for one ${ctx.container}: ${SHARE_INSTEAD}`,
  );
}

function linkName(entry: CollectionEntry): string {
  return entry.type === 'link' ? 'hardlink' : 'symlink';
}

function refuse(entry: CollectionEntry, container: 'archive' | 'directory'): string | undefined {
  if (entry.refused) return entry.refused;
  if (escapesRoot(entry.path)) return `outside the ${container}`;
  if ((entry.type === 'symlink' || entry.type === 'link') && entry.linkTarget !== undefined) {
    // a hardlink names its target from the archive's root, a symlink from its own folder
    const target = entry.linkTarget;
    const escapes = entry.type === 'link' ? escapesRoot(target) : linkEscapes(entry.path, target);
    if (escapes) return `${linkName(entry)} escapes the ${container}`;
  }
  return undefined;
}

async function readEntry(entry: CollectionEntry, role: EntryRole, ctx: ReadContext): Promise<void> {
  if (role.role === 'log') return readLog(entry, role.meta, ctx);
  if (role.role === 'log-sections') {
    const lines = await textLines(entry, ctx);
    if (!lines) return;
    try {
      await readSections(lines, entry.path, ctx.sink, ctx.emitter);
    } finally {
      await lines.return(undefined);
    }
    return;
  }
  const text = await readDocument(entry.content, MAX_DOCUMENT_BYTES);
  if (text === undefined)
    return skip(ctx, entry.path, `over the ${formatBytes(MAX_DOCUMENT_BYTES, 'binary')} document cap`);
  if (text.includes('\0')) return skip(ctx, entry.path, 'binary');
  let doc: unknown;
  try {
    doc =
      role.role === 'etcd-info' || role.format === 'json'
        ? parseJsonKeepingBigIntegers(text)
        : parseYamlDocument(text);
  } catch (err) {
    // A bomb refuses the whole input: the user is told what to share instead (a skip says nothing in chat).
    if (err instanceof DocumentLimitError) throw documentRefused(ctx.budget.input, entry.path, err.over);
    const what = role.role === 'objects' && role.format === 'yaml' ? 'YAML' : 'JSON';
    return skip(ctx, entry.path, `not valid ${what} (${String((err as Error).message).split('\n')[0]})`);
  }
  if (role.role === 'etcd-info') ctx.sink.etcdInfo(role.name, doc, { source: entry.path });
  else ctx.emitter.emit(doc, entry.path);
}

async function readLog(entry: CollectionEntry, meta: LogStreamMeta, ctx: ReadContext): Promise<void> {
  const lines = await textLines(entry, ctx);
  if (!lines) return;
  const node = meta.node ?? ctx.emitter.podNodes.get(`${meta.namespace}/${meta.pod}`);
  try {
    await ctx.sink.log(node ? { ...meta, node } : meta, lines);
  } finally {
    await lines.return(undefined);
  }
}

/**
 * The entry's lines, once its first chunk shows text: a gzip-compressed log (a rotated
 * `*.log.gz`) is decompressed, its bytes counted too; NUL bytes in the first chunk mean binary.
 */
async function textLines(
  entry: CollectionEntry,
  ctx: ReadContext,
): Promise<AsyncGenerator<string> | undefined> {
  let chunks = entry.content;
  let iterator = chunks[Symbol.asyncIterator]();
  let first = await iterator.next();
  if (!first.done && first.value[0] === 0x1f && first.value[1] === 0x8b) {
    chunks = gunzipCounted(entry.path, rejoin(first.value, iterator), ctx.budget);
    iterator = chunks[Symbol.asyncIterator]();
    first = await iterator.next();
  }
  if (first.done) return splitLines(chunks, ctx.limits.maxLineBytes);
  if (first.value.includes(0)) {
    await iterator.return?.();
    skip(ctx, entry.path, 'binary');
    return undefined;
  }
  return splitLines(rejoin(first.value, iterator), ctx.limits.maxLineBytes);
}

async function* rejoin(first: Buffer, rest: AsyncIterator<Buffer>): AsyncGenerator<Buffer> {
  try {
    yield first;
    for (let next = await rest.next(); !next.done; next = await rest.next()) yield next.value;
  } finally {
    await rest.return?.();
  }
}

/** Decompresses, counting every byte against the budget (a `.log.gz`, alone or in a collection). */
export async function* gunzipCounted(
  source: string,
  compressed: AsyncIterable<Buffer>,
  budget: ByteBudget,
): AsyncGenerator<Buffer> {
  const gunzip = pipeline(Readable.from(compressed), createGunzip(), () => {});
  try {
    for await (const chunk of gunzip as AsyncIterable<Buffer>) {
      budget.take(chunk.length);
      yield chunk;
    }
  } catch (err) {
    if (err instanceof OfflineInputError || (err as Error).name === 'AbortError') throw err;
    throw new OfflineInputError(
      `${source} is a corrupt gzip file (${(err as Error).message}): copy it again`,
      {
        cause: err,
      },
    );
  } finally {
    gunzip.destroy();
  }
}
