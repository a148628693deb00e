#!/usr/bin/env bash
# A scale-out back end on this machine for trying a cluster by hand (docs/scale-out.md): PostgreSQL and
# SeaweedFS (S3) on loopback under one folder, a database, a bucket, and the settings every node needs.
#
#   eval "$(scripts/cluster/up.sh /tmp/clipyard-cluster)"   # start; exports the settings in this shell
#   clipyard serve --role api     # in one terminal (CLIPYARD_PORT=8787)
#   clipyard serve --role worker  # in others, each with its own CLIPYARD_DATA_DIR
#   scripts/cluster/down.sh /tmp/clipyard-cluster
#
# Ports: CLUSTER_PG_PORT (default 55432), CLUSTER_S3_PORT (default 8333, and the nine above it).
# Test servers only: trust authentication and fixed S3 credentials, bound to 127.0.0.1.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
dir="${1:?usage: up.sh DIR}"
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"
# Under root the database server runs as the postgres user, which must reach DIR/postgres.
chmod o+x "$dir"
pg_port="${CLUSTER_PG_PORT:-55432}"
s3_port="${CLUSTER_S3_PORT:-8333}"
echo "$pg_port $s3_port" >"$dir/ports"

pg_url="$(bash "$ROOT/scripts/cluster/postgres.sh" start "$dir/postgres" "$pg_port")"
psql -q "$pg_url" -tAc "SELECT 1 FROM pg_database WHERE datname = 'clipyard'" | grep -q 1 || psql -q "$pg_url" -c "CREATE DATABASE clipyard" >/dev/null
s3_env="$(SEAWEEDFS_PORT="$s3_port" bash "$ROOT/scripts/cluster/seaweedfs.sh" start "$dir/seaweedfs")"

# One key for every node: what one seals (webhook secrets) another must open.
[ -f "$dir/secret.key" ] || (umask 077 && openssl rand -base64 32 >"$dir/secret.key")
cat <<OUT
export CLIPYARD_DATABASE_URL='${pg_url%/postgres}/clipyard'
$(echo "$s3_env" | sed 's/^/export /')
export CLIPYARD_SECRET_KEY='$(cat "$dir/secret.key")'
OUT
echo "cluster back end up in $dir: PostgreSQL on 127.0.0.1:$pg_port, S3 on 127.0.0.1:$s3_port" >&2
