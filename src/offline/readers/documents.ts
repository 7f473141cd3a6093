import { parse as parseYaml } from 'yaml';
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

/** YAML as `oc` writes it (1.2 core schema: timestamps stay strings; at most 100 aliases, no alias bombs). */
export function parseYamlDocument(text: string): unknown {
  return parseYaml(text, { maxAliasCount: 100, prettyErrors: false });
}

/**
 * JSON with every integer longer than 15 digits kept as its decimal string: etcdctl's `-w json`
 * prints member and cluster IDs as uint64 numbers (`10501334649042878790`) that a JS number rounds,
 * and a rounded ID no longer matches the hex ID the logs print. `BigInt(value)` reads both forms.
 */
export function parseJsonKeepingBigIntegers(text: string): unknown {
  let out = '';
  let from = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
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
