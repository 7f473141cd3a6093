import { catalogueEntryOf } from './catalogue.js';

// capnslog writes `<pkg>: <message>` after its time and level (coreos/pkg capnslog formatters.go
// writeEntries, vendored by etcd 2.3–3.4; PrettyFormatter `<date> <time> <L> | <pkg>: <msg>`). A copy
// that kept only the package and the message (a collector that re-logs etcd's lines without their
// time, as kops' etcd-manager output is quoted in kubernetes/kops#11527) is still etcd's: its package
// tag says so. The tags etcd registers (capnslog.NewPackageLogger at v2.3.8, v3.0.17, v3.1.20,
// v3.2.32, v3.3.27 and v3.4.45), without its test tools' and the one-word tags other programs start
// lines with too (`api`, `alarm`, `auth`, `backend`, `clientv3`, `discovery`, `flags`, `integration`,
// `membership`, `proxy`, `snapshot`, `stats`).
const CAPNSLOG_PACKAGES: ReadonlySet<string> = new Set([
  'compactor',
  'embed',
  'etcdhttp',
  'etcdmain',
  'etcdserver',
  'etcdserver/api',
  'etcdserver/api/etcdhttp',
  'etcdserver/api/v2http',
  'etcdserver/api/v2http/httptypes',
  'etcdserver/api/v3rpc',
  'etcdserver/auth',
  'etcdserver/membership',
  'etcdserver/stats',
  'fileutil',
  'grpcproxy',
  'httpproxy',
  'httptypes',
  'mvcc',
  'mvcc/backend',
  'netutil',
  'osutil',
  'pkg/fileutil',
  'pkg/flags',
  'pkg/netutil',
  'pkg/osutil',
  'pkg/pbutil',
  'proxy/httpproxy',
  'proxy/tcpproxy',
  'raft',
  'rafthttp',
  'snap',
  'tcpproxy',
  'v2http',
  'v3rpc',
  'v3rpc/grpc',
  'wal',
]);
const PACKAGE_HEAD = /^(?:> ?)?([a-z][\w/]{1,40}): \S/;

/**
 * capnslog's `<pkg>: <message>` without its time and level, from the package on, for a line no
 * other shape matched; undefined when the line does not start with a package tag of etcd's.
 */
export function findCapnslogPackage(line: string): string | undefined {
  const m = PACKAGE_HEAD.exec(line);
  if (!m?.[1] || !CAPNSLOG_PACKAGES.has(m[1])) return undefined;
  // After a markdown quote (`> `), if any: the package starts the text etcd wrote.
  return line.slice(m[0].indexOf(m[1]));
}

// capnslog's journald formatter (coreos/pkg capnslog journald_formatter.go, vendored by etcd 2.3–3.4,
// chosen when etcd's parent is systemd: embed/config.go v3.3.27) sends the message alone, the package
// and level as journal fields; `journalctl -o cat` (journalctl(1): "only the actual message of each
// journal entry with no metadata, not even a timestamp"), or a copy of the MESSAGE field, leaves no
// time, level, package or program on the line. What says it is etcd's is then the message itself:
// one of etcd's constant texts (catalogue.ts, read from etcd's source at the release tags). Short
// texts (`lost leader`, `open wal error`) are phrases other programs write too: only a text of at
// least this many characters names etcd.
const MIN_MESSAGE_TEXT = 20;

/** True when a line with no other shape holds one of etcd's own messages (capnslog's journald form). */
export function isEtcdMessage(line: string): boolean {
  const entry = catalogueEntryOf(line);
  return entry?.text !== undefined && entry.text.length >= MIN_MESSAGE_TEXT && line.includes(entry.text);
}
