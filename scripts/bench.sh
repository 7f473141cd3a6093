#!/usr/bin/env bash
# `npm run bench`: sets up what it needs, then runs bench/run.ts (results in docs/BENCHMARKS.md).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --need-redis
# The CLI section times the compiled CLI, as it is installed: build it from these sources first.
npm run --silent build
exec node --import tsx bench/run.ts "$@"
