#!/usr/bin/env bash
# Rendering needs native ffmpeg/ffprobe (with libx264, libass, libfreetype), the DejaVu fonts the
# caption and audiogram styles name, and espeak-ng to regenerate the sandbox fixtures.
# Idempotent: installs only what is missing.
set -euo pipefail

need=()
for pkg in ffmpeg espeak-ng fonts-dejavu-core fontconfig; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
if ((${#need[@]})); then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}"
fi

filters=$(ffmpeg -hide_banner -filters 2>/dev/null)
encoders=$(ffmpeg -hide_banner -encoders 2>/dev/null)
grep -q ' ass ' <<<"$filters" || { echo "render setup: ffmpeg lacks the libass 'ass' filter" >&2; exit 1; }
grep -q libx264 <<<"$encoders" || { echo "render setup: ffmpeg lacks libx264" >&2; exit 1; }
fonts=$(fc-list)
grep -q "DejaVu Sans" <<<"$fonts" || { echo "render setup: DejaVu Sans font not found by fontconfig" >&2; exit 1; }
echo "render setup: ffmpeg $(ffmpeg -version | head -1 | cut -d' ' -f3), espeak-ng, DejaVu fonts ok"

# Face models for speaker-following crops come from the npm package @vladmandic/human (installed by
# `bun install`); copy them into the models directory, where src/models/face-detector.ts checks
# their sha256 against its manifest before loading.
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
MODELS_DIR="${CLIPYARD_MODELS_DIR:-$ROOT/models}"
SRC="$ROOT/node_modules/@vladmandic/human/models"
DEST="$MODELS_DIR/human-3.3.6"
if [ -d "$SRC" ]; then
  mkdir -p "$DEST"
  for f in blazeface.json blazeface.bin facemesh.json facemesh.bin; do
    cmp -s "$SRC/$f" "$DEST/$f" 2>/dev/null || cp "$SRC/$f" "$DEST/$f"
  done
  echo "render setup: face models in $DEST"
else
  echo "render setup: $SRC not found; run 'bun install' first for face-following crops" >&2
fi
