/** etcd3 returns uint64 ids as decimal strings; etcdctl's table output and logs use hex. */
export function toHexId(id: string | number | bigint | undefined): string {
  if (id === undefined || id === '' || id === null) return '0';
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
 * Every run compares each member's URLs with the config's (a few dozen calls): parsing a URL each
 * time was a tenth of a warm health check's own CPU. Bounded, so a digest over many clusters cannot
 * grow it past NORMALIZED_CACHE_SIZE entries.
 */
const normalized = new Map<string, string>();
const NORMALIZED_CACHE_SIZE = 4096;

export function normalizeUrl(url: string): string {
  const known = normalized.get(url);
  if (known !== undefined) return known;
  if (normalized.size >= NORMALIZED_CACHE_SIZE) normalized.clear();
  const value = parseNormalized(url);
  normalized.set(url, value);
  return value;
}

function parseNormalized(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}`.toLowerCase();
  } catch {
    return url.replace(/\/+$/, '').toLowerCase();
  }
}
