#!/usr/bin/env bash
# The project's test command (README, .ci/run): sets up what is missing, then runs the unit, API,
# end-to-end and browser tests with bun, the storage-touching layers again on PostgreSQL, and the
# shared conformance suite against the real server (source and executable on SQLite, the executable
# on PostgreSQL and SeaweedFS, the scale-out back ends).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

# Every temporary folder of the run (test data folders, the servers' uploads, PostgreSQL, SeaweedFS, the
# conformance suite's servers) lives under one folder that the run removes at its end, pass or fail: the
# tests make hundreds of them (some with 256 MB uploads), and a machine that runs the suite again and
# again would otherwise fill its disk until the appliance's free-space reserve turns jobs away.
RUN_TMP="$(mktemp -d "${TMPDIR:-/tmp}/clipyard-test-run.XXXXXX")"
# Others may pass through it (not list it): the test PostgreSQL runs as the postgres user when root runs the suite.
chmod 711 "$RUN_TMP"
export TMPDIR="$RUN_TMP"
trap 'rm -rf "$RUN_TMP"' EXIT

CONFORMANCE_DIR="${CONFORMANCE_DIR:-../shared/conformance}"
# A clone without the sibling shared/ folder skips the conformance suite (and the tests that read
# ../shared/media, test/helpers/shared.ts); CI (CLIPYARD_REQUIRE_SHARED=1, .ci/run) fails instead.
if [ $# -eq 0 ] && [ ! -d "$CONFORMANCE_DIR" ]; then
  if [ "${CLIPYARD_REQUIRE_SHARED:-0}" = 1 ]; then
    echo "the conformance suite is missing at $CONFORMANCE_DIR (CLIPYARD_REQUIRE_SHARED=1 makes that a failure)" >&2
    exit 1
  fi
  echo "skipped: the conformance suite needs $CONFORMANCE_DIR" >&2
fi

# The tests render with libx264's fastest preset: they check what is rendered (frames, crops, captions,
# cards, durations), not x264's compression, and ultrafast costs a quarter to a third less CPU per
# render on a run whose time is mostly rendering (docs/benchmarks/render.md, tests.md).
# test/e2e/process-cli.test.ts renders with the default preset and checks that it is the one in the file.
export CLIPYARD_X264_PRESET="${CLIPYARD_X264_PRESET:-ultrafast}"

# A throwaway PostgreSQL for the test matrix and the cluster tests (scripts/cluster/postgres.sh).
PG_DIR="$(mktemp -d)"
SW_DIR="$(mktemp -d)"
# Finished jobs that several end-to-end files start from, built once for this run (test/helpers/finished-job.ts),
# and the two-person compositions they share (test/helpers/compositions.ts).
export CLIPYARD_TEST_JOB_CACHE="$(mktemp -d)"
BIN_DIR="$(mktemp -d)"
LOGS="$(mktemp -d)"
cleanup() {
  # The passes started in the background, if the script ends before it waited for them.
  for pid in ${PG_PASS_PID:-} ${SOURCE_PID:-} ${BINARY_PID:-} ${POSTGRES_PID:-}; do kill "$pid" 2>/dev/null || true; done
  bash scripts/cluster/postgres.sh stop "$PG_DIR" || true
  [ -n "${SW_PORT:-}" ] && SEAWEEDFS_PORT="$SW_PORT" bash scripts/cluster/seaweedfs.sh stop "$SW_DIR" || true
  rm -rf "$PG_DIR" "$SW_DIR" "$BIN_DIR" "$LOGS" "$CLIPYARD_TEST_JOB_CACHE" "$RUN_TMP"
}
trap cleanup EXIT
for attempt in 1 2 3 4 5; do
  PG_PORT=$((20000 + RANDOM % 20000))
  if PG_URL="$(bash scripts/cluster/postgres.sh start "$PG_DIR" "$PG_PORT" 2>"$LOGS/pg.err")"; then break; fi
  PG_URL=""
done
[ -n "$PG_URL" ] || { cat "$LOGS/pg.err" >&2; echo "could not start the test PostgreSQL" >&2; exit 1; }
export CLIPYARD_TEST_POSTGRES_URL="$PG_URL"

# Test files run in parallel worker processes (two on the 2-core CI machine, at most four): much of
# the suite waits on servers, timers and child processes rather than the CPU. Every test makes its own
# data folder, ports and database schema, so files do not meet. CLIPYARD_TEST_PARALLEL=1 runs them one
# after the other.
CORES="$(nproc 2>/dev/null || echo 2)"
PARALLEL="${CLIPYARD_TEST_PARALLEL:-$(( CORES < 4 ? CORES : 4 ))}"
# test/timings.json holds each file's seconds from a whole run: bun cuts the workers' shares by it and
# starts each worker's slowest file first (an idle one takes the slowest not yet started), so the two
# workers end together instead of one starting the 9-minute file late. A file it does not list counts
# as slow. CLIPYARD_TEST_UPDATE_TIMINGS=1 writes this run's durations back into it.
TIMINGS=(--timings=test/timings.json)
[ "${CLIPYARD_TEST_UPDATE_TIMINGS:-0}" = 1 ] && TIMINGS+=(--update-timings)
if [ $# -gt 0 ]; then
  echo "== bun test (${PARALLEL} at a time)" >&2
  bun test --timeout 120000 --parallel="$PARALLEL" "${TIMINGS[@]}" "$@"
  exit 0
fi

status=0
conformance=0
# The PostgreSQL pass and the three conformance runs start first and run beside the main pass rather
# than after it: they spend most of their time waiting (on the real-time rate-limit windows, timers
# and their servers' answers), not on the CPU, which the main pass's end-to-end files fill. Their
# output goes to log files, printed after the main pass, one after the other.
if [ -d "$CONFORMANCE_DIR" ]; then
  conformance=1
  # The suite against the source, against the single executable (copied to an empty folder), and
  # against the executable on the scale-out back ends, side by side: each test file starts its own
  # server on a free port, so they do not meet.
  bash scripts/build-binary.sh
  cp dist/clipyard "$BIN_DIR/"
  # The end-to-end files that run the executable copy this build instead of compiling their own
  # (test/helpers/parity.ts).
  export CLIPYARD_TEST_BINARY="$PWD/dist/clipyard"
  # The scale-out node's object store: SeaweedFS on loopback (ten ports from SW_PORT).
  SW_PORT=$((42000 + (RANDOM % 200) * 10))
  SW_ENV="$(SEAWEEDFS_PORT="$SW_PORT" bash scripts/cluster/seaweedfs.sh start "$SW_DIR")"
  CLIPYARD_CMD="bun run src/main.ts" node --test --test-concurrency=4 "$CONFORMANCE_DIR"/ >"$LOGS/source.log" 2>&1 &
  SOURCE_PID=$!
  CLIPYARD_CMD="$BIN_DIR/clipyard" CLIPYARD_CWD="$BIN_DIR" node --test --test-concurrency=4 "$CONFORMANCE_DIR"/ >"$LOGS/binary.log" 2>&1 &
  BINARY_PID=$!
  # With the servers' logs (printed only if it fails): the newest back end is the one to diagnose.
  (eval "export $(echo "$SW_ENV" | tr '\n' ' ')"
  CONFORMANCE_SERVER_LOG=1 CLIPYARD_TEST_DATABASE_URL="$PG_URL" CLIPYARD_CMD="bash $PWD/test/helpers/pg-node.sh $BIN_DIR/clipyard" CLIPYARD_CWD="$BIN_DIR" \
    node --test --test-concurrency=4 "$CONFORMANCE_DIR"/) >"$LOGS/postgres.log" 2>&1 &
  POSTGRES_PID=$!
fi

# The same tests of every layer that keeps state, on the other back end (test/helpers/db.ts), one file
# at a time. Of the unit tests only those that open their database through that helper: the rest
# never touch the back end (or name SQLite or PostgreSQL themselves, and run in the main pass), so a
# second pass would only repeat them.
PG_UNIT=()
while IFS= read -r f; do PG_UNIT+=("$f"); done < <(grep -rl --include='*.test.ts' 'helpers/db\.ts' test/unit | sort)
CLIPYARD_TEST_DATABASE_URL="$PG_URL" bun test --timeout 120000 test/api test/billing test/webhooks test/jobs test/feeds test/watch test/mcp "${PG_UNIT[@]}" >"$LOGS/pg-pass.log" 2>&1 &
PG_PASS_PID=$!

echo "== bun test (${PARALLEL} at a time)" >&2
# Kept in a log too, for the summary at the end.
if ! bun test --timeout 120000 --parallel="$PARALLEL" "${TIMINGS[@]}" 2>&1 | tee "$LOGS/main.log" >&2; then status=1; fi

wait "$PG_PASS_PID" || status=1
echo "== bun test on PostgreSQL (API, domain, and the unit tests of ${#PG_UNIT[@]} storage-touching modules)" >&2
cat "$LOGS/pg-pass.log" >&2
if [ "$conformance" = 1 ]; then
  wait "$SOURCE_PID" || status=1
  wait "$BINARY_PID" || status=1
  pg_status=0
  wait "$POSTGRES_PID" || pg_status=1
  echo "== conformance suite against the source ($CONFORMANCE_DIR)" >&2
  cat "$LOGS/source.log"
  echo "== single executable: the conformance suite against it from an empty folder" >&2
  cat "$LOGS/binary.log"
  echo "== the executable on PostgreSQL and SeaweedFS (S3): the conformance suite against it" >&2
  if [ "$pg_status" = 0 ]; then grep -a -v '^# {"t":' "$LOGS/postgres.log"; else cat "$LOGS/postgres.log"; status=1; fi
fi
# Last on stdout, where a CI log that keeps only its tail still shows it: each bun pass's counts and
# the names of its failed tests, and the conformance runs' counts.
echo "== summary"
for pass in main pg-pass; do
  grep -a -E '^\(fail\) |^ *[0-9]+ (pass|skip|fail)$|^Ran [0-9]+ tests' "$LOGS/$pass.log" | awk '!seen[$0]++' | sed "s/^/[$pass] /" || true
done
if [ "$conformance" = 1 ]; then
  for run in source binary postgres; do { grep -a -E '^# (pass|fail) ' "$LOGS/$run.log" || true; } | tr '\n' ' ' | sed "s/^/[conformance $run] /"; echo; done
fi
exit "$status"
