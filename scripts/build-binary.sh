#!/usr/bin/env bash
# Builds the single executable dist/clipyard (linux-x64 by default; pass another Bun target, e.g.
# bun-linux-arm64, as $1). Migrations, web pages and the sandbox fixtures are inside it; models, the
# speech runtime and native ffmpeg stay outside (next to the data directory / on PATH); the binary fetches
# the first two itself (`clipyard models pull`, `clipyard runtime install`).
set -euo pipefail
cd "$(dirname "$0")/.."
TARGET="${1:-bun-linux-x64}"
mkdir -p dist
bun build --compile --minify --sourcemap --target="$TARGET" src/main.ts --outfile dist/clipyard >&2
ls -la dist/clipyard >&2
