#!/usr/bin/env bash
# `npm test`: sets up what it needs, then type-checks, lints and runs every Jest suite.
# Extra arguments go to Jest (e.g. `npm test -- test/unit`).
# Writes Jest's JSON results to .etcd-doctor/jest-results.json for .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --need-redis
mkdir -p .etcd-doctor
echo "typecheck: tsc --noEmit" >&2
npx tsc --noEmit -p tsconfig.json
echo "lint: biome check" >&2
npx biome check .
NODE_OPTIONS=--experimental-vm-modules npx jest --json --outputFile=.etcd-doctor/jest-results.json "$@"
