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

export function normalizeUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}`.toLowerCase();
  } catch {
    return url.replace(/\/+$/, '').toLowerCase();
  }
}
