import { createReadStream, type Dirent } from 'node:fs';
import { lstat, readdir, realpath } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { addAbortSignal } from 'node:stream';
import { type CollectionEntry, NO_CONTENT } from './entry.js';
import type { ByteBudget } from './limits.js';

/** Deeper than any must-gather (about 10 levels) or dump (3): a loop or a trap, not a collection. */
const MAX_DEPTH = 24;

/**
 * The files under a directory, files before subfolders and each in name order (so a pod's YAML
 * comes before its containers' logs). Symlinks are followed only when their real path stays
 * inside the root and is a file; FIFOs, sockets and devices are never opened (a FIFO would block).
 */
export async function* dirEntries(
  root: string,
  budget: ByteBudget,
  signal?: AbortSignal,
): AsyncGenerator<CollectionEntry> {
  const realRoot = await realpath(root);
  yield* walk(realRoot, realRoot, 0, budget, signal);
}

async function* walk(
  realRoot: string,
  dir: string,
  depth: number,
  budget: ByteBudget,
  signal: AbortSignal | undefined,
): AsyncGenerator<CollectionEntry> {
  signal?.throwIfAborted();
  const children = await readdir(dir, { withFileTypes: true });
  children.sort((a, b) => Number(a.isDirectory()) - Number(b.isDirectory()) || (a.name < b.name ? -1 : 1));
  for (const child of children) {
    const path = join(dir, child.name);
    const rel = relative(realRoot, path).split(sep).join('/');
    if (child.isDirectory()) {
      if (depth + 1 < MAX_DEPTH) yield* walk(realRoot, path, depth + 1, budget, signal);
      else yield { path: rel, type: 'directory', refused: 'nested too deep', content: NO_CONTENT };
    } else yield await fileEntry(realRoot, path, rel, child, budget, signal);
  }
}

async function fileEntry(
  realRoot: string,
  path: string,
  rel: string,
  child: Dirent,
  budget: ByteBudget,
  signal: AbortSignal | undefined,
): Promise<CollectionEntry> {
  if (child.isFile()) return { path: rel, type: 'file', content: counted(path, budget, signal) };
  if (!child.isSymbolicLink()) return { path: rel, type: 'other', content: NO_CONTENT };
  const target = await realpath(path).catch(() => undefined);
  const inside = target !== undefined && (target + sep).startsWith(realRoot + sep) && target !== realRoot;
  if (!inside) {
    return { path: rel, type: 'symlink', refused: 'symlink escapes the directory', content: NO_CONTENT };
  }
  const stat = await lstat(target);
  if (!stat.isFile())
    return { path: rel, type: 'symlink', refused: 'symlink to a folder, not followed', content: NO_CONTENT };
  return { path: rel, type: 'file', content: counted(target, budget, signal) };
}

async function* counted(
  path: string,
  budget: ByteBudget,
  signal: AbortSignal | undefined,
): AsyncGenerator<Buffer> {
  const stream = createReadStream(path, { highWaterMark: 256 * 1024 });
  if (signal) addAbortSignal(signal, stream);
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      budget.take(chunk.length);
      yield chunk;
    }
  } finally {
    stream.destroy();
  }
}
