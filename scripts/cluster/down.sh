#!/usr/bin/env bash
# Stops what scripts/cluster/up.sh DIR started. The data stays in DIR (delete it to start afresh).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
dir="$(cd "${1:?usage: down.sh DIR}" && pwd)"
read -r pg_port s3_port <"$dir/ports"
SEAWEEDFS_PORT="$s3_port" bash "$ROOT/scripts/cluster/seaweedfs.sh" stop "$dir/seaweedfs" || true
bash "$ROOT/scripts/cluster/postgres.sh" stop "$dir/postgres" || true
echo "cluster back end in $dir stopped" >&2
