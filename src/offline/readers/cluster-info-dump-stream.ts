import {
  type CollectionSink,
  type CollectionSummary,
  DEFAULT_READ_LIMITS,
  type ReadOptions,
} from '../collection.js';
import { OfflineInputError } from '../../errors.js';
import { readJsonDocument, readSection, startOfSection } from './cluster-info-dump.js';
import { DocumentLimitError, ObjectEmitter, parseJsonKeepingBigIntegers } from './documents.js';
import { ByteBudget, documentRefused } from './limits.js';
import { splitLines } from './lines.js';

export interface DumpStreamOptions extends ReadOptions {
  /** Named in the summary and in each stream's `source`: the file's path, or `-` for stdin. */
  source?: string;
}

/**
 * The stdout form of `kubectl cluster-info dump` (no `--output-directory`): the NodeList, then per
 * namespace its Lists (events, replication controllers, services, daemon sets, deployments,
 * replica sets, pods) as `-o json` documents, then each pod's START..END log sections, all in one
 * stream. Read once, line by line; Lists the rules do not read are passed over unparsed.
 */
export async function readClusterInfoDumpStream(
  stream: AsyncIterable<Buffer | string>,
  sink: CollectionSink,
  opts: DumpStreamOptions = {},
): Promise<CollectionSummary> {
  const source = opts.source ?? '-';
  const limits = opts.limits ?? DEFAULT_READ_LIMITS;
  const budget = new ByteBudget(source, limits);
  const lines = splitLines(countedBytes(stream, budget, opts.signal), limits.maxLineBytes);
  const emitter = new ObjectEmitter(sink);
  const summary: CollectionSummary = {
    kind: 'cluster-info-dump',
    path: source,
    entries: 0,
    bytes: 0,
    skipped: 0,
  };
  try {
    for (let next = await lines.next(); !next.done; next = await lines.next()) {
      if (next.value === '{') await readDocumentInto(lines, emitter, sink, summary);
      const meta = startOfSection(next.value, source);
      if (meta) {
        const node = emitter.podNodes.get(`${meta.namespace}/${meta.pod}`);
        await readSection(lines, node ? { ...meta, node } : meta, sink);
        summary.entries++;
      }
    }
  } catch (err) {
    throw opts.signal?.aborted ? opts.signal.reason : err;
  } finally {
    await lines.return(undefined);
  }
  if (summary.entries === 0) throw emptyDump(source);
  return { ...summary, bytes: budget.used };
}

async function readDocumentInto(
  lines: AsyncGenerator<string>,
  emitter: ObjectEmitter,
  sink: CollectionSink,
  summary: CollectionSummary,
): Promise<void> {
  const where = `${summary.path} (document ${summary.entries + summary.skipped + 1})`;
  const doc = await readJsonDocument(lines);
  if ('unwanted' in doc) return;
  if ('skipped' in doc) {
    summary.skipped++;
    sink.skipped(where, doc.skipped);
    return;
  }
  try {
    emitter.emit(parseJsonKeepingBigIntegers(doc.text), summary.path);
    summary.entries++;
  } catch (err) {
    if (err instanceof DocumentLimitError) throw documentRefused(summary.path, where, err.over);
    summary.skipped++;
    sink.skipped(where, `not valid JSON (${(err as Error).message})`);
  }
}

async function* countedBytes(
  stream: AsyncIterable<Buffer | string>,
  budget: ByteBudget,
  signal: AbortSignal | undefined,
): AsyncGenerator<Buffer> {
  for await (const chunk of stream) {
    signal?.throwIfAborted();
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    budget.take(buf.length);
    yield buf;
  }
}

function emptyDump(source: string): OfflineInputError {
  return new OfflineInputError(
    `${source} holds no Lists and no log sections of a \`kubectl cluster-info dump\`: give the dump as kubectl ` +
      'printed it (-o json, the default), or its --output-directory tree',
  );
}
