/**
 * What stops an etcd member from outside etcd's own logic, and what a crash says, as etcd and Go's
 * runtime write it: file descriptors, disk space, memory, names that do not resolve, a damaged data
 * dir, database snapshots sent again and again to one follower, slow authentication, expired
 * certificates, and panics with their first frames. Same style as scan-logs.ts (a line in, counts
 * out, nothing anchored on a prefix), grouped here so the catalogue of etcd's messages can fold it
 * in. Message texts are etcd's at the release tags named beside each pattern (ETCD33 = v3.3.27,
 * ETCD34 = v3.4.45, ETCD35 = v3.5.33, ETCD36 = v3.6.14) and Go's runtime and net packages.
 */

import { catalogueSignal, literal } from './catalogue.js';
import { hostOfAddress } from './hosts.js';
import { type CountStat, type DurationStat, EXAMPLE_CHARS, parseGoDuration, type Seen } from './log-stat.js';

export interface FdNearLimitStat extends CountStat {
  used?: number;
  limit?: number;
}

/** A count and where it happened: `wal`, `snap`, `db`, `data dir` (disk full), or what is missing (data dir). */
export interface PlacesStat extends CountStat {
  where: string[];
}

export interface DnsStat extends CountStat {
  /** Host names that did not resolve, at most 9. */
  hosts: string[];
  /** The resolver's answer: `no such host`, `server misbehaving`, `i/o timeout`. */
  reason?: string;
  /** Lines of etcd's start-up resolution of its URLs (`failed to resolve URL Host`): it cannot start until they resolve. */
  atStart: number;
}

export interface AuthStat extends DurationStat {
  /** The users whose `authenticate` requests were slow, at most 5. */
  users: string[];
  /** Each slow authenticate request's time in seconds, at most 100 kept. */
  seconds: number[];
}

export interface SnapshotPeer {
  peerId: string;
  /** Snapshots started to this peer. */
  count: number;
  failed: number;
  lastError?: string;
  /** `1.2 GB` as etcd printed it. */
  size?: string;
  example: string;
  firstSeenAt?: string;
  lastSeenAt?: string;
}

export interface SnapshotSendStat extends CountStat {
  peers: SnapshotPeer[];
}

export interface CertExpiredStat extends CountStat {
  /** Remote IPs whose certificate was refused as expired (`remote-addr`), at most 9. */
  from: string[];
  /** Peers (member ids) whose certificate this member's dials found expired, at most 9. */
  peers: string[];
  /** `client` or `peer` where etcd 3.6 says which listener refused it. */
  endpoints: string[];
  /** The certificate's NotAfter from Go's `current time … is after <NotAfter>` (ISO 8601), the latest seen. */
  notAfter?: string;
  reasons: string[];
}

export interface CrashEvent {
  /** The panic or fatal error's message, cut to 200 characters. */
  message: string;
  count: number;
  /** The first frames of the goroutine that crashed, runtime and logger frames left out, at most 4. */
  frames: string[];
  /**
   * The signal of an outside cause on the crash line or just before it (`diskFull`,
   * `dataDirDamaged`, `tocommitOutOfRange`, …): the crash is that cause's, not etcd's own.
   */
  explainedBy?: string;
  example: string;
  firstSeenAt?: string;
  lastSeenAt?: string;
}

export interface CrashStat extends CountStat {
  events: CrashEvent[];
  /** Frame lines still to read after the last crash (a goroutine trace follows a panic). */
  framesLeft: number;
  /** Lines since the last line that showed an outside cause, and which. */
  sinceCause: number;
  lastCause?: string;
}

export interface CampaignStat extends CountStat {
  /** Peers (member ids) a campaign asked for votes (`sent MsgVote request to <id>`), at most 9. */
  askedPeers: string[];
  /** Peers that answered a campaign, granted or rejected (`received MsgVoteResp [rejection] from <id>`): reachable. */
  answeredBy: string[];
  /** `became pre-candidate at term N` lines: with pre-vote (3.5's default) a cut-off member's term does not rise. */
  preCandidacies: number;
  /**
   * The newest vote request's `[logterm: L, index: I]`: the campaigner's last log entry. raft's
   * Bootstrap writes one ConfChange entry per initial member at term 1 (raft/bootstrap.go, ETCD34
   * and etcd-io/raft), so a member still at logterm 1 and an index no higher than its voters has
   * never received an entry from any leader.
   */
  lastLog?: { term: number; index: number };
}

export interface FaultSignals {
  /** Go's EMFILE text `too many open files` on accept, dial or open. */
  fdExhausted: CountStat;
  /** etcd's own warning at 80 % of its file descriptor limit. */
  fdNearLimit: FdNearLimitStat;
  /** ENOSPC: `no space left on device`, not the quota (`database space exceeded` is db-quota's). */
  diskFull: PlacesStat;
  /** Go's runtime `fatal error: runtime: out of memory`. */
  outOfMemory: CountStat;
  /**
   * The kernel's OOM killer stopping etcd, or a process of a memory cgroup it did not name (the
   * container's log given as etcd's): a process it named that is not etcd is left out.
   */
  oomKilled?: CountStat;
  dnsFailed: DnsStat;
  /**
   * The data dir lost its snapshot database or its WAL, the WAL cannot be read, or snapshot files
   * could not be read and were set aside as `.snap.broken` (`where`: `snapshot files`).
   */
  dataDirDamaged: PlacesStat;
  /** A leader's database snapshots, per follower. */
  snapshotsSent: SnapshotSendStat;
  /** A follower's received database snapshots. */
  snapshotsReceived: CountStat;
  /** `authenticate` requests that took too long (etcd logs them above 100 ms). */
  slowAuth: AuthStat;
  /** TLS refused for an expired certificate, a client's or a peer's. */
  certExpired: CertExpiredStat;
  /** Panics and Go runtime fatal errors. */
  crashes: CrashStat;
  /** raft's vote requests and the peers that answered them: whom a campaigning member reaches. */
  campaign: CampaignStat;
  /** The etcd version the log's start says (`etcd Version: 3.4.13`, zap `etcd-version`). */
  etcdVersion?: string;
}

/** The signals of scan-logs.ts that name an outside cause of a crash that follows them. */
export type OutsideCauseSignals = Record<
  'tocommitOutOfRange' | 'memberRemoved' | 'alreadyBootstrapped' | 'clusterIdMismatch',
  CountStat
>;

export function emptyFaultSignals(): FaultSignals {
  const count = (): CountStat => ({ count: 0, example: undefined });
  return {
    fdExhausted: count(),
    fdNearLimit: count(),
    diskFull: { ...count(), where: [] },
    outOfMemory: count(),
    oomKilled: count(),
    dnsFailed: { ...count(), hosts: [], atStart: 0 },
    dataDirDamaged: { ...count(), where: [] },
    snapshotsSent: { ...count(), peers: [] },
    snapshotsReceived: count(),
    slowAuth: { ...count(), maxSeconds: undefined, users: [], seconds: [] },
    certExpired: { ...count(), from: [], peers: [], endpoints: [], reasons: [] },
    crashes: { ...count(), events: [], framesLeft: 0, sinceCause: Number.POSITIVE_INFINITY },
    campaign: { ...count(), askedPeers: [], answeredBy: [], preCandidacies: 0 },
  };
}

interface ZapLike {
  msg: string;
  fields: Record<string, unknown>;
}

const KUBECTL_TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d) /;

/**
 * Adds one line's fault signals to `s`, and pushes what it counted to `touched`. `touched` holds
 * what scan-logs.ts counted on the same line already: an outside cause there explains a crash.
 */
export function scanFaults(
  line: string,
  zap: ZapLike | undefined,
  s: FaultSignals & OutsideCauseSignals,
  touched: Seen[],
): void {
  const before = touched.length;
  // Each family is looked for only on a line holding its fixed words: the scan runs on every line.
  if (MAYBE_RESOURCE.test(line)) scanResources(line, zap, s, touched);
  if (MAYBE_DATA_DIR.test(line)) scanDataDir(line, zap, s, touched);
  if (line.includes('database snapshot')) scanSnapshots(line, zap, s, touched);
  if (line.includes('authenticate:<')) scanAuth(line, zap, s, touched);
  if (MAYBE_CAMPAIGN.test(line)) scanCampaign(line, s);
  if (line.includes('ersion')) readVersion(line, zap, s);
  const crashes = s.crashes;
  crashes.sinceCause++;
  const cause = touched.length > 0 ? outsideCauseOf(s, touched) : undefined;
  if (cause) {
    crashes.lastCause = cause;
    crashes.sinceCause = 0;
  }
  const crashLine = zap ? isZapPanic(zap) : MAYBE_CRASH.test(line);
  if (!crashLine && crashes.framesLeft <= 0) return;
  const text = zap ? line : line.replace(KUBECTL_TIMESTAMP, '');
  if (!(crashLine && scanCrash(text, zap, s, touched)) && touched.length === before) readFrame(text, crashes);
}

const MAYBE_RESOURCE = /too many open|file descriptor|no space left|out of memory|lookup |resolv|[Kk]ill/;
const MAYBE_DATA_DIR =
  /snapshot file doesn|SNAPSHOT-INDEX|wal: file not found|cannot be repaired|read wal error: |snap\.broken|broken snap file|corrupted snapshot|empty snapshot|snap file is corrupt|read a snap file|cannot read file|reachable pages/;
const MAYBE_CAMPAIGN = /[Vv]ote|pre-candidate/;
const MAYBE_CRASH = /(?:^|\s)(?:panic|fatal error): /;

// ---------------------------------------------------------------------------------------------
// File descriptors, disk space, memory, name resolution

// Go's syscall.EMFILE text, on accept (`accept tcp [::]:2379: accept4: too many open files`), dial
// (`dial tcp …: socket: too many open files`) and open (`failed to purge wal file open …: too many
// open files`, etcd-io/etcd#7643, #2928).
const TOO_MANY_FILES = /too many open files/;
// etcdserver/metrics.go monitorFileDescriptor: ETCD33/34 capnslog, ETCD34/35/36 zap `80% of file
// descriptors are used` with `used` and `limit`.
const FD_80_TEXT = /80% of the file descriptor limit is used \[used = (\d+), limit = (\d+)\]/;
const FD_80_ZAP = '80% of file descriptors are used';
// ENOSPC (`write …/member/wal/….wal: no space left on device`, etcd-io/etcd#8330, #3347).
const NO_SPACE = /no space left on device/;
// Go's runtime: mem_linux.go sysMap `throw("runtime: out of memory")`, malloc.go `throw("out of memory")`.
const OUT_OF_MEMORY = /fatal error: (?:runtime: )?out of memory\b/;
// The kernel's OOM killer (mm/oom_kill.c, mm/memcontrol.c): `Memory cgroup out of memory: Kill[ed]
// process <pid> (<comm>)`, `Out of memory: Kill[ed] process <pid> (<comm>)`, `oom-kill:…,task=<comm>,…`
// (Linux ≥ 4.19), and before 4.19 a memory cgroup's report `Task in <cgroup> killed as a result of
// limit of <cgroup>`, which names no process (etcd-io/etcd#8780).
const KERNEL_OOM =
  /(?:[Oo]ut of memory: Kill(?:ed)? process \d{1,10} \(([^)\s]{1,32})\)|oom-kill:\S{0,300}?\btask=([^,\s]{1,32}),|(?<![\w])()Task in \S{1,300} killed as a result of limit of )/;

/** The OOM killer's victim is etcd, or was not named. */
function isEtcdProcess(comm: string | undefined): boolean {
  return comm === undefined || comm === '' || /^etcd/.test(comm);
}

// Go's net package: `lookup <host>[ on <server>]: no such host` (and the resolver's other answers);
// pkg/netutil resolveURL: ETCD33 capnslog `failed resolving host <host:port> (<err>); retrying in 1s`
// and `could not resolve host <host:port>`, ETCD34/35/36 zap `failed to resolve URL Host` with `host`.
const LOOKUP_FAILED =
  /\blookup ([\w.-]{1,253})(?: on \S{1,64}?)?: (no such host|server misbehaving|Temporary failure in name resolution|[^"]{0,80}?i\/o timeout)/;
const RESOLVE_AT_START =
  /failed resolving host ([\w.-]{1,253})(?::\d+)? \(|could not resolve host ([\w.-]{1,253})/;

function scanResources(line: string, zap: ZapLike | undefined, s: FaultSignals, touched: Seen[]): void {
  if (TOO_MANY_FILES.test(line)) touched.push(addCount(s.fdExhausted, line));
  const fd = zap ? undefined : FD_80_TEXT.exec(line);
  if (fd || zap?.msg === FD_80_ZAP) {
    const stat = s.fdNearLimit;
    touched.push(addCount(stat, line));
    const used = Number(fd?.[1] ?? zap?.fields.used);
    const limit = Number(fd?.[2] ?? zap?.fields.limit);
    if (Number.isFinite(used) && used > 0) stat.used = used;
    if (Number.isFinite(limit) && limit > 0) stat.limit = limit;
  }
  if (NO_SPACE.test(line)) touched.push(addPlace(s.diskFull, diskPlace(line), line));
  if (OUT_OF_MEMORY.test(line)) touched.push(addCount(s.outOfMemory, line));
  const killed = KERNEL_OOM.exec(line);
  if (killed && isEtcdProcess(killed[1] ?? killed[2] ?? killed[3])) {
    s.oomKilled ??= { count: 0, example: undefined };
    touched.push(addCount(s.oomKilled, line));
  }
  scanDns(line, zap, s, touched);
}

/**
 * A dial that failed before it left the member's node: its name did not resolve (`dial tcp: lookup
 * etcd-1.etcd …: no such host`) or it had no descriptor for a socket (`socket: too many open files`).
 */
export function isLocalDialFailure(error: string): boolean {
  return LOOKUP_FAILED.test(error) || TOO_MANY_FILES.test(error);
}

// client/pkg/transport/listener.go checkCertSAN (ETCD34/35/36): a peer or client certificate that
// names DNS names but not the remote IP is checked by resolving those names, and the refusal quotes
// the lookup: `tls: "127.0.0.1" does not match any of DNSNames ["etcd-3.invalid"] (lookup
// etcd-3.invalid: no such host)`. That lookup is the certificate's check failing (peer-tls or
// cert-expiry's side), never a name this member needs to reach anyone.
const SAN_CHECK = /does not match any of DNSNames/;

function scanDns(line: string, zap: ZapLike | undefined, s: FaultSignals, touched: Seen[]): void {
  if (SAN_CHECK.test(line)) return;
  const lookup = LOOKUP_FAILED.exec(line);
  const start = zap ? undefined : RESOLVE_AT_START.exec(line);
  const zapStart = zap?.msg.startsWith('failed to resolve URL Host') === true;
  if (!lookup && !start && !zapStart) return;
  const stat = s.dnsFailed;
  touched.push(addCount(stat, line));
  if (start || zapStart) stat.atStart++;
  const zapHost = typeof zap?.fields.host === 'string' ? zap.fields.host.replace(/:\d+$/, '') : undefined;
  const host = lookup?.[1] ?? start?.[1] ?? start?.[2] ?? zapHost;
  if (host && stat.hosts.length < 9 && !stat.hosts.includes(host)) stat.hosts.push(host);
  const reason = lookup?.[2];
  if (reason) stat.reason = /i\/o timeout$/.test(reason) ? 'i/o timeout' : reason;
}

/** Which part of the data dir a write failed in, from the path or the message. */
function diskPlace(line: string): string {
  if (/member\/snap\/db\b/.test(line)) return 'db';
  if (/\/wal\/|\.wal\b|\.tmp\b/.test(line)) return 'wal';
  if (/\.snap(?:\.db)?\b|\/snap\//.test(line)) return 'snap';
  if (/hard state and entries|state and entries error|create wal|\bwal\b/i.test(line)) return 'wal';
  if (/snapshot/i.test(line)) return 'snap';
  if (/commit tx|backend/i.test(line)) return 'db';
  return 'data dir';
}

// ---------------------------------------------------------------------------------------------
// A damaged data dir

// snap/db.go ErrNoDBSnapshot `snap: snapshot file doesn't exist`: the `<index>.snap.db` the WAL
// points at is gone (ETCD34/35/36 zap `failed to find [SNAPSHOT-INDEX].snap.db`, then the panic
// `failed to recover v3 backend from snapshot`; ETCD33/34 capnslog `recovering backend from snapshot
// error: database snapshot file path error: snap: snapshot file doesn't exist`; etcd-io/etcd#13937,
// kubernetes/kubernetes#88574).
const SNAP_DB_MISSING = /snap: snapshot file doesn't exist|failed to find \[SNAPSHOT-INDEX\]\.snap\.db/;
// wal.go ErrFileNotFound `wal: file not found` (ETCD36 `… which matches the snapshot index`): zap
// `failed to open WAL`, capnslog `open wal error: wal: file not found`.
const WAL_MISSING = /wal: file not found/;
// storage.go: zap `failed to read WAL, cannot be repaired`, capnslog `read wal error (<err>) and
// cannot be repaired`, `WAL error (<err>) cannot be repaired` (2.1 on, which first repair a torn
// tail); 2.0 stops on any error reading the WAL, with no repair: Go's log `etcdserver: read wal
// error: <err>` (v2.0.0-v2.0.13 etcdserver/storage.go readWAL; etcd-io/etcd#3065, #2819).
const WAL_BROKEN =
  /failed to read WAL, cannot be repaired|wal error \(.{0,200}?\)(?: and)? cannot be repaired|etcdserver: read wal error: /i;

// snap/snapshotter.go loadSnap (v2.3.0 and v3.3.0 snap/, v3.4.0 etcdserver/api/snap/, v3.5.0 and
// v3.6.0 server/etcdserver/api/snap/): a snapshot file etcd cannot read (empty, a CRC mismatch,
// undecodable) is renamed `<name>.snap.broken` and etcd falls back to an older one; nothing else in
// etcd makes a `.broken` file, and it stays, so every later start lists it among the unexpected
// files of the snap dir (checkSuffix): capnslog `skipped unexpected non snapshot file
// <name>.snap.broken` (2.3-3.4), zap `found unexpected non-snap file; skipping` with `path` (3.4-3.6).
// The read that failed: capnslog `corrupted snapshot file <path>: …`, `unexpected empty snapshot`,
// `cannot read file <path>: …` (Read, 2.3-3.4); zap `snap file is corrupt`, `failed to read empty
// snapshot file|data`, `failed to read a snap file`, `renamed to a broken snap file` (3.4-3.6).
// Another stray file of the snap dir (`skipped unexpected non snapshot file <name>.tmp`) is no damage.
const SNAP_BROKEN =
  /(?:skipped unexpected non snapshot file|found unexpected non-snap file; skipping).{0,300}?\.snap\.broken\b|renamed to a broken snap file|corrupted snapshot file|unexpected empty snapshot|snap file is corrupt|failed to read empty snapshot|failed to read a snap file|cannot read file \S{0,300}?\.snap\b/;
// bbolt's check of the database file at open: etcd 3.4–3.6 open their backend with NoFreelistSync
// (mvcc/backend/config_linux.go v3.4.0, server/mvcc/backend v3.5.18, server/storage/backend v3.6.0),
// so every start rebuilds the freelist by walking each page (go.etcd.io/bbolt v1.3.2–v1.4 db.go
// freepages, tx.checkBucket); a page referenced twice, out of bounds or never freed (tx_check.go
// `page N: multiple references (stack: […])`) panics `freepages: failed to get all reachable pages
// (<err>)`: the db file itself is damaged (a power loss mid-write).
export const BOLT_PAGES_DAMAGED = /freepages: failed to get all reachable pages \(/;

function scanDataDir(line: string, _zap: ZapLike | undefined, s: FaultSignals, touched: Seen[]): void {
  const what = SNAP_DB_MISSING.test(line)
    ? 'snapshot database'
    : WAL_MISSING.test(line)
      ? 'WAL'
      : WAL_BROKEN.test(line)
        ? 'WAL unreadable'
        : SNAP_BROKEN.test(line)
          ? 'snapshot files'
          : BOLT_PAGES_DAMAGED.test(line)
            ? 'database file'
            : undefined;
  if (what) touched.push(addPlace(s.dataDirDamaged, what, line));
}

// ---------------------------------------------------------------------------------------------
// Database snapshots between leader and follower

// rafthttp/snapshot_sender.go: ETCD33/34 capnslog `start to send database snapshot [index: <i>, to
// <id>, size <s>]...`, `database snapshot [index: <i>, to: <id>] failed to be sent out (<err>)`;
// ETCD34/35/36 zap `sending database snapshot` / `failed to send database snapshot` with
// `remote-peer-id`, `size`, `error`. rafthttp/http.go: `receiving database snapshot`.
const SNAP_SEND = /start to send database snapshot \[index: \d+, to ([0-9a-f]{1,16})(?:, size ([^\]]+))?\]/;
const SNAP_FAILED =
  /database snapshot \[index: \d+, to: ([0-9a-f]{1,16})\] failed to be sent out \((.{0,200})\)/;
const SNAP_RECEIVING = /receiving database snapshot \[index: \d+, from/;

function scanSnapshots(line: string, zap: ZapLike | undefined, s: FaultSignals, touched: Seen[]): void {
  const str = (key: string) =>
    typeof zap?.fields[key] === 'string' ? (zap.fields[key] as string) : undefined;
  if (zap) {
    const peer = str('remote-peer-id');
    if (zap.msg === 'sending database snapshot' && peer)
      touched.push(...addSnapshot(s, peer, line, { size: str('size') }));
    else if (zap.msg === 'failed to send database snapshot' && peer)
      touched.push(...addSnapshot(s, peer, line, { error: str('error') ?? 'unknown error' }));
    else if (zap.msg === 'receiving database snapshot') touched.push(addCount(s.snapshotsReceived, line));
    return;
  }
  const send = SNAP_SEND.exec(line);
  if (send?.[1]) touched.push(...addSnapshot(s, send[1], line, { size: send[2] }));
  const failed = SNAP_FAILED.exec(line);
  if (failed?.[1]) touched.push(...addSnapshot(s, failed[1], line, { error: failed[2] ?? '' }));
  if (SNAP_RECEIVING.test(line)) touched.push(addCount(s.snapshotsReceived, line));
}

function addSnapshot(
  s: FaultSignals,
  peerId: string,
  line: string,
  what: { size?: string | undefined; error?: string },
): Seen[] {
  const stat = s.snapshotsSent;
  let peer = stat.peers.find((p) => p.peerId === peerId);
  if (!peer) {
    peer = { peerId, count: 0, failed: 0, example: '' };
    if (stat.peers.length >= 9) return [];
    stat.peers.push(peer);
  }
  if (what.error !== undefined) {
    peer.failed++;
    peer.lastError = what.error.slice(0, 200);
    return [peer];
  }
  peer.count++;
  peer.example = line.slice(0, EXAMPLE_CHARS);
  if (what.size) peer.size = what.size;
  return [addCount(stat, line), peer];
}

// ---------------------------------------------------------------------------------------------
// Slow authentication

// etcdserver/util.go warnOfExpensiveRequest: ETCD33/34 capnslog `request "header:<…> authenticate:
// <name:root simple_token:…>" with result "size:51" took too long (178.9ms) to execute` (quoted or not,
// etcd-io/etcd#10080, #12088, #11012), ETCD34/35/36 zap `apply request took too long` with the same
// text in `request` (InternalAuthenticateRequest's String(), raft_internal_stringer.go).
const AUTHENTICATE = /authenticate:<name:\\?"?([^\s\\"<>]{1,64})/;
// A Go duration (`1.2s`, `312.5ms`) is short: bounded, so a line of repeated openings stays linear.
// The message and its text from the catalogue (catalogue.ts `signal`), as scan-logs.ts reads them.
const TOOK = catalogueSignal('tookTooLong');
const TOOK_TOO_LONG = new RegExp(`${literal(TOOK.text)}([^)]{1,40})\\) to execute`);
const MAX_AUTH_SAMPLES = 100;

function scanAuth(line: string, zap: ZapLike | undefined, s: FaultSignals, touched: Seen[]): void {
  const request = zap ? zap.fields.request : line;
  if (typeof request !== 'string') return;
  const auth = AUTHENTICATE.exec(request);
  if (!auth) return;
  const took =
    zap && TOOK.zap.includes(zap.msg)
      ? (zap.fields.took as string | undefined)
      : zap
        ? undefined
        : TOOK_TOO_LONG.exec(line)?.[1];
  const seconds = took === undefined ? undefined : parseGoDuration(took);
  if (seconds === undefined) return;
  const stat = s.slowAuth;
  touched.push(addCount(stat, line));
  if (stat.maxSeconds === undefined || seconds > stat.maxSeconds) stat.maxSeconds = seconds;
  if (stat.seconds.length < MAX_AUTH_SAMPLES) stat.seconds.push(seconds);
  const user = auth[1];
  if (user && stat.users.length < 5 && !stat.users.includes(user)) stat.users.push(user);
}

// ---------------------------------------------------------------------------------------------
// Expired certificates (called by scan-logs.ts, which finds the TLS refusals)

// Go crypto/x509 CertificateInvalidError Expired: `x509: certificate has expired or is not yet valid:
// current time <now> is after <NotAfter>` (Go ≥ 1.15; before it without the times). `is before` is a
// certificate not yet valid, a clock matter, not an expiry.
const EXPIRED = /certificate has expired/;
const NOT_YET_VALID = /current time \S+ is before /;
const IS_AFTER = /current time \S+ is after (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)/;

export function isExpiredCertificate(reason: string): boolean {
  return EXPIRED.test(reason) && !NOT_YET_VALID.test(reason);
}

export function addCertExpired(
  s: FaultSignals,
  reason: string,
  line: string,
  refused: { remoteAddr?: string | undefined; peerId?: string | undefined; endpoint?: string | undefined },
): Seen {
  const stat = s.certExpired;
  addCount(stat, line);
  const ip = hostOfAddress(refused.remoteAddr);
  if (ip && stat.from.length < 9 && !stat.from.includes(ip)) stat.from.push(ip);
  if (refused.peerId && stat.peers.length < 9 && !stat.peers.includes(refused.peerId))
    stat.peers.push(refused.peerId);
  if (refused.endpoint && !stat.endpoints.includes(refused.endpoint)) stat.endpoints.push(refused.endpoint);
  const notAfter = IS_AFTER.exec(reason)?.[1];
  if (notAfter && (!stat.notAfter || notAfter > stat.notAfter)) stat.notAfter = notAfter;
  // The times differ on every line: one reason per kind of refusal.
  const short = reason.replace(/: current time .*$/, '').slice(0, 160);
  if (stat.reasons.length < 3 && !stat.reasons.includes(short)) stat.reasons.push(short);
  return stat;
}

// ---------------------------------------------------------------------------------------------
// Crashes: panics and Go runtime fatal errors, with their first frames

// A panic in etcd's code (Go `panic: <message>`, then `goroutine N [running]:` and the frames), zap
// `panic`/`dpanic` entries (zap's Panic logs, then panics with the same message), and Go's runtime
// `fatal error: <message>`. zap `fatal` and capnslog `C` entries are etcd stopping itself on an error
// it names (a flag, a file, a port): they stay with the error lines, not crashes.
const GO_PANIC = /^panic: (.+)$/;
const GO_FATAL = /^fatal error: (.+)$/;
const ZAP_PANIC_LEVELS = new Set(['panic', 'dpanic']);
/** A crash this many lines after an outside cause is that cause's (zap's entry, then Go's panic line). */
const CAUSE_LINES = 3;
/** Frames read after a crash line: a goroutine trace is a few dozen lines. */
const FRAME_LINES = 60;
const MAX_FRAMES = 4;
const MAX_CRASH_EVENTS = 5;
// Operating-system errors in a crash message: the crash is the file's or the port's, not etcd's.
const OS_ERROR = /permission denied|read-only file system|input\/output error|address already in use/;

const OUTSIDE: ReadonlyArray<keyof (FaultSignals & OutsideCauseSignals)> = [
  'fdExhausted',
  'diskFull',
  'outOfMemory',
  'oomKilled',
  'dnsFailed',
  'dataDirDamaged',
  'tocommitOutOfRange',
  'memberRemoved',
  'alreadyBootstrapped',
  'clusterIdMismatch',
];

function outsideCauseOf(s: FaultSignals & OutsideCauseSignals, touched: Seen[]): string | undefined {
  return OUTSIDE.find((key) => touched.includes(s[key] as Seen));
}

/** Counts a crash line; true when the line was one. */
function scanCrash(
  text: string,
  zap: ZapLike | undefined,
  s: FaultSignals & OutsideCauseSignals,
  touched: Seen[],
): boolean {
  const stat = s.crashes;
  const message = crashMessage(text, zap);
  if (message === undefined) return false;
  const explainedBy =
    (stat.sinceCause <= CAUSE_LINES ? stat.lastCause : undefined) ?? OS_ERROR.exec(message)?.[0];
  // An operating-system error with no cause of ours: the line stays an error line, quoted as such.
  if (explainedBy && !OUTSIDE.includes(explainedBy as never)) return true;
  const last = stat.events.at(-1);
  // zap's panic entry, a scheduler's `execute job failed` with it as `panic`, then Go's `panic: <same
  // message>`: one crash.
  const repeat =
    last !== undefined && stat.framesLeft > FRAME_LINES - CAUSE_LINES && samePanic(last, message);
  const event = repeat && last ? last : addCrash(stat, message, text, explainedBy);
  if (!repeat) addCount(stat, text);
  touched.push(stat, event);
  const stack = zap?.fields.stacktrace;
  if (typeof stack === 'string') addFrames(event, stack.split('\n'));
  // A trace already joined to its panic line (one event of several lines).
  addFrames(event, text.split('\n').slice(1));
  stat.framesLeft = FRAME_LINES;
  return true;
}

function isZapPanic(zap: ZapLike): boolean {
  const level = zap.fields.level;
  return typeof level === 'string' && ZAP_PANIC_LEVELS.has(level);
}

function crashMessage(text: string, zap: ZapLike | undefined): string | undefined {
  if (zap) {
    const level = zap.fields.level;
    if (typeof level !== 'string' || !ZAP_PANIC_LEVELS.has(level)) return undefined;
    // zap's `error`, or the recovered panic a scheduler logs (ETCD36 schedule.go `execute job failed`, `panic`).
    const cause = zap.fields.error ?? zap.fields.panic;
    const error = typeof cause === 'string' ? `: ${cause}` : '';
    return `${zap.msg}${error}`.slice(0, 200);
  }
  const first = text.split('\n', 1)[0] ?? '';
  const m = GO_PANIC.exec(first) ?? GO_FATAL.exec(first);
  return m?.[1]?.trim().slice(0, 200);
}

function samePanic(event: CrashEvent, message: string): boolean {
  const a = event.message.slice(0, 40);
  const b = message.slice(0, 40);
  return event.message.includes(b) || message.includes(a);
}

function addCrash(
  stat: CrashStat,
  message: string,
  line: string,
  explainedBy: string | undefined,
): CrashEvent {
  let event = stat.events.find((e) => e.message === message);
  if (!event) {
    event = { message, count: 0, frames: [], example: line.slice(0, EXAMPLE_CHARS) };
    if (explainedBy) event.explainedBy = explainedBy;
    // Past the cap a new message is not kept: the first crashes say the most.
    if (stat.events.length < MAX_CRASH_EVENTS) stat.events.push(event);
  }
  event.count++;
  return event;
}

// `go.etcd.io/etcd/server/v3/embed.(*serveCtx).serve(0xc000…)`, `main.main()`, zap's stacktrace
// field without the arguments: `go.etcd.io/etcd/server/v3/etcdserver.recoverSnapshot`.
const FRAME = /^([\w.~/-]+(?:\.\(\*?[\w]+\))?\.[\w.-]+)(?:\(.*\))?$/;
const TRACE_LINE =
  /^(?:\s+\/|\s*\/.*\.go:\d+|\s*[\w.@/-]+\.go:\d+|goroutine \d+ \[|\[signal |runtime stack:|created by |\s+panic: |\s*$)/;
/** Frames that say where Go or the logger is, not where etcd failed. */
const NOT_ETCD_FRAME = /^(?:runtime\.|panic$|go\.uber\.org\/zap|log\.|main\.main$)/;

/** A line of the goroutine trace after a crash: its frame is kept, anything else ends the trace. */
function readFrame(text: string, stat: CrashStat): void {
  const event = stat.events.at(-1);
  if (stat.framesLeft <= 0 || !event) return;
  stat.framesLeft--;
  if (!addFrame(event, text) && !TRACE_LINE.test(text)) stat.framesLeft = 0;
}

function addFrames(event: CrashEvent, lines: string[]): void {
  for (const line of lines) addFrame(event, line);
}

/** True when the line is a frame (kept when it is etcd's and there is room). */
function addFrame(event: CrashEvent, text: string): boolean {
  const frame = FRAME.exec(text.trim())?.[1];
  if (!frame) return false;
  if (!NOT_ETCD_FRAME.test(frame) && event.frames.length < MAX_FRAMES && !event.frames.includes(frame))
    event.frames.push(frame);
  return true;
}

// ---------------------------------------------------------------------------------------------
// Whom a campaign reaches

// raft/raft.go (ETCD32–36, and etcd-io/raft): `%x [logterm: %d, index: %d] sent %s request to %x at
// term %d` and `%x received %s [rejection ]from %x at term %d` (MsgVote, MsgPreVote and their
// responses); etcd 2.x–3.1 wrote `sent vote request to` and `received vote [rejection ]from`.
const VOTE_ASKED =
  /(?<![0-9a-f])[0-9a-f]{1,16} \[logterm: (\d{1,20}), index: (\d{1,20})\] sent (?:Msg(?:Pre)?Vote|vote) request to ([0-9a-f]{1,16}) at term/;
const VOTE_ANSWERED =
  /(?<![0-9a-f])([0-9a-f]{1,16}) received (?:Msg(?:Pre)?VoteResp|vote)(?: rejection)? from ([0-9a-f]{1,16}) at term/;
const PRE_CANDIDATE = /(?<![0-9a-f])[0-9a-f]{1,16} became pre-candidate at term \d{1,20}/;

function scanCampaign(line: string, s: FaultSignals): void {
  const stat = s.campaign;
  if (PRE_CANDIDATE.test(line)) stat.preCandidacies++;
  const vote = VOTE_ASKED.exec(line);
  const asked = vote?.[3];
  if (asked) {
    stat.count++;
    if (stat.askedPeers.length < 9 && !stat.askedPeers.includes(asked)) stat.askedPeers.push(asked);
    stat.lastLog = { term: Number(vote?.[1]), index: Number(vote?.[2]) };
    return;
  }
  const answer = VOTE_ANSWERED.exec(line);
  // A member counts its own vote as an answer from itself.
  const from = answer?.[2];
  if (from && from !== answer?.[1] && stat.answeredBy.length < 9 && !stat.answeredBy.includes(from))
    stat.answeredBy.push(from);
}

// ---------------------------------------------------------------------------------------------
// The version the member runs

// etcdmain/etcd.go: ETCD33/34 capnslog `etcdmain: etcd Version: 3.4.13`, ETCD34/35/36 zap `starting an
// etcd server` with `etcd-version`.
const VERSION_TEXT = /\betcd Version: (\d+\.\d+\.\d+[\w.+-]*)/;

function readVersion(line: string, zap: ZapLike | undefined, s: FaultSignals): void {
  const version = zap
    ? typeof zap.fields['etcd-version'] === 'string'
      ? (zap.fields['etcd-version'] as string)
      : undefined
    : VERSION_TEXT.exec(line)?.[1];
  if (version) s.etcdVersion = version.slice(0, 40);
}

function addCount<T extends CountStat>(stat: T, line: string): T {
  stat.count++;
  stat.example = line.slice(0, EXAMPLE_CHARS);
  return stat;
}

function addPlace(stat: PlacesStat, where: string, line: string): Seen {
  addCount(stat, line);
  if (stat.where.length < 5 && !stat.where.includes(where)) stat.where.push(where);
  return stat;
}
