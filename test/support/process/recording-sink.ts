import type {
  CollectionSink,
  EtcdInfoName,
  KubeObject,
  LogStreamMeta,
} from '../../../src/offline/collection.js';

export interface RecordedLog {
  meta: LogStreamMeta;
  lines: string[];
}

/** A CollectionSink that keeps everything it is handed, for asserting what a reader delivered. */
export function recordingSink(opts: { onLine?: (line: string, meta: LogStreamMeta) => void } = {}) {
  const logs: RecordedLog[] = [];
  const objects: Array<{ obj: KubeObject; source: string }> = [];
  const etcdInfo = new Map<EtcdInfoName, unknown>();
  const skipped: Array<{ source: string; reason: string }> = [];
  const sink: CollectionSink = {
    async log(meta, lines) {
      const kept: string[] = [];
      logs.push({ meta, lines: kept });
      for await (const line of lines) {
        kept.push(line);
        opts.onLine?.(line, meta);
      }
    },
    object: (obj, meta) => objects.push({ obj, source: meta.source }),
    etcdInfo: (name, json) => etcdInfo.set(name, json),
    skipped: (source, reason) => skipped.push({ source, reason }),
  };
  const ofKind = (kind: string) => objects.filter((o) => o.obj.kind === kind).map((o) => o.obj);
  const logOf = (pod: string, container: string, previous = false) =>
    logs.find((l) => l.meta.pod === pod && l.meta.container === container && l.meta.previous === previous);
  return { sink, logs, objects, etcdInfo, skipped, ofKind, logOf };
}
