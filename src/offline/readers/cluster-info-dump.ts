import type { CollectionSink, LogStreamMeta } from '../collection.js';
import { MAX_DOCUMENT_BYTES, type ObjectEmitter } from './documents.js';

/**
 * `kubectl cluster-info dump` frames each container's log as (kubectl
 * pkg/cmd/clusterinfo/clusterinfo_dump.go, printContainer):
 *   ==== START logs for container <c> of pod <ns>/<pod> ====
 *   <the log as the kubelet returned it>
 *   ==== END logs for container <c> of pod <ns>/<pod> ====
 * The log is written as it came, so when it does not end in a newline the END marker follows its
 * last line on the same line.
 */
const START = /^==== START logs for container (\S+) of pod ([^/\s]+)\/(\S+) ====$/;
const END = /==== END logs for container \S+ of pod [^/\s]+\/\S+ ====$/;
const END_PREFIX = '==== END logs for container ';

/** Lists the rules read; a dump's other Lists (services, deployments, ...) are passed over unparsed. */
const WANTED_LISTS = new Set(['NodeList', 'PodList', 'EventList']);

/** The stdout form begins with the NodeList kubectl prints first (`-o json`, 4-space indent). */
export function looksLikeClusterInfoDump(firstChunk: Buffer | string): boolean {
  const head = (typeof firstChunk === 'string' ? firstChunk : firstChunk.toString('utf8', 0, 4096)).slice(
    0,
    4096,
  );
  return /^\s*\{\s*"kind"\s*:\s*"NodeList"/.test(head) || /^==== START logs for container /m.test(head);
}

export function startOfSection(line: string, source: string): LogStreamMeta | undefined {
  const m = START.exec(line);
  if (!m) return undefined;
  const [, container, namespace, pod] = m as unknown as [string, string, string, string];
  return { source, namespace, pod, container, previous: false };
}

/**
 * Hands one START..END section to the sink, line by line, and consumes it to its END marker
 * whatever the sink read. Resolves false when the input ended before the END marker.
 */
export async function readSection(
  lines: AsyncIterator<string>,
  meta: LogStreamMeta,
  sink: CollectionSink,
): Promise<boolean> {
  const state = { ended: false, closed: false };
  async function* body(): AsyncGenerator<string> {
    while (!state.ended) {
      const next = await lines.next();
      if (next.done) {
        state.ended = true;
        return;
      }
      const line = next.value;
      const at = line.includes(END_PREFIX) ? line.search(END) : -1;
      if (at === -1) yield line;
      else {
        state.ended = true;
        state.closed = true;
        if (at > 0) yield line.slice(0, at);
      }
    }
  }
  await sink.log(meta, body());
  for await (const _ of body()); // what the sink left of the section
  return state.closed;
}

/** Every section of a `logs.txt` (one pod's containers, one after another). */
export async function readSections(
  lines: AsyncIterator<string>,
  source: string,
  sink: CollectionSink,
  emitter: ObjectEmitter,
): Promise<number> {
  let sections = 0;
  for (let next = await lines.next(); !next.done; next = await lines.next()) {
    const meta = startOfSection(next.value, source);
    if (!meta) continue;
    const node = emitter.podNodes.get(`${meta.namespace}/${meta.pod}`);
    await readSection(lines, node ? { ...meta, node } : meta, sink);
    sections++;
  }
  return sections;
}

/**
 * One top-level JSON document of the stdout form, from its `{` line to its `}` line (kubectl's
 * MarshalIndent puts both at column 0). Unwanted kinds are not kept; a document over
 * MAX_DOCUMENT_BYTES is skipped. Returns the document's text, or why it was not kept.
 */
export async function readJsonDocument(
  lines: AsyncIterator<string>,
): Promise<{ text: string } | { skipped: string } | { unwanted: string }> {
  const kept: string[] = ['{'];
  let bytes = 1;
  let unwanted: string | undefined;
  let over = false;
  for (let next = await lines.next(); !next.done; next = await lines.next()) {
    const line = next.value;
    if (kept.length === 1 && unwanted === undefined) {
      const kind = /^\s*"kind"\s*:\s*"([^"]+)"/.exec(line)?.[1];
      if (kind && !WANTED_LISTS.has(kind)) unwanted = kind;
    }
    if (line === '}') {
      if (unwanted) return { unwanted };
      return over ? { skipped: 'over the size cap' } : { text: `${kept.join('\n')}\n}` };
    }
    if (unwanted || over) continue;
    bytes += line.length + 1;
    if (bytes > MAX_DOCUMENT_BYTES) over = true;
    else kept.push(line);
  }
  return { skipped: 'ends before its closing brace (a truncated dump?)' };
}
