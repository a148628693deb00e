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
  echo "== conformance suite ($CONFORMANCE_DIR)" >&2
  CLIPYARD_CMD="${CLIPYARD_CMD:-bun run src/main.ts}" node --test --test-concurrency=4 "$CONFORMANCE_DIR"/
fi
