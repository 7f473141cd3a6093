/** One file (or link, or directory) of a collection, as a tarball or a directory walk yields it. */
export interface CollectionEntry {
  /** `/`-separated path inside the input, as the archive names it or relative to the directory. */
  path: string;
  type: 'file' | 'directory' | 'symlink' | 'link' | 'other';
  /** Where a symlink or hardlink points, as written in the archive or the link. */
  linkTarget?: string;
  /** Why the source already refused it (a directory's symlink escaping the root). */
  refused?: string;
  /**
   * The bytes of a file, counted against the read's budget. Read it to the end or not at all: a
   * tarball drains what the reader left before it goes on to the next entry.
   */
  content: AsyncIterable<Buffer>;
}

export const NO_CONTENT: AsyncIterable<Buffer> = {
  async *[Symbol.asyncIterator]() {},
};

/**
 * A name that leaves the collection: absolute (`/etc/passwd`, `C:\x`), or climbing out with `..`
 * (`../../.ssh/authorized_keys`), the classic tar-slip entry. Such entries are never read.
 */
export function escapesRoot(name: string): boolean {
  if (name.startsWith('/') || name.startsWith('\\') || /^[A-Za-z]:/.test(name)) return true;
  let depth = 0;
  for (const part of name.split(/[\\/]+/)) {
    if (part === '..') depth--;
    else if (part !== '.' && part !== '') depth++;
    if (depth < 0) return true;
  }
  return false;
}

/** Does a link at `entryPath` pointing at `target` (relative to the entry's folder) stay inside? */
export function linkEscapes(entryPath: string, target: string): boolean {
  if (escapesRoot(target) && (target.startsWith('/') || /^[A-Za-z]:/.test(target))) return true;
  const folder = entryPath.split('/').slice(0, -1).join('/');
  return escapesRoot(folder ? `${folder}/${target}` : target);
}
