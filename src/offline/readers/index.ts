import type { CollectionKind, CollectionSink, CollectionSummary, ReadOptions } from '../collection.js';

/**
 * Which collection a path holds: a must-gather (directory, .tar.gz, .tar) or a `kubectl
 * cluster-info dump --output-directory` tree. `undefined` for anything else (a log file).
 */
export async function sniffCollection(_path: string): Promise<Exclude<CollectionKind, 'log'> | undefined> {
  return undefined;
}

/** Walks a collection once, handing every log stream, object and etcd_info file to the sink. */
export async function readCollection(
  path: string,
  _sink: CollectionSink,
  _opts: ReadOptions = {},
): Promise<CollectionSummary> {
  throw new Error(`reading collections is not built yet (asked for ${path})`);
}
