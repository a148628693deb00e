#!/usr/bin/env bash
# yt-dlp, current release from PyPI, into .vendor/python (no system-wide pip changes).
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ -n "${YTDLP_PATH:-}" ]; then exit 0; fi
if [ -d .vendor/python/yt_dlp ]; then exit 0; fi
python3 -m pip install --quiet --disable-pip-version-check --target .vendor/python yt-dlp >&2
