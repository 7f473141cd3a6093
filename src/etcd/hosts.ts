/**
 * The host of an address etcd logs (`rejected connection from "127.0.0.2:50412"`, a peer's dial
 * address `[::1]:2380`), without its port or IPv6 brackets; undefined for anything else.
 */
export function hostOfAddress(address: string | undefined): string | undefined {
  return address ? /^\[?([^\]]*?)\]?:\d+$/.exec(address)?.[1] : undefined;
}

/** The host of a member list URL (`https://[::1]:2380` -> `::1`); undefined when it does not parse. */
export function hostOfUrl(url: string): string | undefined {
  try {
    return new URL(url).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return undefined;
  }
}
