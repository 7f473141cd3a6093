#!/usr/bin/env bash
# Self-setup shared by `npm test`, `npm run demo` and .ci/run. Idempotent: it only installs what is missing.
#   - node_modules (npm ci)
#   - etcd, etcdctl, strace, cpulimit, openssl from Debian (when root; otherwise prints the command)
#   - Redis on 127.0.0.1:6379 (started if nothing answers; installed from Debian when root)
#   - with --etcd-3.5: etcd 3.5 (3.5.30, the newest Debian ships) from Debian sid, unpacked (not installed) into .etcd-doctor/etcd-3.5/
# Usage: scripts/setup.sh [--need-redis] [--etcd-3.5]
set -euo pipefail
cd "$(dirname "$0")/.."

need_redis=0
need_etcd35=0
for arg in "$@"; do
  case "$arg" in
    --need-redis) need_redis=1 ;;
    --etcd-3.5) need_etcd35=1 ;;
  esac
done

say() { printf 'setup: %s\n' "$*" >&2; }

# A REDIS_URL (or REDIS_SENTINELS / REDIS_CLUSTER_NODES) that points at another Redis is the user's
# own: nothing is started on 6379 for it.
case "${REDIS_URL:-redis://127.0.0.1:6379}" in
  redis://127.0.0.1:6379 | redis://127.0.0.1:6379/* | redis://localhost:6379 | redis://localhost:6379/*) ;;
  *) need_redis=0 ;;
esac
[ -z "${REDIS_SENTINELS:-}${REDIS_CLUSTER_NODES:-}" ] || need_redis=0

# A worktree whose node_modules links to another checkout's: npm ci would empty that checkout's
# modules through the link (it did, twice, under other runs), so it is left to that checkout.
if [ -L node_modules ]; then
  [ package-lock.json -nt node_modules/.package-lock.json ] &&
    say "node_modules links to $(readlink node_modules), older than this package-lock.json: run npm ci there"
elif [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  say "installing npm dependencies (npm ci)"
  npm ci --no-audit --no-fund >&2
fi

apt_updated=0
apt_install() {
  if [ "$(id -u)" != "0" ]; then
    say "missing: $*. Install it with: sudo apt-get update && sudo apt-get install -y $*"
    return 1
  fi
  if [ "$apt_updated" = 0 ]; then
    say "apt-get update"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
    apt_updated=1
  fi
  say "apt-get install $*"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >&2
}

missing=()
command -v etcd >/dev/null 2>&1 || missing+=(etcd-server)
command -v etcdctl >/dev/null 2>&1 || missing+=(etcd-client)
command -v strace >/dev/null 2>&1 || missing+=(strace)
command -v cpulimit >/dev/null 2>&1 || missing+=(cpulimit)
# openssl makes the TLS lab's certificates at test time.
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
# kubectl renders the kustomize manifests in the deploy tests; Debian's kubernetes-client has one.
command -v kubectl >/dev/null 2>&1 || missing+=(kubernetes-client)
# gcc builds the clock-shifting tracer used by the clock-skew test (it falls back without it).
command -v gcc >/dev/null 2>&1 || missing+=(gcc libc6-dev)
if [ "$need_redis" = 1 ] && ! command -v redis-server >/dev/null 2>&1 && ! (exec 3<>/dev/tcp/127.0.0.1/6379) 2>/dev/null; then
  missing+=(redis-server)
fi
if [ "${#missing[@]}" -gt 0 ]; then
  apt_install "${missing[@]}" || exit 1
fi

# Debian's etcd-server package may start a system etcd on 2379 where systemd runs; we never use it.
if [ "$need_redis" = 1 ]; then
  if ! (exec 3<>/dev/tcp/127.0.0.1/6379) 2>/dev/null; then
    say "starting redis-server on 127.0.0.1:6379"
    redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save '' --appendonly no >&2
    for _ in $(seq 1 50); do
      (exec 3<>/dev/tcp/127.0.0.1/6379) 2>/dev/null && break
      sleep 0.1
    done
  fi
fi

# etcd 3.5 (bookworm has 3.4 only): sid's etcd-server and etcd-client packages (3.5.30, the newest
# 3.5 Debian ships; trixie has 3.5.16), fetched with a private sources list (no change to the system's
# apt state, no mixing of suites) and unpacked with dpkg-deb -x. Put .etcd-doctor/etcd-3.5/root/usr/bin
# first on PATH to use it. No etcd 3.6 or 3.7 is packaged anywhere reachable here (docs/development.md).
ETCD35_DIR=.etcd-doctor/etcd-3.5
ETCD35_SUITE=sid
ETCD35_VERSION=3.5.30
# The whole `etcd --version` output is read first: piped into `head` or `grep -q`, etcd can die of
# SIGPIPE and, under pipefail, a good binary would look broken.
etcd_version_of() {
  local out
  out=$("$1" --version 2>/dev/null) || return 1
  printf '%s\n' "$out" | sed -n 's/^etcd Version: //p'
}
fetch_etcd35() {
  local dir=$ETCD35_DIR mirror sources
  if [ -x "$dir/root/usr/bin/etcd" ] && [ "$(etcd_version_of "$dir/root/usr/bin/etcd")" = "$ETCD35_VERSION" ]; then
    return 0
  fi
  sources=/etc/apt/sources.list.d/debian.sources
  mirror=$( (awk '/^URIs:/ { print $2; exit }' "$sources" 2>/dev/null) || true)
  [ -n "$mirror" ] || mirror=$(awk '$1 == "deb" && $0 !~ /security/ { for (i = 2; i <= NF; i++) if ($i ~ /^https?:/) { print $i; exit } }' /etc/apt/sources.list 2>/dev/null || true)
  [ -n "$mirror" ] || mirror=http://deb.debian.org/debian
  say "fetching etcd $ETCD35_VERSION from Debian $ETCD35_SUITE ($mirror) into $dir"
  rm -rf "$dir"
  mkdir -p "$dir/apt/lists/partial" "$dir/apt/cache/archives/partial" "$dir/debs" "$dir/root"
  echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $ETCD35_SUITE main" >"$dir/apt/sources.list"
  local opts=(-q -o "Dir::Etc::sourcelist=$PWD/$dir/apt/sources.list" -o Dir::Etc::sourceparts=-
    -o "Dir::State::Lists=$PWD/$dir/apt/lists" -o "Dir::Cache=$PWD/$dir/apt/cache" -o APT::Get::List-Cleanup=0)
  [ "$(id -u)" != "0" ] || opts+=(-o APT::Sandbox::User=root)
  apt-get "${opts[@]}" update >&2
  (cd "$dir/debs" && apt-get "${opts[@]}" download etcd-server etcd-client >&2)
  for deb in "$dir"/debs/*.deb; do dpkg-deb -x "$deb" "$dir/root"; done
  rm -rf "$dir/apt"
  local version
  version=$(etcd_version_of "$dir/root/usr/bin/etcd") || return 1
  # sid moves on: a newer 3.5 patch is taken (and said), never another minor.
  [[ "$version" == 3.5.* ]] || { say "Debian $ETCD35_SUITE ships etcd $version, not 3.5"; return 1; }
  [ "$version" = "$ETCD35_VERSION" ] || say "note: Debian $ETCD35_SUITE now ships etcd $version (this lane expects $ETCD35_VERSION)"
  say "etcd $version unpacked into $dir"
}
if [ "$need_etcd35" = 1 ]; then
  fetch_etcd35 || { say "could not fetch etcd 3.5 from Debian $ETCD35_SUITE"; exit 1; }
fi
