#!/usr/bin/env bash
# Builds the single executable dist/clipyard (linux-x64 by default; pass another Bun target, e.g.
# bun-linux-arm64, as $1, and another output path as $2). Migrations, web pages, the sandbox fixtures,
# ONNX Runtime's linux-x64 addon and library (in-process Silero VAD, CAM++ and segmentation) and the whisper.cpp addon are
# inside it; models, the speech runtime and native ffmpeg stay outside (next to the data directory / on
# PATH); the binary fetches the first two itself (`clipyard models pull`, `clipyard runtime install`).
# The PostgreSQL connection thread (src/db/postgres/bridge-worker.ts) is a second entry point: a worker
# must be named on the command line to be embedded; so is the feed parser thread (src/feeds/parse-worker.ts).
set -euo pipefail
cd "$(dirname "$0")/.."
TARGET="${1:-bun-linux-x64}"
OUTFILE="${2:-dist/clipyard}"
mkdir -p "$(dirname "$OUTFILE")"
# The whisper.cpp addon built from source (scripts/setup/whisper-cpp.sh: AVX2, word probabilities) is
# embedded when this checkout has one, for linux-x64 only; src/inference/whisper-cpp-built.ts finds it
# by these names and writes it out to load it. Without it the executable runs the prebuilt addon.
EMBED=()
if [ "$TARGET" = bun-linux-x64 ] && [ -f .vendor/whisper-cpp/whisper.node ] && [ -f .vendor/whisper-cpp/build.json ]; then
  # Staged inside src/: the executable's embedded paths are relative to the entry points' common
  # folder, and the worker entries above are found at ./db/… and ./feeds/… from it (bridge.ts,
  # parse-off-thread.ts); a staging folder outside src/ moved that root and the PostgreSQL bridge's
  # worker was not found (the executable hung at start on PostgreSQL).
  STAGE="$(mktemp -d src/.whisper-cpp-embed.XXXXXX)"
  trap 'rm -rf "$STAGE"' EXIT
  cp .vendor/whisper-cpp/whisper.node "$STAGE/clipyard-whisper-cpp-addon.node"
  cp .vendor/whisper-cpp/build.json "$STAGE/clipyard-whisper-cpp-build.buildinfo"
  EMBED=("$STAGE/clipyard-whisper-cpp-addon.node" "$STAGE/clipyard-whisper-cpp-build.buildinfo")
  echo "embedding the source-built whisper.cpp addon ($(stat -c %s .vendor/whisper-cpp/whisper.node) bytes)" >&2
else
  echo "no source-built whisper.cpp addon in .vendor/whisper-cpp (npm run setup builds it): the executable will run the prebuilt SSE addon, without word probabilities" >&2
fi
bun build --compile --minify --sourcemap --target="$TARGET" src/main.ts src/db/postgres/bridge-worker.ts src/feeds/parse-worker.ts "${EMBED[@]}" --outfile "$OUTFILE" >&2
ls -la "$OUTFILE" >&2
