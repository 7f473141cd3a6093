#!/usr/bin/env bash
# `npm test`: sets up what it needs, then type-checks, lints and runs every Jest suite.
# Extra arguments go to Jest (e.g. `npm test -- test/unit`).
# Writes Jest's JSON results to .etcd-doctor/jest-results.json for .ci/run.
# Every step runs even when an earlier one fails, so one run shows everything that is wrong.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --need-redis || exit 1
mkdir -p .etcd-doctor
failed=0
echo "typecheck: tsc --noEmit" >&2
npx tsc --noEmit -p tsconfig.json || failed=1
echo "lint: biome check" >&2
npx biome check . || failed=1
# --forceExit: a test that leaks a handle must not hang CI; the suite's own teardown still runs.
NODE_OPTIONS=--experimental-vm-modules npx jest --json --outputFile=.etcd-doctor/jest-results.json --forceExit "$@" || failed=1
exit $failed
