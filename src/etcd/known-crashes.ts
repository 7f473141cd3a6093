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
  /** The versions that crash so, inclusive (`3.4.25`–`3.4.29`); a crash whose version is not known still matches by its frame. */
  versions?: { from: string; to: string };
  issue: string;
  /** One line: what goes wrong. */
  what: string;
  fix: string;
}

export const KNOWN_CRASHES: readonly KnownCrash[] = [
  {
    // v3.3.23 is the one 3.3 release built with a go.mod (github.com/golang/protobuf v1.4.2, hence
    // google.golang.org/protobuf's reflection), which cannot encode loggablePutRequest's `int` field;
    // v3.3.24 makes it int64 (cc5cc3ae, the cherry-pick of etcd-io/etcd#12106 in #12215).
    message: /invalid Go type int for field \S*loggablePutRequest\.value_size/,
    versions: { from: '3.3.23', to: '3.3.23' },
    issue: 'https://github.com/etcd-io/etcd/issues/12156',
    what: "etcd 3.3.23's protobuf cannot log a put request's value size and panics on it",
    fix: 'upgrade to 3.3.24 or later (the field is int64 there: etcd-io/etcd#12215)',
  },
  {
    // v3.4.20 etcdserver/v3_server.go requestCurrentIndex: `lg.Warn(…)` with lg nil under
    // --logger=capnslog (the function is new in 3.4.20); v3.4.21 checks it.
    message: /invalid memory address or nil pointer dereference/,
    frame: /etcdserver\.\(\*EtcdServer\)\.requestCurrentIndex/,
    versions: { from: '3.4.20', to: '3.4.20' },
    issue: 'https://github.com/etcd-io/etcd/issues/14402',
    what: 'etcd 3.4.20 with --logger=capnslog logs a slow ReadIndex through a nil zap logger',
    fix: 'upgrade to 3.4.21 or later, or run with --logger=zap',
  },
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
    // --v2-deprecation=write-only", …)` on v2 requests left in the WAL by a 3.5 member; v3.6.13
    // server/config/v2_deprecation.go adds `write-only-skip-check`.
    message: /detected disallowed v2 WAL for stage/,
    issue: 'https://github.com/etcd-io/etcd/issues/20809',
    what: 'etcd 3.6 panics on v2 entries a 3.5 member left in its WAL',
    fix: "follow etcd's 3.6 upgrade guide (etcd.io/docs/v3.6/upgrades/upgrade_3_6): from 3.5.32 or later, `etcdutl check v2store` on every member first; etcd 3.6.13 adds `--v2-deprecation=write-only-skip-check` to start past the check, at your own risk (etcd-io/etcd#21850)",
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
      (!k.versions || version === undefined || inRange(version, k.versions.from, k.versions.to)),
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
