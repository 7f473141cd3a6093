#!/usr/bin/env bash
# `npm run bench`: sets up what it needs, then runs bench/run.ts (results in docs/BENCHMARKS.md).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --need-redis
exec node --import tsx bench/run.ts "$@"
