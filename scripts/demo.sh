#!/usr/bin/env bash
# `npm run demo`: sets up what it needs (npm deps, etcd, Redis), starts a local 3-member etcd
# and opens etcd-doctor on it. Pass options after `--`, e.g. `npm run demo -- --fault slow-disk`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --need-redis
exec node --import tsx scripts/demo.ts "$@"
