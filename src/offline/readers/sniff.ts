import { createReadStream } from 'node:fs';
import { open, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { DEFAULT_READ_LIMITS } from '../collection.js';
import { OfflineInputError } from '../../errors.js';
import { detectFormat, isTarHeader, unsupportedArchive } from './formats.js';
import { type Layout, layoutHint } from './layout.js';
import { ByteBudget } from './limits.js';
import { openTarball } from './tar-entries.js';

/** How far a sniff reads into a tarball before it gives up telling its kind. */
const SNIFF_ENTRIES = 5000;
const SNIFF_BYTES = 256 * 1024 ** 2;
/** `<root>/must-gather.local.<n>/<image-dir>/namespaces`: three folders down at most. */
const SNIFF_DEPTH = 3;

export function notACollection(path: string, what: string): OfflineInputError {
  return new OfflineInputError(
    `${path} is ${what} with no must-gather (namespaces/, cluster-scoped-resources/, etcd_info/) and no ` +
      'cluster-info dump (nodes.json, <namespace>/pods.json, <namespace>/<pod>/logs.txt) in it: give the ' +
      'must-gather directory or its .tar.gz, the dump directory, or the log files themselves',
  );
}

export async function readHead(path: string, bytes: number): Promise<Buffer> {
  const file = await open(path, 'r');
  try {
    const buf = Buffer.alloc(bytes);
    const { bytesRead } = await file.read(buf, 0, bytes, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await file.close();
  }
}

/**
 * `gzip` or `tar` when the file is a tarball (by its bytes, not its name); undefined for a plain
 * file, a gzip-compressed log included (the log reader decompresses those). Throws for archives
 * etcd-doctor does not read.
 */
export async function tarballFormat(path: string, head: Buffer): Promise<'gzip' | 'tar' | undefined> {
  const format = detectFormat(head);
  const unsupported = unsupportedArchive(path, format);
  if (unsupported) throw unsupported;
  if (format === 'tar') return 'tar';
  if (format !== 'gzip') return undefined;
  return isTarHeader(await gunzippedHead(path)) ? 'gzip' : undefined;
}

/** The first 512 uncompressed bytes of a gzip file (one tar header block). */
async function gunzippedHead(path: string): Promise<Buffer> {
  const parts: Buffer[] = [];
  let size = 0;
  const gunzip = pipeline(createReadStream(path, { end: 1024 * 1024 }), createGunzip(), () => {});
  try {
    for await (const chunk of gunzip as AsyncIterable<Buffer>) {
      parts.push(chunk);
      size += chunk.length;
      if (size >= 512) break;
    }
  } catch (err) {
    if (size < 512) {
      throw new OfflineInputError(
        `${path} is a corrupt gzip file (${(err as Error).message}): copy it again`,
        {
          cause: err,
        },
      );
    }
  } finally {
    gunzip.destroy();
  }
  return Buffer.concat(parts);
}

/** Reads entry names (not their content) until one gives the layout away. */
export async function sniffTarball(path: string, gzip: boolean): Promise<Layout> {
  const budget = new ByteBudget(path, { ...DEFAULT_READ_LIMITS, maxTotalBytes: SNIFF_BYTES });
  let seen = 0;
  const tar = openTarball(path, gzip, budget);
  try {
    for await (const entry of tar.entries) {
      const layout = layoutHint(entry.path);
      if (layout) return layout;
      if (++seen >= SNIFF_ENTRIES) break;
    }
  } catch (err) {
    if (budget.used <= SNIFF_BYTES) throw tar.explain(err);
  }
  throw notACollection(path, 'a tarball');
}

/** The folders' names near the top tell the layout; undefined for a folder of plain logs. */
export async function sniffDirectory(root: string): Promise<Layout | undefined> {
  let level = [''];
  for (let depth = 0; depth < SNIFF_DEPTH && level.length; depth++) {
    const next: string[] = [];
    for (const rel of level.slice(0, 200)) {
      const children = await readdir(join(root, rel), { withFileTypes: true }).catch(() => []);
      for (const child of children) {
        const path = rel ? `${rel}/${child.name}` : child.name;
        const layout = layoutHint(path);
        if (layout) return layout;
        if (child.isDirectory()) next.push(path);
      }
    }
    level = next;
  }
  return undefined;
}
