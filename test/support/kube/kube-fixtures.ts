/**
 * Kubernetes fixture folders (test/fixtures/kube/<scenario>/), as `kubectl get -o json` would
 * print them. A scenario may name a `base` scenario and change only what differs:
 *   - `pods.json` (a List) replaces the base's list; `pods.patch.json` maps `<namespace>/<name>`
 *     (nodes: `<name>`) to a JSON merge patch (RFC 7386), `null` to delete, or a new object;
 *   - any other file (logs/<ns>/<pod>/<container>[.previous].log, readyz.txt, metrics.txt,
 *     version.json, operator/etcds-cluster.json) is looked up in the scenario, then in its base.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const KUBE_FIXTURES_DIR = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  'fixtures',
  'kube',
);

export type KubeObject = Record<string, unknown> & {
  metadata: { name: string; namespace?: string } & Record<string, unknown>;
};

export const LIST_KINDS = ['pods', 'nodes', 'events', 'leases', 'cronjobs', 'jobs'] as const;
export type ListKind = (typeof LIST_KINDS)[number];

export interface ScenarioDelay {
  resource: string;
  namespace?: string;
  ms: number;
}

export interface Scenario {
  description: string;
  distribution: 'kubeadm' | 'openshift';
  /** When the objects were recorded: tests use it as "now". */
  recordedAt: string;
  base?: string;
  delays?: ScenarioDelay[];
}

export interface KubeFixture {
  name: string;
  scenario: Scenario;
  recordedAtMs: number;
  objects: Record<ListKind, KubeObject[]>;
  /** A file of the scenario or its base chain, or undefined. */
  readText(relativePath: string): string | undefined;
  /** Logs set at run time (FakeKubeApi.setLog), by `namespace/pod/container`; they win over files. */
  logOverrides?: Map<string, string>;
}

export function loadKubeFixture(name: string): KubeFixture {
  const dir = join(KUBE_FIXTURES_DIR, name);
  const own = JSON.parse(readFileSync(join(dir, 'scenario.json'), 'utf8')) as Scenario;
  const base = own.base ? loadKubeFixture(own.base) : undefined;
  const objects = {} as Record<ListKind, KubeObject[]>;
  for (const kind of LIST_KINDS) objects[kind] = loadList(dir, kind, base?.objects[kind] ?? []);
  const readText = (relativePath: string): string | undefined => {
    const path = join(dir, relativePath);
    return existsSync(path) ? readFileSync(path, 'utf8') : base?.readText(relativePath);
  };
  return { name, scenario: own, recordedAtMs: Date.parse(own.recordedAt), objects, readText };
}

function loadList(dir: string, kind: ListKind, inherited: KubeObject[]): KubeObject[] {
  const listPath = join(dir, `${kind}.json`);
  let items = existsSync(listPath)
    ? ((JSON.parse(readFileSync(listPath, 'utf8')) as { items: KubeObject[] }).items ?? [])
    : inherited;
  const patchPath = join(dir, `${kind}.patch.json`);
  if (existsSync(patchPath))
    items = applyPatches(items, JSON.parse(readFileSync(patchPath, 'utf8')) as Record<string, unknown>);
  return items;
}

export function objectKey(o: KubeObject): string {
  return o.metadata.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : o.metadata.name;
}

function applyPatches(items: KubeObject[], patches: Record<string, unknown>): KubeObject[] {
  const out: KubeObject[] = [];
  const seen = new Set<string>();
  for (const item of items) {
    const key = objectKey(item);
    seen.add(key);
    if (!(key in patches)) out.push(item);
    else if (patches[key] !== null) out.push(mergePatch(item, patches[key]) as KubeObject);
  }
  for (const [key, patch] of Object.entries(patches)) {
    if (!seen.has(key) && patch !== null) out.push(patch as KubeObject);
  }
  return out;
}

/** RFC 7386: objects merge key by key, `null` deletes, anything else (arrays too) replaces. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isPlainObject(patch)) return patch;
  const result: Record<string, unknown> = isPlainObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
