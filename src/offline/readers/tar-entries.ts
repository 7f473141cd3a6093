import { createReadStream } from 'node:fs';
import { addAbortSignal, pipeline, type Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import tarStream, { type Extract } from 'tar-stream';
import { OfflineInputError } from '../../errors.js';
import type { CollectionEntry } from './entry.js';
import type { ByteBudget } from './limits.js';

type TarEntry = Extract extends AsyncIterable<infer E> ? E : never;

/** A tarball being read: its entries, and what broke the reading of its bytes, if anything did. */
export interface Tarball {
  entries: AsyncGenerator<CollectionEntry>;
  /** Turns an error met while reading into the answer to give (corrupt, truncated, over the cap, aborted). */
  explain(err: unknown): unknown;
}

/**
 * The entries of a tarball (`.tar`, or `.tar.gz` when `gzip`), one at a time, straight from the
 * file: nothing is written to disk and nothing is kept. Uncompressed bytes are counted against the
 * budget as they leave gunzip, so a gzip bomb stops at the cap however small the file is.
 */
export function openTarball(path: string, gzip: boolean, budget: ByteBudget, signal?: AbortSignal): Tarball {
  const state: { failure?: unknown } = {};
  const explain = (err: unknown) =>
    readFailure(path, state.failure ?? err, signal, state.failure !== undefined);
  return { entries: tarEntries(path, gzip, budget, state, signal), explain };
}

async function* tarEntries(
  path: string,
  gzip: boolean,
  budget: ByteBudget,
  state: { failure?: unknown },
  signal?: AbortSignal,
): AsyncGenerator<CollectionEntry> {
  const extract = tarStream.extract();
  const feeding = feed(tarBytes(path, gzip, signal), extract, budget, state);
  try {
    for await (const entry of extract) {
      signal?.throwIfAborted();
      yield toEntry(entry);
      for await (const _ of entry as AsyncIterable<Buffer>); // drain what the reader left
    }
  } catch (err) {
    // only the tar parser and the bytes under it throw in here; the reader's errors stay outside
    state.failure ??= err;
    throw state.failure;
  } finally {
    extract.destroy();
    await feeding;
  }
  if (state.failure) throw state.failure;
}

function tarBytes(path: string, gzip: boolean, signal: AbortSignal | undefined): Readable {
  const file = createReadStream(path, { highWaterMark: 256 * 1024 });
  if (signal) addAbortSignal(signal, file);
  return gzip ? pipeline(file, createGunzip({ chunkSize: 256 * 1024 }), () => {}) : file;
}

/** Writes the (decompressed) bytes into the tar parser with backpressure; records why it stopped. */
async function feed(bytes: Readable, extract: Extract, budget: ByteBudget, state: { failure?: unknown }) {
  try {
    for await (const chunk of bytes as AsyncIterable<Buffer>) {
      budget.take(chunk.length);
      if (extract.destroyed) break;
      if (!extract.write(chunk)) await drained(extract);
    }
    if (!extract.destroyed) extract.end(undefined);
  } catch (err) {
    state.failure = err;
    extract.destroy(err instanceof Error ? err : new Error(String(err)));
  } finally {
    bytes.destroy();
  }
}

function drained(extract: Extract): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      extract.off('drain', done);
      extract.off('close', done);
      resolve();
    };
    extract.on('drain', done);
    extract.on('close', done);
  });
}

function toEntry(entry: TarEntry): CollectionEntry {
  const { name, type, linkname } = entry.header;
  const kind = type === 'file' || type === 'contiguous-file' || type == null ? 'file' : type;
  return {
    path: name,
    type: kind === 'file' || kind === 'directory' || kind === 'symlink' || kind === 'link' ? kind : 'other',
    ...(linkname ? { linkTarget: linkname } : {}),
    content: entry as AsyncIterable<Buffer>,
  };
}

/** A broken tarball says what is wrong with it; the cap, an abort and the sink's own errors pass through. */
function readFailure(
  path: string,
  err: unknown,
  signal: AbortSignal | undefined,
  fromBytes: boolean,
): unknown {
  if (signal?.aborted) return signal.reason;
  if (err instanceof OfflineInputError || !fromBytes) return err;
  const message = err instanceof Error ? err.message : String(err);
  const code = (err as { code?: string }).code;
  if (code === 'ENOENT' || code === 'EACCES' || code === 'EISDIR') {
    return new OfflineInputError(`cannot read ${path}: ${message}`, { cause: err });
  }
  const why = /unexpected end|end of data|premature/i.test(message)
    ? 'it ends in the middle of an entry (a truncated download or copy?)'
    : `${message.replace(/\.$/, '')}`;
  return new OfflineInputError(
    `${path} is a corrupt tarball: ${why}. Check it with \`tar -tf ${path}\`, then collect or copy it again`,
    { cause: err },
  );
}
