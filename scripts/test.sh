#!/usr/bin/env bash
# `npm test`: sets up what it needs, then type-checks, lints, checks the structure of src/
# (scripts/check-structure.mjs) and runs every Jest suite.
# Extra arguments go to Jest (e.g. `npm test -- test/unit`): then only those files run, with only the
# set-up they need. `npm run test:unit` runs the unit tests with nothing else (Node alone, ~1 min).
# Writes Jest's JSON results to .etcd-doctor/jest-results.json for .ci/run.
# ETCD_VERSION=3.5 runs against etcd 3.5 (Debian sid's 3.5.30, unpacked by setup into
# .etcd-doctor/etcd-3.5/ and put first on PATH) and writes .etcd-doctor/jest-results-etcd-3.5.json.
# Every step runs even when an earlier one fails, so one run shows everything that is wrong.
set -uo pipefail
cd "$(dirname "$0")/.."
setup_args=(--need-redis)
results=.etcd-doctor/jest-results.json
case "${ETCD_VERSION:-}" in
  '') ;;
  3.4) export ETCD_DOCTOR_LAB_ETCD=3.4 ;;
  3.5)
    # Every lab of this run checks that it runs etcd 3.5 (test/support/lab/binaries.ts checkLaneVersion).
    export ETCD_DOCTOR_LAB_ETCD=3.5
    setup_args+=(--etcd-3.5)
    export PATH="$PWD/.etcd-doctor/etcd-3.5/root/usr/bin:$PATH"
    results=.etcd-doctor/jest-results-etcd-3.5.json
    ;;
  *) echo "ETCD_VERSION must be 3.4 (Debian bookworm's) or 3.5 (sid's 3.5.30), not ${ETCD_VERSION}" >&2; exit 2 ;;
esac
# TEST_ETCD35_LANE=1 (.ci/run): a whole run also runs the real-fault suites on etcd 3.5, in the
# second Jest process after the suites that wait on watch intervals (it would otherwise idle while
# the main run finishes), with its own results file.
FAULT_SUITES=(test/integration/faults test/integration/vantage test/integration/etcd-lab.etcd.test.ts test/integration/remediation/nospace.etcd.test.ts)
lane35=0
if [ "${TEST_ETCD35_LANE:-}" = 1 ] && [ $# -eq 0 ] && [ "$results" = .etcd-doctor/jest-results.json ]; then
  lane35=1
  setup_args+=(--etcd-3.5)
fi
# Paths given (`npm test -- test/unit/format.test.ts`): only the set-up they need. Unit tests need
# none (Node alone); anything else gets the machine set-up (etcd, Redis, ...). No type-check, lint,
# structure check or build: those are the whole run's (and `npm run typecheck`, `lint`, `structure`).
only_unit=0
if [ $# -gt 0 ]; then
  only_unit=1
  for arg in "$@"; do
    case "$arg" in
      -*) ;;
      test/unit | test/unit/* | ./test/unit/*) ;;
      *) only_unit=0 ;;
    esac
  done
fi
if [ "$only_unit" = 0 ]; then
  bash scripts/setup.sh "${setup_args[@]}" || exit 1
  echo "etcd: $(etcd --version 2>/dev/null | head -1) ($(command -v etcd))" >&2
fi
mkdir -p .etcd-doctor
failed=0
# Every temp folder the tests make (os.tmpdir() reads TMPDIR) goes under one folder of this run,
# removed when it ends: a run left about 35 folders in /tmp before (issue 42).
run_tmp=$(mktemp -d "${TMPDIR:-/tmp}/etcd-doctor-test-XXXXXX")
trap 'rm -rf "$run_tmp"' EXIT
export TMPDIR="$run_tmp"
if [ $# -eq 0 ]; then
  echo "typecheck: tsc --noEmit" >&2
  npx tsc --noEmit -p tsconfig.json || failed=1
  echo "lint: biome check" >&2
  npx biome check . || failed=1
  # Import cycles, ioredis outside state/queue/clients, src -> test imports, functions over 80 lines.
  echo "structure: scripts/check-structure.mjs" >&2
  node scripts/check-structure.mjs || failed=1
  # The CLI as users run it: bin/ starts dist/ (the bundles and the code cache health and diagnose
  # use) when it is newer than the sources, and the module-graph test checks that fast path.
  echo "build: npm run build" >&2
  npm run build >/dev/null || failed=1
fi
# No --forceExit (it printed Jest's "Force exiting" hint on every run): --detectOpenHandles finds no
# open handle in test/unit and the integration suites sampled (shell, demo, Slack HTTP, MCP stdio,
# remediation, Kubernetes discovery), so Jest exits by itself. Should a suite leak one, Jest's
# workers are still stopped at the end of a multi-file run, and it names the leak
# ("A worker process has failed to exit gracefully") instead of hiding it.
# A whole run (no arguments) starts the suites that mostly wait on watch intervals (minutes of
# checks at 5 s and 60 s, little CPU) in a second Jest process beside the rest, one at a time, so
# they do not hold the two main workers; the results are merged into one file for .ci/run.
WAITING='test/integration/watch/(quiet|restarts|incident)\.etcd\.test\.ts|test/integration/history/since-when\.etcd\.test\.ts'
if [ $# -eq 0 ]; then
  waiting_log=.etcd-doctor/jest-waiting.log
  (
    NODE_OPTIONS=--experimental-vm-modules npx jest --json --outputFile="$results.waiting" --maxWorkers=1 \
      --testPathPatterns "$WAITING"
    waiting_status=$?
    if [ "$lane35" = 1 ]; then
      echo "--- the real-fault suites on etcd 3.5, after the waiting suites:"
      PATH="$PWD/.etcd-doctor/etcd-3.5/root/usr/bin:$PATH" etcd --version | head -1
      ETCD_DOCTOR_LAB_ETCD=3.5 PATH="$PWD/.etcd-doctor/etcd-3.5/root/usr/bin:$PATH" NODE_OPTIONS=--experimental-vm-modules npx jest --json \
        --outputFile=.etcd-doctor/jest-results-etcd-3.5.json --maxWorkers=1 "${FAULT_SUITES[@]}" || waiting_status=1
    fi
    exit $waiting_status
  ) >"$waiting_log" 2>&1 &
  waiting_pid=$!
  NODE_OPTIONS=--experimental-vm-modules npx jest --json --outputFile="$results.main" \
    --testPathIgnorePatterns '/node_modules/' '<rootDir>/test/soak/' "$WAITING" || failed=1
  wait "$waiting_pid" || failed=1
  echo "--- the suites that wait on watch intervals (a second Jest process):" >&2
  cat "$waiting_log" >&2
  node scripts/merge-jest-results.mjs "$results" "$results.main" "$results.waiting" || failed=1
else
  NODE_OPTIONS=--experimental-vm-modules npx jest --json --outputFile="$results" "$@" || failed=1
fi
exit $failed
