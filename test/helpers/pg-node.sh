#!/usr/bin/env bash
# Runs a clipyard command on the test PostgreSQL (CLIPYARD_TEST_DATABASE_URL) in a schema of its own
# per CLIPYARD_DATA_DIR, as test/helpers/db.ts does for in-process tests: the conformance suite starts
# one server per test file, each with a fresh data folder, and they must not share tables.
#   CLIPYARD_CMD="bash test/helpers/pg-node.sh dist/clipyard" node --test ../shared/conformance/
set -euo pipefail
base="${CLIPYARD_TEST_DATABASE_URL:?pg-node.sh needs CLIPYARD_TEST_DATABASE_URL}"
schema="c_$(printf %s "${CLIPYARD_DATA_DIR:?}" | sha256sum | cut -c1-24)"
sep='?'
[[ "$base" == *\?* ]] && sep='&'
export CLIPYARD_DATABASE_URL="${base}${sep}schema=${schema}"
exec "$@"
