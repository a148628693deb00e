#!/usr/bin/env bash
# A throwaway PostgreSQL server on loopback for tests, benches and scripts/cluster/up.sh.
#   postgres.sh start DIR PORT   initialise DIR (if new) and start the server; prints its URL
#   postgres.sh stop DIR         stop it (fast shutdown)
# Debian's postgresql-15 binaries (initdb, pg_ctl, postgres) must be on PATH or in
# /usr/lib/postgresql/*/bin. PostgreSQL refuses to run as root, so under root the server runs as the
# `postgres` system user (DIR is handed to it). Trust authentication on 127.0.0.1 only: a test
# server, never a production one (docs/scale-out.md).
set -euo pipefail
cmd="${1:?usage: postgres.sh start DIR PORT | stop DIR}"
dir="${2:?DIR}"
for d in /usr/lib/postgresql/*/bin; do [ -d "$d" ] && PATH="$PATH:$d"; done
as_owner() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
case "$cmd" in
  start)
    port="${3:?PORT}"
    command -v initdb >/dev/null || { echo "postgres.sh: initdb not found (apt-get install postgresql-15)" >&2; exit 1; }
    mkdir -p "$dir"
    if [ "$(id -u)" = 0 ]; then
      chown postgres "$dir"
      runuser -u postgres -- test -w "$dir" || { echo "postgres.sh: the postgres user cannot reach $dir (a parent folder is closed to others: chmod o+x it)" >&2; exit 1; }
    fi
    if [ ! -f "$dir/data/PG_VERSION" ]; then
      as_owner initdb -D "$dir/data" -U clipyard --auth=trust -E UTF8 --locale=C >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; exit 1; }
    fi
    as_owner pg_ctl -D "$dir/data" -l "$dir/server.log" -w -t 60 \
      -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c max_connections=200 -c shared_buffers=64MB" start >/dev/null \
      || { cat "$dir/server.log" >&2; exit 1; }
    echo "postgres://clipyard@127.0.0.1:$port/postgres"
    ;;
  stop)
    [ -f "$dir/data/postmaster.pid" ] && as_owner pg_ctl -D "$dir/data" -m fast -w stop >/dev/null
    ;;
  *) echo "usage: postgres.sh start DIR PORT | stop DIR" >&2; exit 2 ;;
esac
