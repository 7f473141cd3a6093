/**
 * Crashes of etcd whose cause the etcd maintainers found, as data: what the panic says, the frame
 * or versions that tell it apart, the issue, and the fix. Each entry is checked against etcd's
 * source at the release tags it names.
 */
export interface KnownCrash {
  /** What the panic says. */
  message: RegExp;
  /** A frame the trace holds, when the message alone is every nil dereference. */
  frame?: RegExp;
  /** The versions that crash so, inclusive (`3.4.25`–`3.4.29`). */
  versions?: { from: string; to: string };
  issue: string;
  /** One line: what goes wrong. */
  what: string;
  fix: string;
}

export const KNOWN_CRASHES: readonly KnownCrash[] = [
  {
    // v3.4.25–v3.4.29 embed/serve.go: `sctx.lg.Error("registerGateway failed", …)` with sctx.lg nil
    // under --logger=capnslog; v3.4.30 checks it (d441d74c, etcd-io/etcd#17270).
    message: /invalid memory address or nil pointer dereference/,
    frame: /embed\.\(\*serveCtx\)\.serve/,
    versions: { from: '3.4.25', to: '3.4.29' },
    issue: 'https://github.com/etcd-io/etcd/issues/17265',
    what: 'with --logger=capnslog, a failed gRPC gateway registration is logged through a nil zap logger',
    fix: 'upgrade to 3.4.30 or later (etcd-io/etcd#17270), and find why the gateway registration failed',
  },
  {
    // v3.6.x server/etcdserver/apply_v2.go: `lg.Panic("detected disallowed v2 WAL for stage
    // --v2-deprecation=write-only", …)` on v2 requests left in the WAL by a 3.5 member.
    message: /detected disallowed v2 WAL for stage/,
    issue: 'https://github.com/etcd-io/etcd/issues/20809',
    what: 'etcd 3.6 panics on v2 entries a 3.5 member left in its WAL',
    fix: "follow etcd's 3.6 upgrade guide: upgrade from 3.5.32 or later, with `etcdutl check v2store` passing on every member first",
  },
];

/** The known crash a panic matches, by its message, its frames and the version that crashed. */
export function matchKnownCrash(
  message: string,
  frames: readonly string[],
  version: string | undefined,
): KnownCrash | undefined {
  return KNOWN_CRASHES.find(
    (k) =>
      k.message.test(message) &&
      (!k.frame || frames.some((f) => k.frame?.test(f))) &&
      (!k.versions || (version !== undefined && inRange(version, k.versions.from, k.versions.to))),
  );
}

function inRange(version: string, from: string, to: string): boolean {
  return compareVersions(version, from) >= 0 && compareVersions(version, to) <= 0;
}

/** `3.4.9` < `3.4.25`: numeric by part. */
export function compareVersions(a: string, b: string): number {
  const parts = (v: string) => v.replace(/^v/, '').split(/[.-]/).slice(0, 3).map(Number);
  const [x, y] = [parts(a), parts(b)];
  for (let i = 0; i < 3; i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0);
    if (d !== 0 && Number.isFinite(d)) return d;
  }
  return 0;
}
