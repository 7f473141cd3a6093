#!/usr/bin/env bash
# `npm test`: sets up what it needs, then type-checks, lints, checks the structure of src/
# (scripts/check-structure.mjs) and runs every Jest suite.
# Extra arguments go to Jest (e.g. `npm test -- test/unit`).
# Writes Jest's JSON results to .etcd-doctor/jest-results.json for .ci/run.
# ETCD_VERSION=3.5 runs against etcd 3.5 (Debian trixie's, unpacked by setup into
# .etcd-doctor/etcd-3.5/ and put first on PATH) and writes .etcd-doctor/jest-results-etcd-3.5.json.
# Every step runs even when an earlier one fails, so one run shows everything that is wrong.
set -uo pipefail
cd "$(dirname "$0")/.."
setup_args=(--need-redis)
results=.etcd-doctor/jest-results.json
case "${ETCD_VERSION:-}" in
  '' | 3.4) ;;
  3.5)
    setup_args+=(--etcd-3.5)
    export PATH="$PWD/.etcd-doctor/etcd-3.5/root/usr/bin:$PATH"
    results=.etcd-doctor/jest-results-etcd-3.5.json
    ;;
  *) echo "ETCD_VERSION must be 3.4 (Debian bookworm's) or 3.5 (trixie's), not ${ETCD_VERSION}" >&2; exit 2 ;;
esac
bash scripts/setup.sh "${setup_args[@]}" || exit 1
echo "etcd: $(etcd --version 2>/dev/null | head -1) ($(command -v etcd))" >&2
mkdir -p .etcd-doctor
failed=0
# TEST_JEST_ONLY=1 (a second pass over the same tree, as .ci/run's etcd 3.5 pass): Jest only.
if [ "${TEST_JEST_ONLY:-}" != 1 ]; then
  echo "typecheck: tsc --noEmit" >&2
  npx tsc --noEmit -p tsconfig.json || failed=1
  echo "lint: biome check" >&2
  npx biome check . || failed=1
  # Import cycles, ioredis outside state/queue/clients, src -> test imports, functions over 80 lines.
  echo "structure: scripts/check-structure.mjs" >&2
  node scripts/check-structure.mjs || failed=1
fi
# No --forceExit (it printed Jest's "Force exiting" hint on every run): --detectOpenHandles finds no
# open handle in test/unit and the integration suites sampled (shell, demo, Slack HTTP, MCP stdio,
# remediation, Kubernetes discovery), so Jest exits by itself. Should a suite leak one, Jest's
# workers are still stopped at the end of a multi-file run, and it names the leak
# ("A worker process has failed to exit gracefully") instead of hiding it.
NODE_OPTIONS=--experimental-vm-modules npx jest --json --outputFile="$results" "$@" || failed=1
exit $failed
