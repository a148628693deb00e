#!/usr/bin/env bash
# The scale-out test servers (docs/scale-out.md): Debian's PostgreSQL 15, which `npm test` starts on
# loopback through scripts/cluster/postgres.sh for the PostgreSQL test pass and the cluster tests.
# The appliance itself never needs it: a single node keeps its state in SQLite.
set -euo pipefail
if ! command -v initdb >/dev/null 2>&1 && ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  apt_install postgresql-15
fi
