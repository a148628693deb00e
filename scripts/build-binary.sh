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
bun build --compile --minify --sourcemap --target="$TARGET" src/main.ts src/db/postgres/bridge-worker.ts src/feeds/parse-worker.ts --outfile "$OUTFILE" >&2
ls -la "$OUTFILE" >&2
