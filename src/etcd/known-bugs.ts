/**
 * Known data-loss, corruption and security bugs of etcd releases, as data: the versions each
 * affects per minor and the first patch that fixes it. Every row comes from etcd's CHANGELOGs
 * (CHANGELOG/CHANGELOG-3.4.md … 3.7.md on etcd-io/etcd main at c34dc7ee, 2026-08-20) and, for the
 * security rows, the advisory the CHANGELOG links. A minor the CHANGELOG names no fix for is not
 * listed: we do not claim it is affected (3.4 is absent from the 2026-07 advisories for that reason).
 */

/** When the table was last checked against etcd's CHANGELOGs (shown beside every finding). */
export const KNOWN_BUGS_DATE = '2026-08-20';

export type KnownBugKind = 'data-loss' | 'corruption' | 'security';

/** The affected range within one minor: from `from` (inclusive) up to the fixed patch (exclusive). */
export interface AffectedRange {
  from: string;
  fixed: string;
}

export interface KnownBug {
  id: string;
  kind: KnownBugKind;
  /** One line: what goes wrong. */
  title: string;
  link: string;
  /** One range per minor the CHANGELOG names a fix in. */
  affected: readonly AffectedRange[];
  /** Only clusters of one member are exposed (the durability bug). */
  singleMemberOnly?: boolean;
}

export const KNOWN_BUGS: readonly KnownBug[] = [
  {
    // CHANGELOG-3.5 v3.5.3: "Fix Inconsistent revision and data occurs" (#13908); the maintainers'
    // notice: 3.5.0-3.5.2 are not recommended for production (etcd-io/etcd#13766).
    id: 'etcd-13766',
    kind: 'corruption',
    title:
      'members can apply a write twice or skip it after a crash: revisions and data differ between members',
    link: 'https://github.com/etcd-io/etcd/issues/13766',
    affected: [{ from: '3.5.0', fixed: '3.5.3' }],
  },
  {
    // CHANGELOG-3.4 v3.4.21 (#14423), CHANGELOG-3.5 v3.5.5 (#14424): "Durability API guarantee
    // broken in single node cluster": a write acknowledged before it is fsynced (etcd-io/etcd#14370).
    id: 'etcd-14370',
    kind: 'data-loss',
    title: 'a one-member cluster acknowledges writes before they are on disk: a crash loses them',
    link: 'https://github.com/etcd-io/etcd/issues/14370',
    affected: [
      { from: '3.4.0', fixed: '3.4.21' },
      { from: '3.5.0', fixed: '3.5.5' },
    ],
    singleMemberOnly: true,
  },
  {
    // CHANGELOG-3.5 v3.5.6: "revision might be inconsistency between members when etcd crashes
    // during processing defragmentation operation" (#14733).
    id: 'etcd-14733',
    kind: 'corruption',
    title:
      'a member that crashes during a defragmentation can come back with a revision its peers do not have',
    link: 'https://github.com/etcd-io/etcd/pull/14733',
    affected: [{ from: '3.5.0', fixed: '3.5.6' }],
  },
  {
    // CHANGELOG-3.5 v3.5.12: "Fix delete inconsistencies in read buffer" (#17230).
    id: 'etcd-17230',
    kind: 'corruption',
    title: 'a deleted key can still be read from the read buffer: reads disagree with the database',
    link: 'https://github.com/etcd-io/etcd/pull/17230',
    affected: [{ from: '3.5.0', fixed: '3.5.12' }],
  },
  {
    // CHANGELOG-3.4 v3.4.38 (#20659), 3.5 v3.5.23 (#20653), 3.6 v3.6.5 (#20650): "potential data
    // corruption when applySnapshot and defragment happen concurrently".
    id: 'etcd-20653',
    kind: 'corruption',
    title: 'a defragmentation while the member applies a snapshot from the leader can corrupt its database',
    link: 'https://github.com/etcd-io/etcd/pull/20653',
    affected: [
      { from: '3.4.0', fixed: '3.4.38' },
      { from: '3.5.0', fixed: '3.5.23' },
      { from: '3.6.0', fixed: '3.6.5' },
    ],
  },
  {
    // CHANGELOG-3.4 v3.4.25 (#15655), 3.5 v3.5.8 (#15653): "Fix CVE-2021-28235 by clearing password
    // after authenticating the user".
    id: 'CVE-2021-28235',
    kind: 'security',
    title: "a user's password stays in memory after authentication and can leak through the debug endpoints",
    link: 'https://nvd.nist.gov/vuln/detail/CVE-2021-28235',
    affected: [
      { from: '3.4.0', fixed: '3.4.25' },
      { from: '3.5.0', fixed: '3.5.8' },
    ],
  },
  {
    // CHANGELOG-3.4 v3.4.26 (#15814), 3.5 v3.5.9 (#15815): "LeaseTimeToLive API may return keys to
    // clients which have no read permission on the keys" (CVE-2023-32082).
    id: 'CVE-2023-32082',
    kind: 'security',
    title: 'LeaseTimeToLive returns the names of keys the caller may not read',
    link: 'https://nvd.nist.gov/vuln/detail/CVE-2023-32082',
    affected: [
      { from: '3.4.0', fixed: '3.4.26' },
      { from: '3.5.0', fixed: '3.5.9' },
    ],
  },
  {
    // CHANGELOG-3.4 v3.4.42, 3.5 v3.5.28, 3.6 v3.6.9: "Guard unauthenticated endpoints with auth checks".
    id: 'CVE-2026-33413',
    kind: 'security',
    title: 'several APIs skip the authorization check (authorization bypasses)',
    link: 'https://github.com/etcd-io/etcd/security/advisories/GHSA-q8m4-xhhv-38mg',
    affected: [
      { from: '3.4.0', fixed: '3.4.42' },
      { from: '3.5.0', fixed: '3.5.28' },
      { from: '3.6.0', fixed: '3.6.9' },
    ],
  },
  {
    // Same releases: "Enforce auth checks for nested txn ops".
    id: 'CVE-2026-33343',
    kind: 'security',
    title: 'operations nested in a transaction bypass RBAC authorization checks',
    link: 'https://github.com/etcd-io/etcd/security/advisories/GHSA-rfx7-8w68-q57q',
    affected: [
      { from: '3.4.0', fixed: '3.4.42' },
      { from: '3.5.0', fixed: '3.5.28' },
      { from: '3.6.0', fixed: '3.6.9' },
    ],
  },
  {
    // CHANGELOG-3.5 v3.5.32, 3.6 v3.6.13, 3.7 v3.7.0: "CRL enforcement bypass on gRPC listener when
    // --listen-client-http-urls is configured".
    id: 'GHSA-3wh4-j44w-pg92',
    kind: 'security',
    title:
      'with --listen-client-http-urls set, the gRPC listener does not enforce the certificate revocation list',
    link: 'https://github.com/etcd-io/etcd/security/advisories/GHSA-3wh4-j44w-pg92',
    affected: [
      { from: '3.5.0', fixed: '3.5.32' },
      { from: '3.6.0', fixed: '3.6.13' },
      { from: '3.7.0-alpha.0', fixed: '3.7.0' },
    ],
  },
  {
    // CHANGELOG-3.5 v3.5.33, 3.6 v3.6.14, 3.7 v3.7.1: watch responses for keys past the one granted.
    id: 'GHSA-xg4h-6gfc-h4m8',
    kind: 'security',
    title: 'a user allowed to read one key receives watch events for every key after it',
    link: 'https://github.com/etcd-io/etcd/security/advisories/GHSA-xg4h-6gfc-h4m8',
    affected: [
      { from: '3.5.0', fixed: '3.5.33' },
      { from: '3.6.0', fixed: '3.6.14' },
      { from: '3.7.0-alpha.0', fixed: '3.7.1' },
    ],
  },
  {
    // Same releases: "Set a tlsHandshakeTimeout for tlsListener": a client that never finishes its
    // TLS handshake holds a connection forever.
    id: 'GHSA-6vch-q96h-7gc3',
    kind: 'security',
    title: 'TLS handshakes have no timeout: clients that never finish one hold connections open',
    link: 'https://github.com/etcd-io/etcd/security/advisories/GHSA-6vch-q96h-7gc3',
    affected: [
      { from: '3.5.0', fixed: '3.5.33' },
      { from: '3.6.0', fixed: '3.6.14' },
      { from: '3.7.0-alpha.0', fixed: '3.7.1' },
    ],
  },
];

/** A parsed etcd version: major, minor, patch and a pre-release tag (`rc.0`), or undefined. */
export interface EtcdVersion {
  major: number;
  minor: number;
  patch: number;
  pre?: string;
}

/** `3.5.30`, `v3.6.0-rc.1`, `3.4.23+dfsg`: the numbers etcd reports; anything else is undefined. */
export function parseEtcdVersion(text: string): EtcdVersion | undefined {
  const m = /^v?(\d{1,3})\.(\d{1,4})\.(\d{1,4})(?:-([0-9A-Za-z.]{1,32}))?/.exec(text.trim().slice(0, 64));
  if (!m) return undefined;
  const v: EtcdVersion = { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3]) };
  if (m[4]) v.pre = m[4];
  return v;
}

/** Semver order; a pre-release comes before its release (3.7.0-rc.0 < 3.7.0). */
export function compareVersions(a: EtcdVersion, b: EtcdVersion): number {
  const d = a.major - b.major || a.minor - b.minor || a.patch - b.patch;
  if (d !== 0) return d;
  if (a.pre === b.pre) return 0;
  if (a.pre === undefined) return 1;
  if (b.pre === undefined) return -1;
  return a.pre < b.pre ? -1 : 1;
}

/** The range of `bug` that `version` falls in, or undefined when it is not affected. */
export function affectedRange(bug: KnownBug, version: EtcdVersion): AffectedRange | undefined {
  return bug.affected.find((r) => {
    const from = parseEtcdVersion(r.from);
    const fixed = parseEtcdVersion(r.fixed);
    return from && fixed && compareVersions(version, from) >= 0 && compareVersions(version, fixed) < 0;
  });
}

export interface KnownBugHit {
  bug: KnownBug;
  range: AffectedRange;
}

/** The bugs of the table a member running `version` has, in table order. */
export function knownBugsOf(version: string, opts: { memberCount: number }): KnownBugHit[] {
  const v = parseEtcdVersion(version);
  if (!v) return [];
  const hits: KnownBugHit[] = [];
  for (const bug of KNOWN_BUGS) {
    if (bug.singleMemberOnly && opts.memberCount !== 1) continue;
    const range = affectedRange(bug, v);
    if (range) hits.push({ bug, range });
  }
  return hits;
}

/** The patch that fixes every hit (they share one minor): the highest of their fixes. */
export function patchToReach(hits: readonly KnownBugHit[]): string | undefined {
  let best: EtcdVersion | undefined;
  for (const h of hits) {
    const v = parseEtcdVersion(h.range.fixed);
    if (v && (!best || compareVersions(v, best) > 0)) best = v;
  }
  return best ? `${best.major}.${best.minor}.${best.patch}${best.pre ? `-${best.pre}` : ''}` : undefined;
}

/**
 * The lowest etcd a Kubernetes minor's kubeadm supports: kubeadm 1.36 refuses etcd below 3.6.0
 * (kubernetes#135701; Kubernetes 1.34 to 1.36 ship etcd 3.6: kubernetes#138392, #138746).
 */
export const KUBEADM_MIN_ETCD: ReadonlyArray<{ fromKubernetesMinor: number; etcd: string; source: string }> =
  [
    {
      fromKubernetesMinor: 36,
      etcd: '3.6.0',
      source: 'https://github.com/kubernetes/kubernetes/pull/135701',
    },
  ];

/** `v1.34.2` → 34; anything else undefined. */
export function kubernetesMinorOf(gitVersion: string | undefined): number | undefined {
  const m = /^v?1\.(\d{1,3})\./.exec(gitVersion ?? '');
  return m?.[1] ? Number(m[1]) : undefined;
}

/** The floor kubeadm of this Kubernetes version puts under etcd, or undefined. */
export function kubeadmEtcdFloor(gitVersion: string | undefined) {
  const minor = kubernetesMinorOf(gitVersion);
  if (minor === undefined) return undefined;
  const floor = [...KUBEADM_MIN_ETCD].reverse().find((f) => minor >= f.fromKubernetesMinor);
  return floor ? { ...floor, kubernetesMinor: minor } : undefined;
}
