/**
 * Pure matchers for the control-plane log lines of KB §1.2, for etcd 3.4 capnslog, 3.4 zap and
 * 3.5 zap, plus client-go / kube-apiserver klog lines. Nothing anchors on a `<pkg>: ` prefix or a
 * timestamp: under journald (and crictl, and `kubectl logs --timestamps`) those differ or vanish.
 */

import { findEtcdLine } from './find-line.js';
import { hostOfAddress } from './hosts.js';
import {
  type CatalogueEntry,
  catalogueEntryOf,
  catalogueSignal,
  isBenignOrContext,
  literal,
} from './catalogue.js';
import { type CountStat, type DurationStat, EXAMPLE_CHARS, parseGoDuration, type Seen } from './log-stat.js';
import {
  addCertExpired,
  emptyFaultSignals,
  type FaultSignals,
  isExpiredCertificate,
  scanFaults,
} from './scan-faults.js';

export { type CountStat, type DurationStat, parseGoDuration } from './log-stat.js';

export interface ClockDriftStat {
  peerId: string;
  count: number;
  maxSeconds: number;
  example: string;
  firstSeenAt?: string;
  lastSeenAt?: string;
}

export interface PeerUnreachableStat {
  peerId: string;
  count: number;
  /** `dial tcp 127.20.0.13:2380: i/o timeout`. */
  lastError: string | undefined;
  /** The host:port dialled, when the error names one. */
  address: string | undefined;
  example: string;
  firstSeenAt?: string;
  lastSeenAt?: string;
  /** When the reporter last logged the peer active again (`peer became active`) after a failure. */
  lastActiveAt?: string;
  /**
   * A connection from the host of `address` reached the reporter after the peer's last failure:
   * one the reporter refused for its certificate (etcd logs only those: embed `rejected connection
   * from "<ip:port>"`). Something on that host runs and dials the reporter.
   */
  dialledUsSince?: boolean;
}

/** What the scan counts: the signals below, and the faults of scan-faults.ts (resources, crashes). */
export interface LogSignals extends FaultSignals {
  /** capnslog `... took too long (1.2s) to execute`, zap `apply request took too long`. */
  tookTooLong: DurationStat & {
    /**
     * Of them, requests whose answer was small (a write, or a range of at most one key: etcd's own
     * result `size:N`, `range_response_count:0|1`) and no error, authentication aside: the member
     * was slow, not the request (etcdserver/util.go warnOfExpensive*Request, 3.3 to 3.6).
     */
    small: number;
  };
  /** zap `slow fdatasync`, capnslog `sync duration of 1.3s, expected less than 1s`. */
  slowFdatasync: DurationStat;
  /** `failed to send out heartbeat on time`: the leader is late, likely from a slow disk. */
  heartbeatLate: CountStat;
  clockDrift: ClockDriftStat[];
  peerUnreachable: PeerUnreachableStat[];
  leaderLost: CountStat;
  leaderElected: CountStat;
  /** `etcdserver: request timed out` and its variants, wherever they are logged. */
  requestTimedOut: CountStat;
  leaderChanged: CountStat;
  /** kube-controller-manager `leaderelection lost`, kube-scheduler `Leaderelection lost`. */
  leaderElectionLost: CountStat;
  leaseRenewFailed: CountStat & { leases: string[] };
  databaseSpaceExceeded: CountStat;
  tocommitOutOfRange: CountStat;
  /** 3.4 `starting member <id> in cluster <cid>`, 3.5 `starting local member`: the WAL was empty. */
  startingMember: CountStat;
  /** 3.4 `restarting member ... at commit index`, 3.5 `restarting local member`: the WAL was there. */
  restartingMember: CountStat;
  /**
   * rafthttp `request cluster ID mismatch`, `request sent was ignored (cluster ID mismatch …)`: a
   * member talks to peers of another cluster (a data dir or an --initial-cluster from elsewhere).
   */
  clusterIdMismatch: CountStat & {
    /** The peers (member ids) of the other cluster, where the line names them (zap `remote-peer-*`, capnslog `peer[<id>]`). */
    peers: string[];
    /** The cluster ID of the member that logged it (zap `local-member-cluster-id`, capnslog `want <id>` / `local=<id>`). */
    localCluster?: string;
  };
  /** A removed member still running, in its own log: `the member has been permanently removed from the cluster`. */
  memberRemoved: CountStat;
  /**
   * The member's own cluster ID, from the first line that names it (zap `cluster-id`, capnslog
   * `… in cluster <cid>` / `… to cluster <cid>`): which cluster a log belongs to, also when it
   * logged no mismatch itself.
   */
  clusterId?: string;
  /**
   * A member refusing a removed peer's stream (3.0–3.4 capnslog `rejected the stream from peer <id>
   * since it was removed`, zap `rejected stream from remote peer because it was removed`): the
   * removed member is the peer named, not the member that logs it.
   */
  removedPeerRejected: CountStat & { peers: string[] };
  /** `member <id> has already been bootstrapped`: started `new` on an empty data dir while the peers know it. */
  alreadyBootstrapped: CountStat;
  /**
   * TLS refused between members: `rejected connection from "<ip:port>" (error "tls: …")` (embed),
   * and peer dials failing on x509 (unknown authority, expired, a name or IP not in the SAN).
   * `reasons` keeps the distinct errors (at most 5).
   */
  tlsRejected: CountStat & {
    reasons: string[];
    /** The peer IPs whose connections this member refused (`remote-addr`), at most 9. */
    from: string[];
    /** Lines where this member's own certificate was refused (`remote error: tls: bad certificate`). */
    ownRefused: number;
    /** Peers (member ids) whose certificate this member's dials refused (x509 on a peer dial or probe), at most 9. */
    peers?: string[];
  };
  /** raft `became candidate at term N` / `became pre-candidate`: each at a higher term than the last is an election tried. */
  candidacies: CountStat & { risingTerms: number; maxTerm: number };
  /**
   * zap `defragmented` (3.4) / `finished defragmenting directory` (3.5, 3.6): the sizes after the
   * last defragmentation, and what it freed (`current-db-size-bytes-diff`, negative when it freed).
   */
  defragmented: CountStat & { freedBytes?: number; sizeBytes?: number; inUseBytes?: number };
  /** zap `enabled backend quota` (with default value): the quota the member started with. */
  quota: CountStat & { bytes?: number };
  /**
   * Error-level lines (zap `error`/`fatal`/`panic`, capnslog `E`/`C`) that no other signal counted,
   * by message with digits and ids folded (`failed to dial <id> on stream <n>`), at most 20 kept.
   */
  unexplainedErrors: UnexplainedError[];
  /**
   * mvcc `finished scheduled compaction`: capnslog `finished scheduled compaction at <rev> (took
   * …)`, zap with `compact-revision`. Every member logs each compaction as it applies it.
   */
  compactions: CountStat & {
    lastRevision: number | undefined;
    /** The longest silence between two compaction lines: compaction that stopped, then resumed. */
    longestGap?: { seconds: number; from: string; to: string };
  };
}

export interface UnexplainedError {
  /** The message (with zap's `error`) with what varies folded. */
  message: string;
  /** What etcd means by it, in one line, and the cause it is evidence for (the catalogue's). */
  meaning?: string;
  evidenceFor?: string;
  count: number;
  example: string;
  firstSeenAt?: string;
  lastSeenAt?: string;
}

type CountKey = {
  [K in keyof LogSignals]-?: LogSignals[K] extends CountStat
    ? LogSignals[K] extends DurationStat
      ? never
      : K
    : never;
}[keyof LogSignals];

export function emptySignals(): LogSignals {
  const count = (): CountStat => ({ count: 0, example: undefined });
  const duration = (): DurationStat => ({ count: 0, example: undefined, maxSeconds: undefined });
  return {
    tookTooLong: { ...duration(), small: 0 },
    slowFdatasync: duration(),
    heartbeatLate: count(),
    clockDrift: [],
    peerUnreachable: [],
    leaderLost: count(),
    leaderElected: count(),
    requestTimedOut: count(),
    leaderChanged: count(),
    leaderElectionLost: count(),
    leaseRenewFailed: { ...count(), leases: [] },
    databaseSpaceExceeded: count(),
    tocommitOutOfRange: count(),
    startingMember: count(),
    restartingMember: count(),
    clusterIdMismatch: { ...count(), peers: [] },
    memberRemoved: count(),
    removedPeerRejected: { ...count(), peers: [] },
    alreadyBootstrapped: count(),
    tlsRejected: { ...count(), reasons: [], from: [], ownRefused: 0 },
    candidacies: { ...count(), risingTerms: 0, maxTerm: 0 },
    defragmented: count(),
    quota: count(),
    unexplainedErrors: [],
    compactions: { ...count(), lastRevision: undefined },
    ...emptyFaultSignals(),
  };
}

/** The longest line read, as offline analysis reads uploads (offline/collection.ts maxLineBytes). */
export const MAX_SCANNED_LINE_CHARS = 64 * 1024;

/** Scans a log text (one line per entry) and counts what it found. */
export function scanLogText(text: string): LogSignals {
  const signals = emptySignals();
  for (const raw of text.split('\n')) {
    // A pod's log is untrusted text: each line is read up to the offline reader's cap (issue 38 L6).
    const line = (raw.length > MAX_SCANNED_LINE_CHARS ? raw.slice(0, MAX_SCANNED_LINE_CHARS) : raw).trimEnd();
    if (line.length > 0) scanLine(zapJsonOf(line), signals);
  }
  return signals;
}

/**
 * A pod running etcd with `--log-format=console` writes zap's console encoder (`<ts>\t<LEVEL>\t
 * <caller>\t<msg>\t{fields}`): read as the zap JSON entry it encodes, as the offline reader does.
 */
function zapJsonOf(line: string): string {
  if (!line.includes('\t')) return line;
  const found = findEtcdLine(line);
  return found?.shape === 'zap-console' ? found.text : line;
}

/** Adds one line's matches to `signals`. */
export function scanLine(raw: string, signals: LogSignals): void {
  // etcd 3.2–3.5 print an authenticate request's simple token: it never reaches an example.
  const line = raw.includes('simple_token:') ? raw.replace(SIMPLE_TOKEN, '$1[redacted]') : raw;
  const zap = parseZap(line);
  const touched: Seen[] = [];
  if (zap) scanZap(zap, line, signals, touched);
  scanText(line, signals, touched, zap);
  scanFaults(line, zap, signals, touched);
  if (touched.length === 0 && isErrorLine(line, zap) && !PEER_DEACTIVATED.test(line)) {
    // The catalogue (catalogue.ts) knows what etcd means by the line: routine or context is not
    // "unexplained"; evidence for a cause is kept with its meaning. Read only for error lines no
    // signal counted, so the scan of a large log pays nothing for it on any other line.
    const known = catalogueEntryOf(line, zap?.msg);
    if (!known || !isBenignOrContext(known)) touched.push(addUnexplained(signals, line, zap, known));
  }
  // Only a line that matched needs its time: stamp the stats it just counted.
  const at = touched.length > 0 ? lineTimestamp(line, zap) : undefined;
  if (!at) return;
  for (const st of touched) {
    st.firstSeenAt ??= at;
    if (!st.lastSeenAt || at > st.lastSeenAt) st.lastSeenAt = at;
  }
}

const SIMPLE_TOKEN = /(simple_token:)(?!<redacted>|\[redacted\])[^\s>"\\]+/g;
const KUBECTL_TIMESTAMP = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)) /;
const CAPNSLOG_TIMESTAMP = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d(?:\.\d+)?) /;
const RAFT_TIMESTAMP = /^raft(\d{4})\/(\d\d)\/(\d\d) (\d\d:\d\d:\d\d)/;

/**
 * A line's time as ISO 8601: the `kubectl logs --timestamps` prefix, zap's `ts` (ISO text, or
 * epoch seconds), capnslog's `2024-05-14 08:30:00.000000` and raft's `raft2024/05/14 08:30:10`
 * (both in UTC inside the etcd container). klog has no year, so it gives none.
 */
export function lineTimestamp(line: string, zap: ZapEntry | undefined = parseZap(line)): string | undefined {
  const prefix = KUBECTL_TIMESTAMP.exec(line)?.[1];
  const ts = zap?.fields.ts;
  const capns = CAPNSLOG_TIMESTAMP.exec(line);
  const raft = RAFT_TIMESTAMP.exec(line);
  const text =
    prefix ??
    (typeof ts === 'string' ? ts : undefined) ??
    (capns ? `${capns[1]}T${capns[2]}Z` : undefined) ??
    (raft ? `${raft[1]}-${raft[2]}-${raft[3]}T${raft[4]}Z` : undefined);
  const ms = typeof ts === 'number' && !prefix ? ts * 1000 : text ? Date.parse(text) : Number.NaN;
  return Number.isFinite(ms) ? new Date(ms).toISOString() : undefined;
}

// The messages the signals below count, with their text and zap `msg` from the catalogue
// (catalogue.ts `signal`): the catalogue and the scanners read one copy of each.
const TOOK = catalogueSignal('tookTooLong');
const SLOW_SYNC = catalogueSignal('slowFdatasync');
const LATE_HEARTBEAT = catalogueSignal('heartbeatLate');
const CLOCK_DRIFT = catalogueSignal('clockDrift');
const PROBE_FAILED = catalogueSignal('peerUnreachable');
const COMPACTION = catalogueSignal('compactions');
const DEFRAG = catalogueSignal('defragmented');

// Plain-text forms (capnslog, raft's std logger, klog). Each is written so it cannot also match
// the zap rendering of the same event, which scanZap handles from fields.
// A Go duration (`1.2s`, `312.5ms`) is short: bounded, so a line of repeated openings stays linear.
const TOOK_TOO_LONG = new RegExp(`${literal(TOOK.text)}([^)]{1,40})\\) to execute`);
// etcdserver/util.go (3.3, 3.4 capnslog): `request %q with result %q took too long (%v) to execute`,
// the result `error:<err>` or the response (`size:N`, `range_response_count:N size:N`, a read-only
// txn's `responses:<range_response_count:N …> size:N`); zap (3.4–3.6) puts it in `response`/`error`.
const CAPNSLOG_RESULT = /with result "([^"]{0,300})" took too long \(/;
const RANGE_COUNT = /range_response_count:(\d{1,12})/g;

/** A response of a write or of at most one key: the answer costs the member nothing to build. */
function isSmallResult(result: string | undefined): boolean {
  if (!result || !/(?:^|\s)size:\d/.test(result) || result.startsWith('error')) return false;
  for (const m of result.matchAll(RANGE_COUNT)) if (Number(m[1]) > 1) return false;
  return true;
}
const LEGACY_APPLY = /apply entries took too long \[([^\s\]]+) for \d+ entries\]/;
const SYNC_DURATION = new RegExp(`${literal(SLOW_SYNC.text)} ([^\\s,]+), expected less than`);
// 3.0–3.4 `(exceeded the 100ms timeout for …)`, 2.3 `(deadline exceeded for …)` (etcdserver/server.go v2.3.0).
const HEARTBEAT = new RegExp(`${literal(LATE_HEARTBEAT.text)} \\((?:deadline )?exceeded`);
const CLOCK = new RegExp(
  `${literal(CLOCK_DRIFT.text)} ([0-9a-f]{1,16}) is too high \\[([^\\s\\]]+) > [^\\]]+\\]`,
);
const COULD_NOT_CONNECT = new RegExp(
  `health check for peer ([0-9a-f]{1,16}) ${literal(PROBE_FAILED.text)} (.*?)(?: \\(prober "[^"]*"\\))?$`,
);
const ELECTED = /raft\.node: [0-9a-f]{1,16} elected leader [0-9a-f]{1,16} at term \d+/;
const LOST = /raft\.node: [0-9a-f]{1,16} lost leader [0-9a-f]{1,16} at term \d+/;
const REQUEST_TIMED_OUT = /etcdserver: request timed out/;
const LEADER_CHANGED = /etcdserver: leader changed/;
const LEADERELECTION_LOST = /leaderelection lost/i;
const RENEW_FAILED = /failed to renew lease(?: ([^\s:]+):|"[^\n]*?\block="([^"]+)")/i;
// `alarm raised` (NOSPACE; capnslog `alarm NOSPACE raised by peer <id>`) is logged by every member
// as the alarm applies (ETCD34/35 apply.go; 3.6 logs none, but `serving /health false due to an
// alarm` with `alarm:NOSPACE` on every /health), and `etcdserver: no space` by each refused apply;
// the quota message only where an apply hit it.
const DB_SPACE =
  /database space exceeded|exceeded backend quota|etcdserver: no space(?! left on device)|alarm raised\W{1,20}(?:alarm\W{1,4})?NOSPACE|alarm NOSPACE raised by peer|due to an alarm\W{1,20}[^"]{0,300}alarm:NOSPACE/;
const TOCOMMIT = /tocommit\(\d+\) is out of range \[lastIndex\(\d+\)\]/;
const STARTING = /\bstarting member [0-9a-f]{1,16} in cluster [0-9a-f]{1,16}/;
// capnslog: `starting member <id> in cluster <cid>`, `restarting member … in cluster <cid> at …`,
// `published {Name:…} to cluster <cid>`, `added member <id> [<urls>] to cluster <cid>`.
const OWN_CLUSTER = /\b(?:in|to) cluster ([0-9a-f]{8,16})\b/;
// rafthttp (ETCD34/35 http.go, stream.go): both the receiving and the sending side's message.
const CLUSTER_MISMATCH = /cluster ID mismatch/;
// etcdserver ErrMemberRemoved (`the member has been permanently removed from the cluster`), which
// the removed member logs (3.5 zap `server error` with it as the error); and rafthttp's refusal of
// a removed peer's stream, which the other members log (ETCD33/34 http.go, 3.5 zap).
const MEMBER_REMOVED = /permanently removed from the cluster/;
const REMOVED_PEER =
  /rejected the stream from peer ([0-9a-f]{1,16}) since it was removed|rejected stream from remote peer because it was removed/;
const REMOVED_PEER_ZAP = /"remote-peer-id-from":"([0-9a-f]{1,16})"/;
const BOOTSTRAPPED = /member [0-9a-f]{1,16} has already been bootstrapped/;
// embed/config_logging.go: `rejected connection from "<addr>" (error "<tls error>", ServerName …)`,
// zap `"msg":"rejected connection"` with an `error` field; and x509 failures of a peer dial.
const REJECTED_TLS = /rejected connection from "([^"]*)" \(error "((?:[^"\\]|\\.)*)"/;
// etcd 3.2.0–3.2.11 (etcdmain/etcd.go setupLogging): `rejected connection from "<addr>" (<err>)`,
// the error unquoted (`%v`); 3.2.12 and 3.3+ quote it as above.
const REJECTED_TLS_32 = /rejected connection from "([^"]{1,300})" \((?!error ")(.{1,600})\)$/;
// A peer dial or probe failing on the certificate (capnslog plain text; zap has it in `error`).
// Go's crypto/x509 (verify.go) HostnameError too: a certificate without the peer's IP or name in its
// SANs (`cannot validate certificate for <ip> because it doesn't contain any IP SANs`, `… not valid
// for any names, but wanted to match <name>`, Go ≥ 1.15 `relies on legacy Common Name field`).
const PEER_X509 =
  /(x509: (?:certificate signed by unknown authority|certificate has expired or is not yet valid[^"(]{0,300}|certificate is valid for [^"(]{0,300}|cannot validate certificate for \S{1,253} because it doesn't contain any IP SANs|certificate is not valid for any names[^"(]{0,300}|certificate relies on legacy Common Name field[^"(]{0,100})|remote error: tls: bad certificate|tls: [^(]{0,300}?does not match any of [^(]{0,300})/;
const TLS_ERROR = /x509: |tls: /;
// raft ids are uint64 in hex (at most 16 digits): bounded, and a pattern that starts with one starts
// only where a run of them does, so a long hex run stays linear (issue 38 M1: the unbounded `+`
// took 3.2 s on a 64 KiB line).
const CANDIDATE = /(?<![0-9a-f])[0-9a-f]{1,16} became (?:pre-)?candidate at term (\d{1,20})/;
const RESTARTING = /\brestarting member [0-9a-f]{1,16} in cluster [0-9a-f]{1,16} at commit index \d+/;
// etcd 3.0–3.3 etcdserver/cluster_util.go: `failed to reach the peerURL(<url>) of member <id> (<error>)`.
const FAILED_REACH =
  /failed to reach the peerURL\(([^)]{1,512})\) of member ([0-9a-f]{1,16}) \((.{0,2000})\)$/;
// capnslog `rafthttp: peer <id> became inactive (message send to peer failed)`; under journald
// (etcd 3.0–3.4 as a systemd unit) the `rafthttp: ` package prefix is not in the message.
// etcd 2.1–2.3 capnslog (rafthttp/peer_status.go): `the connection with <id> became inactive`.
const INACTIVE = /\b(?:peer|the connection with) ([0-9a-f]{1,16}) became inactive(?: \(([^)]{0,300})\))?/;
const ACTIVE = /\b(?:peer|the connection with) ([0-9a-f]{1,16}) became active/;
// mvcc/kvstore_compaction.go (3.0–3.4 capnslog); zap has `compact-revision` (scanZap).
const COMPACTED = new RegExp(`${literal(COMPACTION.text)} at (\\d+) \\(took`);
const DIAL_ADDRESS = /dial tcp (\[[^\]]+\]:\d+|[^\s:]+:\d+)/;

const COUNTED: ReadonlyArray<[RegExp, CountKey]> = [
  [HEARTBEAT, 'heartbeatLate'],
  [ELECTED, 'leaderElected'],
  [LOST, 'leaderLost'],
  [REQUEST_TIMED_OUT, 'requestTimedOut'],
  [LEADER_CHANGED, 'leaderChanged'],
  [LEADERELECTION_LOST, 'leaderElectionLost'],
  [DB_SPACE, 'databaseSpaceExceeded'],
  [TOCOMMIT, 'tocommitOutOfRange'],
  [STARTING, 'startingMember'],
  [RESTARTING, 'restartingMember'],
  [MEMBER_REMOVED, 'memberRemoved'],
  [BOOTSTRAPPED, 'alreadyBootstrapped'],
];

function scanText(line: string, s: LogSignals, touched: Seen[], zap: ZapEntry | undefined): void {
  const own = zap || s.clusterId !== undefined ? undefined : OWN_CLUSTER.exec(line)?.[1];
  if (own) s.clusterId = own;
  const took = TOOK_TOO_LONG.exec(line) ?? LEGACY_APPLY.exec(line);
  if (took?.[1]) {
    touched.push(addDuration(s.tookTooLong, took[1], line));
    if (!zap && !line.includes('authenticate:<') && isSmallResult(CAPNSLOG_RESULT.exec(line)?.[1]))
      s.tookTooLong.small++;
  }
  const sync = SYNC_DURATION.exec(line);
  if (sync?.[1]) touched.push(addDuration(s.slowFdatasync, sync[1], line));
  const clock = CLOCK.exec(line);
  if (clock?.[1] && clock[2]) touched.push(addClockDrift(s, clock[1], clock[2], line));
  const peer = COULD_NOT_CONNECT.exec(line) ?? INACTIVE.exec(line);
  if (peer?.[1]) touched.push(addPeerUnreachable(s, peer[1], peer[2], line));
  const reach = FAILED_REACH.exec(line);
  if (reach?.[2]) touched.push(addPeerUnreachable(s, reach[2], reach[3], line));
  if (MAYBE_LEGACY_PEER.test(line)) scanLegacyPeer(line, s, touched);
  const active = ACTIVE.exec(line);
  if (active?.[1]) markPeerActive(s, active[1], line);
  const renew = RENEW_FAILED.exec(line);
  if (renew) {
    touched.push(addCount(s, 'leaseRenewFailed', line));
    const lease = renew[1] ?? renew[2];
    if (lease && !s.leaseRenewFailed.leases.includes(lease)) s.leaseRenewFailed.leases.push(lease);
  }
  for (const [pattern, key] of COUNTED) if (pattern.test(line)) touched.push(addCount(s, key, line));
  if (CLUSTER_MISMATCH.test(line)) touched.push(addMismatch(s, line));
  const removedPeer = REMOVED_PEER.exec(line);
  if (removedPeer) touched.push(addRemovedPeer(s, removedPeer[1] ?? REMOVED_PEER_ZAP.exec(line)?.[1], line));
  // zap lines carry the error in a field (scanZap); only plain text is matched here.
  const quoted = zap ? undefined : REJECTED_TLS.exec(line);
  const rejectedLine = quoted ?? (zap ? undefined : REJECTED_TLS_32.exec(line));
  const rejected = quoted ? quoted[2]?.replace(/\\(.)/g, '$1') : rejectedLine?.[2];
  const tls = zap ? undefined : rejected && TLS_ERROR.test(rejected) ? rejected : PEER_X509.exec(line)?.[1];
  const dialed = rejected ? undefined : TEXT_PEER.exec(line)?.[1];
  if (tls && !NOT_A_PEER.test(tls)) {
    const remoteAddr = rejected ? rejectedLine?.[1] : undefined;
    markDialledFrom(s, remoteAddr);
    touched.push(
      isExpiredCertificate(tls)
        ? addCertExpired(s, tls.trim(), line, { remoteAddr, peerId: dialed })
        : addTls(s, tls.trim(), line, remoteAddr, dialed),
    );
  }
  const term = CANDIDATE.exec(line)?.[1];
  if (term) touched.push(addCandidacy(s, Number(term), line));
  const compacted = COMPACTED.exec(line)?.[1];
  if (compacted) touched.push(addCompaction(s, Number(compacted), line));
}

// A peer's messages failing in etcd 2.x, from etcd-io/etcd's source: rafthttp (master of Feb 2015,
// 550c58713) `encountered error sending messages in <worker> from <local> to <remote>: <err>`;
// v2.0 `sender: error posting to <id>: <err>`; 2.1-alpha (38b8e848a) `roundtripping error: error
// roundtripping to <peer URL>/raft/stream/<type>/<local id>: <err>`, whose path names the member
// that dials, so the peer is the URL's host; raft (v2.1.0 raft.go) `<local> failed to send message
// to <remote> because it is unreachable`, and before it `… and changed it to be unreachable`; and
// rafthttp 2.1–3.4 (peer_status.go) `failed to <dial|read|post> <id> on <stream|pipeline> (<err>)`,
// which follows `became inactive` and gives its error.
const MAYBE_LEGACY_PEER =
  /unreachable|roundtripping|error sending messages|error posting to|failed to \w{1,20} [0-9a-f]{1,16} on /;
const ENCOUNTERED =
  /encountered error sending messages in [\w ]{1,30} from [0-9a-f]{1,16} to ([0-9a-f]{1,16}): (.{0,300})$/;
const POSTING = /\bsender: error posting to ([0-9a-f]{1,16}): (.{0,300})$/;
const ROUNDTRIP =
  /error roundtripping to \w{1,10}:\/\/(\[[^\]\s]{1,64}\]:\d{1,5}|[\w.-]{1,253}:\d{1,5})\/\S{0,200}: (.{0,300})$/;
const RAFT_UNREACHABLE =
  /[0-9a-f]{1,16} failed to send message to ([0-9a-f]{1,16}) (?:because it is unreachable|and changed it to be unreachable)/;
const DEACTIVATED_REASON =
  /\bfailed to \w{1,20} ([0-9a-f]{1,16}) on (?:stream|pipeline|snapshot)[^(]{0,40}\((.{0,300})\)$/;

function scanLegacyPeer(line: string, s: LogSignals, touched: Seen[]): void {
  const sent = ENCOUNTERED.exec(line) ?? POSTING.exec(line);
  if (sent?.[1]) touched.push(addPeerUnreachable(s, sent[1], sent[2], line));
  const trip = ROUNDTRIP.exec(line);
  if (trip?.[1]) touched.push(addPeerByAddress(s, trip[1], trip[2] ?? '', line));
  const raft = RAFT_UNREACHABLE.exec(line)?.[1];
  if (raft) touched.push(addPeerById(s, raft, line));
  const reason = DEACTIVATED_REASON.exec(line);
  const known = reason?.[1] ? s.peerUnreachable.find((p) => p.peerId === reason[1]) : undefined;
  if (known && reason?.[2]) {
    known.lastError = reason[2].slice(0, EXAMPLE_CHARS);
    known.address = DIAL_ADDRESS.exec(reason[2])?.[1] ?? known.address;
  }
}

const HEX_ID = /^[0-9a-f]{1,16}$/;

/**
 * A dial to a peer URL whose member id the line does not name: the same peer as the one member
 * raft names unreachable when the log names exactly one (by id) and dials exactly one address.
 */
function addPeerByAddress(s: LogSignals, address: string, error: string, line: string): Seen {
  const byId = s.peerUnreachable.filter((p) => HEX_ID.test(p.peerId));
  const byAddress = s.peerUnreachable.filter((p) => !HEX_ID.test(p.peerId));
  const lone = byId.length === 1 && byAddress.length === 0 ? byId[0] : undefined;
  return addPeerUnreachable(s, lone?.peerId ?? address, error, line);
}

/** raft's own word that a peer is unreachable: one peer dialled by address only is that peer. */
function addPeerById(s: LogSignals, peerId: string, line: string): Seen {
  const byId = s.peerUnreachable.filter((p) => HEX_ID.test(p.peerId));
  const byAddress = s.peerUnreachable.filter((p) => !HEX_ID.test(p.peerId));
  const lone = byId.length === 0 && byAddress.length === 1 ? byAddress[0] : undefined;
  if (lone) lone.peerId = peerId;
  return addPeerUnreachable(s, peerId, undefined, line);
}

function addCompaction(s: LogSignals, revision: number, line: string): Seen {
  const stat = s.compactions;
  const at = stat.lastSeenAt ? lineTimestamp(line) : undefined;
  const seconds = at && stat.lastSeenAt ? (Date.parse(at) - Date.parse(stat.lastSeenAt)) / 1000 : Number.NaN;
  if (at && stat.lastSeenAt && seconds > (stat.longestGap?.seconds ?? 0))
    stat.longestGap = { seconds, from: stat.lastSeenAt, to: at };
  addCount(s, 'compactions', line);
  if (Number.isFinite(revision)) stat.lastRevision = Math.max(stat.lastRevision ?? 0, revision);
  return stat;
}

// capnslog `health check for peer <id> could not connect: x509: …`, `failed to dial <id> on stream …`.
const TEXT_PEER = /\b(?:peer|dial) ([0-9a-f]{6,16})\b/;
// The remote's certificate failed our verification (not our own refused: `remote error: tls: …`).
const REMOTE_CERT_BAD = /x509: |does not match any of/;

const MISMATCH_PEER =
  /"remote-peer-(?:server-name|id)":"([0-9a-f]{1,16})"|(?:peer|remote)\[([0-9a-f]{1,16})\]/;
const MISMATCH_LOCAL =
  /"local-member-cluster-id":"([0-9a-f]{1,16})"|\bwant ([0-9a-f]{1,16})\)|\blocal=([0-9a-f]{1,16})\)/;

function addMismatch(s: LogSignals, line: string): Seen {
  const stat = s.clusterIdMismatch;
  addCount(s, 'clusterIdMismatch', line);
  const m = MISMATCH_PEER.exec(line);
  const peer = m?.[1] ?? m?.[2];
  if (peer && stat.peers.length < 9 && !stat.peers.includes(peer)) stat.peers.push(peer);
  const local = MISMATCH_LOCAL.exec(line);
  const cid = local?.[1] ?? local?.[2] ?? local?.[3];
  if (cid) stat.localCluster ??= cid;
  return stat;
}

function addRemovedPeer(s: LogSignals, peer: string | undefined, line: string): Seen {
  const stat = s.removedPeerRejected;
  addCount(s, 'removedPeerRejected', line);
  if (peer && stat.peers.length < 9 && !stat.peers.includes(peer)) stat.peers.push(peer);
  return stat;
}

/** `127.0.0.2:43211` or `[::1]:43211` -> the IP. */
/**
 * Refusals only a client causes: etcd 3.4/3.5 log `rejected connection` for the client and the peer
 * endpoint alike, and a peer always presents a certificate and speaks TLS; a plain-HTTP health
 * probe or a scraper without a client certificate on :2379 is no peer problem.
 */
const NOT_A_PEER = /first record does not look like a TLS handshake|client didn't provide a certificate/;

function addTls(s: LogSignals, reason: string, line: string, remoteAddr?: string, peerId?: string): Seen {
  const stat = s.tlsRejected;
  addCount(s, 'tlsRejected', line);
  if (peerId && !remoteAddr && REMOTE_CERT_BAD.test(reason)) {
    stat.peers ??= [];
    if (stat.peers.length < 9 && !stat.peers.includes(peerId)) stat.peers.push(peerId);
  }
  const ip = hostOfAddress(remoteAddr);
  if (ip && stat.from.length < 9 && !stat.from.includes(ip)) stat.from.push(ip);
  if (/remote error: tls: bad certificate/.test(reason)) stat.ownRefused++;
  const short = reason.slice(0, 160);
  if (stat.reasons.length < 5 && !stat.reasons.includes(short)) stat.reasons.push(short);
  return stat;
}

function addCandidacy(s: LogSignals, term: number, line: string): Seen {
  const stat = s.candidacies;
  addCount(s, 'candidacies', line);
  if (term > stat.maxTerm) {
    if (stat.maxTerm > 0) stat.risingTerms++;
    stat.maxTerm = term;
  }
  return stat;
}

// capnslog rafthttp peer_status.go deactivate: `E | rafthttp: failed to read <id> on stream MsgApp v2
// (unexpected EOF)`, always followed by `peer <id> became inactive`, which peerUnreachable counts.
const PEER_DEACTIVATED = /\bfailed to \w+ [0-9a-f]{1,16} on (?:stream|pipeline|snapshot)\b/;
const CAPNSLOG_ERROR = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+ [EC] \| /;
const KLOG_ERROR = /^[EF]\d{4} \d\d:\d\d:\d\d\.\d+ /;
// Go's runtime writes a panic or fatal error to stderr without a logger: `panic: …`, `fatal error: …`.
const GO_CRASH = /^(?:panic|fatal error): /;
const ZAP_ERROR_LEVELS = new Set(['error', 'fatal', 'panic', 'dpanic']);
const MAX_UNEXPLAINED = 20;

/** An error-level line of etcd (zap, capnslog) or klog, after any timestamp prefix. */
function isErrorLine(line: string, zap: ZapEntry | undefined): boolean {
  if (zap) return typeof zap.fields.level === 'string' && ZAP_ERROR_LEVELS.has(zap.fields.level);
  const text = line.replace(KUBECTL_TIMESTAMP, '');
  return CAPNSLOG_ERROR.test(text) || KLOG_ERROR.test(text) || GO_CRASH.test(text);
}

/** The message with what varies folded: `failed to dial <id> on stream MsgApp v2 (<error>)`. */
function errorMessage(line: string, zap: ZapEntry | undefined): string {
  const text = zap
    ? `${zap.msg}${typeof zap.fields.error === 'string' ? `: ${zap.fields.error}` : ''}`
    : line
        .replace(KUBECTL_TIMESTAMP, '')
        .replace(/^.*? [EC] \| /, '')
        .replace(/^[EF]\d{4} [^\]]*\] /, '');
  return text
    .replace(/\b[0-9a-f]{16}\b/g, '<id>')
    .replace(/\b\d+(?:\.\d+)+(?::\d+)?\b/g, '<addr>')
    .replace(/\b\d+\b/g, '<n>')
    .slice(0, 160);
}

function addUnexplained(
  s: LogSignals,
  line: string,
  zap: ZapEntry | undefined,
  known: CatalogueEntry | undefined,
): Seen {
  const message = errorMessage(line, zap);
  let stat = s.unexplainedErrors.find((e) => e.message === message);
  if (!stat) {
    stat = { message, count: 0, example: line.slice(0, EXAMPLE_CHARS) };
    if (known) {
      stat.meaning = known.meaning;
      stat.evidenceFor = known.evidence;
    }
    // Past the cap a new message is not kept: the most frequent ones are already there, or arrive early.
    if (s.unexplainedErrors.length < MAX_UNEXPLAINED) s.unexplainedErrors.push(stat);
  }
  stat.count++;
  return stat;
}

export interface ZapEntry {
  msg: string;
  fields: Record<string, unknown>;
}

/** A zap JSON entry, possibly after a prefix (`kubectl logs --timestamps`, crictl). */
export function parseZap(line: string): ZapEntry | undefined {
  const start = line.indexOf('{"');
  if (start < 0 || !line.endsWith('}')) return undefined;
  try {
    const parsed: unknown = JSON.parse(line.slice(start));
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
    const fields = parsed as Record<string, unknown>;
    return typeof fields.msg === 'string' ? { msg: fields.msg, fields } : undefined;
  } catch {
    return undefined;
  }
}

/** zap messages and field names: ETCD34/35 wal.go, util.go, raft.go, probing_status.go, peer_status.go. */
function scanZap({ msg, fields }: ZapEntry, line: string, s: LogSignals, touched: Seen[]): void {
  const str = (key: string) => (typeof fields[key] === 'string' ? (fields[key] as string) : undefined);
  const cid = s.clusterId === undefined ? str('cluster-id') : undefined;
  if (cid) s.clusterId = cid;
  if (SLOW_SYNC.zap.includes(msg)) touched.push(addDuration(s.slowFdatasync, str('took') ?? '', line));
  else if (TOOK.zap.includes(msg)) {
    touched.push(addDuration(s.tookTooLong, str('took') ?? '', line));
    const request = str('request') ?? '';
    if (!str('error') && !request.includes('authenticate:<') && isSmallResult(str('response')))
      s.tookTooLong.small++;
  } else if (LATE_HEARTBEAT.zap.some((m) => msg.startsWith(m)))
    touched.push(addCount(s, 'heartbeatLate', line));
  else if (CLOCK_DRIFT.zap.includes(msg))
    touched.push(addClockDrift(s, str('remote-peer-id') ?? '?', str('clock-drift') ?? '', line));
  else if (PROBE_FAILED.zap.includes(msg))
    touched.push(addPeerUnreachable(s, str('remote-peer-id') ?? '?', str('error'), line));
  else if (msg.startsWith('peer became inactive'))
    touched.push(addPeerUnreachable(s, str('peer-id') ?? '?', str('error'), line));
  else if (msg === 'peer became active') markPeerActive(s, str('peer-id') ?? '?', line);
  else if (msg === 'starting local member') touched.push(addCount(s, 'startingMember', line));
  else if (msg === 'restarting local member') touched.push(addCount(s, 'restartingMember', line));
  else if (DEFRAG.zap.includes(msg)) touched.push(addDefrag(s, fields, line));
  else if (msg.startsWith('enabled backend quota') || msg.startsWith('message exceeded backend quota'))
    touched.push(addQuota(s, fields['quota-size-bytes'], line));
  else if (COMPACTION.zap.includes(msg))
    touched.push(addCompaction(s, Number(fields['compact-revision']), line));
  // `message exceeded backend quota; raising alarm` is counted by DB_SPACE on the raw line.
  // embed's `rejected connection` (3.4/3.5 zap, peer and client alike; 3.6 says `on peer
  // endpoint`, and a client refused is no peer problem) and any peer line failing on a certificate.
  const error = str('error');
  const peerRejection = msg === 'rejected connection' || msg === 'rejected connection on peer endpoint';
  const rejection = peerRejection || msg === 'rejected connection on client endpoint';
  if (peerRejection && error && TLS_ERROR.test(error) && !NOT_A_PEER.test(error))
    markDialledFrom(s, str('remote-addr'));
  // An expired certificate is cert-expiry's, a client's (3.6 `on client endpoint`) as a peer's.
  if (error && !NOT_A_PEER.test(error) && isExpiredCertificate(error) && (rejection || PEER_X509.test(error)))
    touched.push(
      addCertExpired(s, error, line, {
        remoteAddr: rejection ? str('remote-addr') : undefined,
        peerId: rejection ? undefined : (str('remote-peer-id') ?? str('peer-id')),
        endpoint: /on (client|peer) endpoint$/.exec(msg)?.[1],
      }),
    );
  else if (
    error &&
    TLS_ERROR.test(error) &&
    !NOT_A_PEER.test(error) &&
    (peerRejection || (msg !== 'rejected connection on client endpoint' && PEER_X509.test(error)))
  )
    touched.push(
      addTls(
        s,
        error,
        line,
        peerRejection ? str('remote-addr') : undefined,
        str('remote-peer-id') ?? str('peer-id'),
      ),
    );
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

function addDefrag(s: LogSignals, fields: Record<string, unknown>, line: string): Seen {
  const stat = s.defragmented;
  addCount(s, 'defragmented', line);
  const diff = num(fields['current-db-size-bytes-diff']);
  const size = num(fields['current-db-size-bytes']);
  const inUse = num(fields['current-db-size-in-use-bytes']);
  if (diff !== undefined) stat.freedBytes = Math.max(0, -diff);
  if (size !== undefined) stat.sizeBytes = size;
  if (inUse !== undefined) stat.inUseBytes = inUse;
  return stat;
}

function addQuota(s: LogSignals, bytes: unknown, line: string): Seen {
  addCount(s, 'quota', line);
  const b = num(bytes);
  if (b !== undefined && b > 0) s.quota.bytes = b;
  return s.quota;
}

function addCount(s: LogSignals, key: CountKey, line: string): Seen {
  s[key].count++;
  s[key].example = line.slice(0, EXAMPLE_CHARS);
  return s[key];
}

function addDuration(stat: DurationStat, durationText: string, line: string): Seen {
  const seconds = parseGoDuration(durationText);
  stat.count++;
  if (seconds !== undefined && (stat.maxSeconds === undefined || seconds >= stat.maxSeconds)) {
    stat.maxSeconds = seconds;
    stat.example = line.slice(0, EXAMPLE_CHARS);
  }
  stat.example ??= line.slice(0, EXAMPLE_CHARS);
  return stat;
}

function addClockDrift(s: LogSignals, peerId: string, driftText: string, line: string): Seen {
  const seconds = Math.abs(parseGoDuration(driftText) ?? Number.NaN);
  let stat = s.clockDrift.find((d) => d.peerId === peerId);
  if (!stat) {
    stat = { peerId, count: 0, maxSeconds: 0, example: line.slice(0, EXAMPLE_CHARS) };
    s.clockDrift.push(stat);
  }
  stat.count++;
  if (seconds >= stat.maxSeconds) {
    stat.maxSeconds = seconds;
    stat.example = line.slice(0, EXAMPLE_CHARS);
  }
  return stat;
}

/**
 * A dial refused because the member that logs it was removed (`… (the member has been permanently
 * removed from the cluster)`): its peers did not go; memberRemoved counts the line instead.
 */
const SELF_REMOVED = /permanently removed from the cluster/;

function addPeerUnreachable(s: LogSignals, peerId: string, error: string | undefined, line: string): Seen {
  if (error && SELF_REMOVED.test(error)) return addCount(s, 'memberRemoved', line);
  let stat = s.peerUnreachable.find((p) => p.peerId === peerId);
  if (!stat) {
    stat = { peerId, count: 0, lastError: undefined, address: undefined, example: '' };
    s.peerUnreachable.push(stat);
  }
  stat.count++;
  stat.example = line.slice(0, EXAMPLE_CHARS);
  stat.dialledUsSince = false;
  if (error) {
    stat.lastError = error.slice(0, EXAMPLE_CHARS);
    stat.address = DIAL_ADDRESS.exec(error)?.[1] ?? stat.address;
  }
  return stat;
}

/**
 * A connection refused for TLS came from `remoteAddr`: each unreachable peer whose dial address has
 * that host has since dialled this member (read in log order, so after its failures so far).
 */
function markDialledFrom(s: LogSignals, remoteAddr: string | undefined): void {
  const ip = hostOfAddress(remoteAddr);
  if (!ip) return;
  for (const p of s.peerUnreachable) if (hostOfAddress(p.address) === ip) p.dialledUsSince = true;
}

/** A peer that failed and came back: only a failure before it counts as recovered. */
function markPeerActive(s: LogSignals, peerId: string, line: string): void {
  const stat = s.peerUnreachable.find((p) => p.peerId === peerId);
  const at = stat ? lineTimestamp(line) : undefined;
  if (stat && at) stat.lastActiveAt = at;
}
