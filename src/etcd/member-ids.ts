/**
 * etcd3 returns uint64 ids as decimal strings; etcdctl's table output and logs use hex. A cluster's
 * ids never change, and every Status carries three (member, cluster, leader): the hex of a decimal
 * string is kept (bounded like the URL caches below) instead of a BigInt parse each time.
 */
export function toHexId(id: string | number | bigint | undefined): string {
  if (id === undefined || id === '' || id === null) return '0';
  return typeof id === 'string' ? hexOfDecimal(id) : hexOf(id);
}

function hexOf(id: string | number | bigint): string {
  try {
    return BigInt(id).toString(16);
  } catch {
    return String(id);
  }
}

/** `http://127.0.0.1:2379/` and `http://127.0.0.1:2379` name the same member. */
export function sameUrl(a: string, b: string): boolean {
  return normalizeUrl(a) === normalizeUrl(b);
}

/**
 * Every run compares each member's URLs with the config's (a few dozen calls) and names its targets
 * by host: parsing a URL each time was a tenth of a warm health check's own CPU. Bounded, so a
 * digest over many clusters cannot grow one past URL_CACHE_SIZE entries.
 */
const URL_CACHE_SIZE = 4096;

function cached(parse: (key: string) => string): (key: string) => string {
  const known = new Map<string, string>();
  return (key) => {
    const hit = known.get(key);
    if (hit !== undefined) return hit;
    if (known.size >= URL_CACHE_SIZE) known.clear();
    const value = parse(key);
    known.set(key, value);
    return value;
  };
}

export const normalizeUrl = cached(parseNormalized);

const hexOfDecimal = cached(hexOf);

/** `http://127.0.0.1:2379` -> `127.0.0.1:2379` (throws on a URL that does not parse, as URL does). */
export const hostOf = cached((url) => new URL(url).host);

/** `http://127.0.0.1:2381` -> `/`, `http://127.0.0.1:2381/metrics` -> `/metrics`. */
export const pathOf = cached((url) => new URL(url).pathname);

function parseNormalized(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}`.toLowerCase();
  } catch {
    return url.replace(/\/+$/, '').toLowerCase();
  }
}
