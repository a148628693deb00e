#!/usr/bin/env bash
# A local S3-compatible object store for trying scale-out by hand: SeaweedFS (`weed mini`: master,
# volume, filer and S3 gateway in one process) on loopback, with one fixed identity and one bucket.
#
#   scripts/cluster/seaweedfs.sh start DIR    # data, log and pid under DIR; prints the settings to export
#   scripts/cluster/seaweedfs.sh stop DIR
#
# Environment: SEAWEEDFS_PORT (S3 port, default 8333; the other services take the nine ports above
# it), SEAWEEDFS_BUCKET (default clipyard), AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY (default
# clipyard / clipyard-secret). Install the binary with scripts/setup/seaweedfs.sh.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
WEED="${WEED:-$ROOT/.vendor/seaweedfs/bin/weed}"
cmd="${1:-}"; dir="${2:-}"
[ -n "$cmd" ] && [ -n "$dir" ] || { echo "usage: $0 start|stop DIR" >&2; exit 2; }
mkdir -p "$dir"; dir="$(cd "$dir" && pwd)"
PORT="${SEAWEEDFS_PORT:-8333}"
BUCKET="${SEAWEEDFS_BUCKET:-clipyard}"
KEY="${AWS_ACCESS_KEY_ID:-clipyard}"
SECRET="${AWS_SECRET_ACCESS_KEY:-clipyard-secret}"

case "$cmd" in
start)
  [ -x "$WEED" ] || { echo "no weed binary at $WEED: run scripts/setup/seaweedfs.sh" >&2; exit 1; }
  if [ -f "$dir/pid" ] && kill -0 "$(cat "$dir/pid")" 2>/dev/null; then echo "already running (pid $(cat "$dir/pid"))" >&2; exit 0; fi
  mkdir -p "$dir/data"
  printf '{"identities":[{"name":"clipyard","credentials":[{"accessKey":"%s","secretKey":"%s"}],"actions":["Admin","Read","Write","List","Tagging"]}]}\n' "$KEY" "$SECRET" >"$dir/s3.json"
  # Every port named: weed's defaults (and its "port + 10000" gRPC ports) collide with other services.
  setsid "$WEED" mini -dir="$dir/data" -ip=127.0.0.1 -ip.bind=127.0.0.1 \
    -s3.port="$PORT" -s3.port.grpc=$((PORT + 1)) -master.port=$((PORT + 2)) -master.port.grpc=$((PORT + 3)) \
    -volume.port=$((PORT + 4)) -volume.port.grpc=$((PORT + 5)) -filer.port=$((PORT + 6)) -filer.port.grpc=$((PORT + 7)) \
    -admin.port=$((PORT + 8)) -admin.port.grpc=$((PORT + 9)) -admin.ui=false -webdav=false \
    -s3.port.iceberg=0 -s3.port.lance=0 -s3.localSocket="$dir/s3.sock" -filer.localSocket="$dir/filer.sock" -s3.config="$dir/s3.json" -bucket="$BUCKET" \
    >"$dir/weed.log" 2>&1 </dev/null &
  echo $! >"$dir/pid"
  # Ready when a signed request for the bucket succeeds: the gateway answers and the bucket exists.
  for _ in $(seq 1 600); do
    kill -0 "$(cat "$dir/pid")" 2>/dev/null || { echo "weed exited; its log ends:" >&2; tail -20 "$dir/weed.log" >&2; exit 1; }
    code=$(curl -s -o /dev/null -w '%{http_code}' --aws-sigv4 "aws:amz:us-east-1:s3" --user "$KEY:$SECRET" -I "http://127.0.0.1:$PORT/$BUCKET" || true)
    [ "$code" = 200 ] && break
    sleep 0.2
  done
  [ "${code:-}" = 200 ] || { echo "S3 did not answer for bucket $BUCKET within 120 s; see $dir/weed.log" >&2; exit 1; }
  cat <<OUT
CLIPYARD_STORAGE_URL='s3://$BUCKET?endpoint=http://127.0.0.1:$PORT&region=us-east-1'
AWS_ACCESS_KEY_ID='$KEY'
AWS_SECRET_ACCESS_KEY='$SECRET'
OUT
  ;;
stop)
  [ -f "$dir/pid" ] || exit 0
  pid="$(cat "$dir/pid")"
  # setsid made weed a process-group leader: the group goes with it.
  kill -TERM -- "-$pid" 2>/dev/null || true
  for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL -- "-$pid" 2>/dev/null || true
  rm -f "$dir/pid"
  # weed leaves some gRPC unix sockets in /tmp, named by port, whatever the flags say.
  for p in $(seq "$PORT" $((PORT + 9))); do rm -f /tmp/seaweedfs-*-"$p".sock; done
  ;;
*) echo "usage: $0 start|stop DIR" >&2; exit 2 ;;
esac
