#!/usr/bin/env bash
# The README's first command: set up what is missing, then run a real job end to end on the bundled sample.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec bun scripts/demo.ts "$@"
