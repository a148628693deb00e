#!/usr/bin/env bash
# The project's test command (README, .ci/run): sets up what is missing, then runs the unit, API,
# end-to-end and browser tests with bun, and the shared conformance suite against the real server.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

echo "== bun test" >&2
bun test --timeout 120000 "$@"

CONFORMANCE_DIR="${CONFORMANCE_DIR:-../shared/conformance}"
if [ $# -eq 0 ] && [ -d "$CONFORMANCE_DIR" ]; then
  # The suite against the source and against the single executable (copied to an empty folder), side
  # by side: each spends most of its minute waiting for the real-time rate-limit window, and each test
  # file starts its own server on a free port, so they do not meet. Logs are printed one after the other.
  bash scripts/build-binary.sh
  BIN_DIR="$(mktemp -d)"
  LOGS="$(mktemp -d)"
  trap 'rm -rf "$BIN_DIR" "$LOGS"' EXIT
  cp dist/clipyard "$BIN_DIR/"
  CLIPYARD_CMD="bun run src/main.ts" node --test --test-concurrency=4 "$CONFORMANCE_DIR"/ >"$LOGS/source.log" 2>&1 &
  SOURCE_PID=$!
  CLIPYARD_CMD="$BIN_DIR/clipyard" CLIPYARD_CWD="$BIN_DIR" node --test --test-concurrency=4 "$CONFORMANCE_DIR"/ >"$LOGS/binary.log" 2>&1 &
  BINARY_PID=$!
  status=0
  wait "$SOURCE_PID" || status=1
  wait "$BINARY_PID" || status=1
  echo "== conformance suite against the source ($CONFORMANCE_DIR)" >&2
  cat "$LOGS/source.log"
  echo "== single executable: the conformance suite against it from an empty folder" >&2
  cat "$LOGS/binary.log"
  exit "$status"
fi
