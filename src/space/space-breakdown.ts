/**
 * What fills etcd, from (key, bytes) pairs: keys and bytes per Kubernetes resource, per namespace
 * within the top resources, and the largest objects (docs/space.md). Pure: the snapshot reader
 * (src/offline/snapshot/) feeds it, and so can a live scan.
 */

/** The key prefixes apiservers write under: kubeadm and k3s `/registry/`, OpenShift `/kubernetes.io/` and `/openshift.io/`. */
export const DEFAULT_KEY_PREFIXES: readonly string[] = ['/registry/', '/kubernetes.io/', '/openshift.io/'];

export interface SpaceEntry {
  key: string;
  /** Key plus value, in bytes. */
  bytes: number;
}

export interface ResourceSpace {
  resource: string;
  /** The key prefix the resource's objects share (`/registry/configmaps/`). */
  prefix: string;
  keys: number;
  bytes: number;
  /** Of all the keys' bytes, 0..1. */
  share: number;
}

export interface NamespaceSpace {
  resource: string;
  namespace: string;
  keys: number;
  bytes: number;
}

export interface LargestObject {
  key: string;
  bytes: number;
  resource: string;
}

/** Namespaces listed per top resource. */
const NAMESPACES_PER_RESOURCE = 10;

/** The `space` breakdown of the JSON contracts (DESIGN.md: `space`, `analyze snapshot.db`). */
export interface SpaceBreakdown {
  totalKeys: number;
  totalBytes: number;
  byResource: ResourceSpace[];
  byNamespace: NamespaceSpace[];
  largest: LargestObject[];
}

export interface SpaceOptions {
  prefixes?: readonly string[];
  /** How many resources `byNamespace` covers (the largest by bytes); default 10. */
  topResources?: number;
  /** Objects in `largest`; default 20. */
  largest?: number;
}

/** Where a key sits in the layout: its resource, the prefix it shares, its namespace if it has one. */
export interface KeyPlace {
  resource: string;
  prefix: string;
  namespace?: string;
}

/**
 * `/registry/<resource>/<namespace>/<name>` or `/registry/<resource>/<name>` (cluster-scoped); a
 * second segment with a dot is an API group, so `/registry/example.com/widgets/ns/w1` is
 * `widgets.example.com`, as kubectl names it. Services and Endpoints share `/registry/services/`
 * (`specs/`, `endpoints/`). A key outside the layout is grouped by its first two segments.
 */
export function placeKey(key: string, prefixes: readonly string[] = DEFAULT_KEY_PREFIXES): KeyPlace {
  const root = prefixes.find((p) => key.startsWith(p) && key.length > p.length);
  if (root === undefined) return outsideLayout(key);
  const segments = key.slice(root.length).split('/');
  let at = 0;
  let resource = segments[at++] ?? '';
  let prefix = `${root}${resource}/`;
  const group = resource.includes('.') ? resource : undefined;
  if (group !== undefined) {
    resource = `${segments[at++] ?? ''}.${group}`;
    prefix = `${root}${group}/${segments[at - 1]}/`;
  } else if (resource === 'services' && (segments[at] === 'specs' || segments[at] === 'endpoints')) {
    resource = segments[at] === 'specs' ? 'services' : 'endpoints';
    prefix = `${root}services/${segments[at++]}/`;
  }
  const rest = segments.length - at;
  if (rest < 1 || resource.startsWith('.') || segments.slice(at).some((s) => s === ''))
    return outsideLayout(key);
  return rest >= 2 ? { resource, prefix, namespace: segments[at] ?? '' } : { resource, prefix };
}

function outsideLayout(key: string): KeyPlace {
  const lead = key.startsWith('/') ? '/' : '';
  const segments = key.slice(lead.length).split('/');
  const two =
    segments.length > 2 ? segments.slice(0, 2) : segments.slice(0, Math.max(1, segments.length - 1));
  const resource = `${lead}${two.join('/')}`;
  return { resource, prefix: two.length < segments.length ? `${resource}/` : resource };
}

interface Tally {
  prefix: string;
  keys: number;
  bytes: number;
  namespaces: Map<string, { keys: number; bytes: number }>;
}

/** The breakdown of every entry given, largest first (by bytes, then by name for ties). */
export function breakDownSpace(entries: Iterable<SpaceEntry>, opts: SpaceOptions = {}): SpaceBreakdown {
  const tally = createSpaceTally(opts);
  for (const { key, bytes } of entries) tally.add(key, bytes);
  return tally.breakdown();
}

/** A breakdown built one entry at a time (a live scan sees its keys page by page), never holding them. */
export interface SpaceTally {
  add(key: string, bytes: number): void;
  /** Keys per resource so far, without namespaces or the largest (a keys-only count). */
  keysByResource(): Map<string, { prefix: string; keys: number }>;
  breakdown(): SpaceBreakdown;
}

export function createSpaceTally(opts: SpaceOptions = {}): SpaceTally {
  const prefixes = opts.prefixes ?? DEFAULT_KEY_PREFIXES;
  const tallies = new Map<string, Tally>();
  const largest = new TopN<LargestObject>(opts.largest ?? 20);
  let totalKeys = 0;
  let totalBytes = 0;
  return {
    add(key, bytes) {
      const place = placeKey(key, prefixes);
      const tally = tallies.get(place.resource) ?? {
        prefix: place.prefix,
        keys: 0,
        bytes: 0,
        namespaces: new Map(),
      };
      tallies.set(place.resource, tally);
      tally.keys++;
      tally.bytes += bytes;
      if (place.namespace !== undefined) {
        const ns = tally.namespaces.get(place.namespace) ?? { keys: 0, bytes: 0 };
        tally.namespaces.set(place.namespace, { keys: ns.keys + 1, bytes: ns.bytes + bytes });
      }
      largest.offer(bytes, { key, bytes, resource: place.resource });
      totalKeys++;
      totalBytes += bytes;
    },
    keysByResource: () => new Map([...tallies].map(([r, t]) => [r, { prefix: t.prefix, keys: t.keys }])),
    breakdown: () => rank(tallies, totalKeys, totalBytes, largest.sorted(), opts),
  };
}

function rank(
  tallies: Map<string, Tally>,
  totalKeys: number,
  totalBytes: number,
  largest: LargestObject[],
  opts: SpaceOptions,
): SpaceBreakdown {
  const ranked = [...tallies.entries()].sort(byBytesThenName);
  const byResource = ranked.map(([resource, t]) => ({
    resource,
    prefix: t.prefix,
    keys: t.keys,
    bytes: t.bytes,
    share: shareOf(t.bytes, totalBytes),
  }));
  const byNamespace = ranked.slice(0, opts.topResources ?? 10).flatMap(([resource, t]) =>
    [...t.namespaces.entries()]
      .sort(byBytesThenName)
      .slice(0, NAMESPACES_PER_RESOURCE)
      .map(([namespace, n]) => ({ resource, namespace, keys: n.keys, bytes: n.bytes })),
  );
  return { totalKeys, totalBytes, byResource, byNamespace, largest };
}

/** `part` of `whole`, 0..1 to four places (0 of nothing). */
export function shareOf(part: number, whole: number): number {
  return whole === 0 ? 0 : Number((part / whole).toFixed(4));
}

function byBytesThenName(a: [string, { bytes: number }], b: [string, { bytes: number }]): number {
  return b[1].bytes - a[1].bytes || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
}

/** The n largest items seen, kept without holding every entry (a live scan may see millions). */
class TopN<T> {
  private items: Array<{ score: number; item: T }> = [];
  constructor(private readonly n: number) {}

  offer(score: number, item: T): void {
    if (this.n <= 0) return;
    if (this.items.length === this.n && score <= (this.items.at(-1)?.score ?? 0)) return;
    const at = this.items.findIndex((i) => i.score < score);
    this.items.splice(at === -1 ? this.items.length : at, 0, { score, item });
    if (this.items.length > this.n) this.items.pop();
  }

  sorted(): T[] {
    return this.items.map((i) => i.item);
  }
}
