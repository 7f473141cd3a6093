import { CST, Lexer, parse as parseYaml } from 'yaml';
import type { CollectionSink, KubeObject } from '../collection.js';

/**
 * Object files are parsed whole (`oc adm inspect` and kubectl write one document per file), so a
 * file over this is skipped, not parsed: a List of that size is not the control plane's.
 */
export const MAX_DOCUMENT_BYTES = 32 * 1024 ** 2;

/** Reads a file's bytes up to `maxBytes`; undefined when it is longer (the rest is not read). */
export async function readDocument(
  content: AsyncIterable<Buffer>,
  maxBytes: number,
): Promise<string | undefined> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of content) {
    size += chunk.length;
    if (size > maxBytes) return undefined;
    parts.push(chunk);
  }
  return Buffer.concat(parts).toString('utf8');
}

/**
 * Nodes of one YAML document (scalars, collections, entries, aliases), counted before it is parsed:
 * yaml's document model holds ~850 bytes a node (540 pods, 192,000 nodes, took 163 MB of heap), so a
 * 30 MB `[0,0,…]` that gzips to 30 KB is 15 million nodes past any heap. 150,000 (about 280 pods in
 * one List, ~85 MB) fits the analysis process's 192 MiB heap; an etcd namespace's pods.yaml is ~10,000.
 */
export const MAX_YAML_NODES = 150_000;
/** JSON.parse holds ~100 bytes a node (800,000 nodes of pods: 86 MB with their text). */
export const MAX_JSON_NODES = 2_000_000;
/**
 * Nesting of one document. Kubernetes objects nest about 15 deep (managedFields); yaml's composer
 * recurses once a level (its stack ends near 900).
 */
export const MAX_DOCUMENT_DEPTH = 100;
/** Alias expansions yaml allows in one document: a "billion laughs" fails at this many. */
const MAX_YAML_ALIASES = 100;

/** A document over one of the limits above: never parsed, and the input is refused with it. */
export class DocumentLimitError extends Error {
  constructor(readonly over: string) {
    super(over);
    this.name = 'DocumentLimitError';
  }
}

/**
 * YAML as `oc` writes it (1.2 core schema: timestamps stay strings). Its size is measured first with
 * yaml's own lexer, which keeps no tree: nodes and nesting over the limits, or aliases expanding past
 * MAX_YAML_ALIASES, are a DocumentLimitError; a document that is not YAML throws as yaml does.
 */
export function parseYamlDocument(text: string): unknown {
  assertYamlShape(text);
  try {
    return parseYaml(text, { maxAliasCount: MAX_YAML_ALIASES, prettyErrors: false });
  } catch (err) {
    // yaml's answer to an alias bomb (its only ReferenceError).
    if (err instanceof ReferenceError)
      throw new DocumentLimitError(`aliases expanding past ${MAX_YAML_ALIASES} nodes`);
    throw err;
  }
}

/** Token types that start a node or an entry. */
const YAML_NODES = new Set([
  'scalar',
  'single-quoted-scalar',
  'double-quoted-scalar',
  'alias',
  'flow-map-start',
  'flow-seq-start',
  'seq-item-ind',
  'explicit-key-ind',
  'map-value-ind',
]);
/** Lexer tokens that take no room in the source (document mode, scalar, end of flow). */
const ZERO_WIDTH = new Set(['\u0002', '\u001f', '\u0018']);

/**
 * Counts nodes and nesting from the token stream: flow collections by their brackets, block ones by
 * the columns their entries start at (a `- ` or a key further right than its parent's is one level
 * deeper).
 */
function assertYamlShape(text: string): void {
  let nodes = 0;
  let flow = 0;
  let column = 0;
  let nodeColumn = 0;
  const block: number[] = [];
  for (const token of new Lexer().lex(text)) {
    const type = CST.tokenType(token);
    if (type && YAML_NODES.has(type) && ++nodes > MAX_YAML_NODES)
      throw new DocumentLimitError(`more than ${MAX_YAML_NODES.toLocaleString('en-US')} YAML nodes`);
    if (type === 'flow-map-start' || type === 'flow-seq-start') flow++;
    else if (type === 'flow-map-end' || type === 'flow-seq-end') flow = Math.max(0, flow - 1);
    else if (
      flow === 0 &&
      (type === 'seq-item-ind' || type === 'explicit-key-ind' || type === 'map-value-ind')
    ) {
      // An entry at a column: its parent's entries start further left.
      const at = type === 'map-value-ind' ? nodeColumn : column;
      while ((block.at(-1) ?? -1) > at) block.pop();
      if (block.at(-1) !== at) block.push(at);
    }
    if (type === 'scalar' || type === 'alias' || type?.endsWith('quoted-scalar')) nodeColumn = column;
    if (block.length + flow > MAX_DOCUMENT_DEPTH)
      throw new DocumentLimitError(`nesting deeper than ${MAX_DOCUMENT_DEPTH} levels`);
    if (ZERO_WIDTH.has(token)) continue;
    const newline = token.lastIndexOf('\n');
    column = newline === -1 ? column + token.length : token.length - newline - 1;
  }
}

/**
 * JSON with every integer longer than 15 digits kept as its decimal string: etcdctl's `-w json`
 * prints member and cluster IDs as uint64 numbers (`10501334649042878790`) that a JS number rounds,
 * and a rounded ID no longer matches the hex ID the logs print. `BigInt(value)` reads both forms.
 * Nodes and nesting past MAX_JSON_NODES and MAX_DOCUMENT_DEPTH are a DocumentLimitError, found in
 * the same pass, before JSON.parse builds anything.
 */
export function parseJsonKeepingBigIntegers(text: string): unknown {
  let out = '';
  let from = 0;
  let inString = false;
  let nodes = 0;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b || c === 0x2c) {
      // `[`, `{` or `,`: a value starts
      if (++nodes > MAX_JSON_NODES)
        throw new DocumentLimitError(`more than ${MAX_JSON_NODES.toLocaleString('en-US')} JSON values`);
      if (c !== 0x2c && ++depth > MAX_DOCUMENT_DEPTH)
        throw new DocumentLimitError(`nesting deeper than ${MAX_DOCUMENT_DEPTH} levels`);
    } else if (c === 0x5d || c === 0x7d) depth--;
    else if (c >= 0x30 && c <= 0x39 && !isNumberChar(text.charCodeAt(i - 1))) {
      let end = i;
      while (end < text.length && isNumberChar(text.charCodeAt(end))) end++;
      const literal = text.slice(i, end);
      if (/^\d{16,}$/.test(literal)) {
        out += `${text.slice(from, i)}"${literal}"`;
        from = end;
      }
      i = end - 1;
    }
  }
  return JSON.parse(out + text.slice(from));
}

function isNumberChar(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || c === 0x2e || c === 0x2d || c === 0x2b || c === 0x65 || c === 0x45;
}

/**
 * Hands a parsed document's objects to the sink: `*List` kinds flattened (kubectl's typed Lists
 * omit each item's kind, so it is taken from the List's), each object once however many files
 * hold it (a must-gather has a pod in `core/pods.yaml` and in `pods/<pod>/<pod>.yaml`).
 */
export class ObjectEmitter {
  readonly #seen = new Set<string>();
  /** `namespace/pod` -> node, so a log read after its pod names the node. */
  readonly podNodes = new Map<string, string>();

  constructor(private readonly sink: CollectionSink) {}

  emit(doc: unknown, source: string): number {
    if (!isObject(doc) || typeof doc.kind !== 'string') return 0;
    if (!doc.kind.endsWith('List') || !Array.isArray(doc.items)) return this.#one(doc as KubeObject, source);
    const kind = doc.kind.slice(0, -'List'.length);
    let count = 0;
    for (const item of doc.items) {
      if (!isObject(item)) continue;
      const apiVersion = typeof doc.apiVersion === 'string' ? { apiVersion: doc.apiVersion } : {};
      count += this.#one({ ...apiVersion, kind, ...item } as KubeObject, source);
    }
    return count;
  }

  #one(obj: KubeObject, source: string): number {
    const key = `${obj.kind}/${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''}`;
    if (obj.metadata?.name && this.#seen.has(key)) return 0;
    this.#seen.add(key);
    const nodeName = (obj.spec as { nodeName?: unknown } | undefined)?.nodeName;
    if (obj.kind === 'Pod' && typeof nodeName === 'string') {
      this.podNodes.set(`${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''}`, nodeName);
    }
    this.sink.object(obj, { source });
    return 1;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
