#!/usr/bin/env bash
# Rendering needs native ffmpeg/ffprobe (with libx264, libass, libfreetype), the DejaVu fonts the
# caption and audiogram styles name, Noto Sans CJK for the Chinese, Japanese and Korean characters
# DejaVu lacks and Noto Sans per script (fonts-noto-core: Devanagari, Thai, Arabic, Hebrew, …) for
# the other scripts of languages Whisper knows (libass falls back to them through fontconfig;
# audiograms name them, src/media/ffmpeg.ts boldFontFor), and espeak-ng to
# regenerate the sandbox fixtures and synthesise the French end-to-end recording.
# Idempotent: installs only what is missing.
set -euo pipefail

need=()
for pkg in ffmpeg espeak-ng fonts-dejavu-core fonts-noto-cjk fonts-noto-core fontconfig; do
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
grep -q "Noto Sans CJK" <<<"$fonts" || { echo "render setup: Noto Sans CJK font not found by fontconfig" >&2; exit 1; }
grep -q "Noto Sans Devanagari" <<<"$fonts" || { echo "render setup: Noto Sans Devanagari (fonts-noto-core) not found by fontconfig" >&2; exit 1; }
echo "render setup: ffmpeg $(ffmpeg -version | head -1 | cut -d' ' -f3), espeak-ng, DejaVu fonts ok"

# Face models for speaker-following crops (models/manifest.json "human-face"; fetched from the npm
# package @vladmandic/human when the canonical URL is unreachable, and verified by checksum).
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
bun src/main.ts models pull human-face
