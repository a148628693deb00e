#!/usr/bin/env bash
# Speech pipeline setup (idempotent): Python runtime for Whisper (CTranslate2) and Silero (ONNX Runtime),
# verified model weights, and the LibriVox test recordings the ASR benchmark scores against.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT"
VENV="$ROOT/.vendor/speech-venv"
REQ="$ROOT/scripts/setup/asr-requirements.txt"
STAMP="$VENV/.requirements.sha256"

say() { printf '[setup/asr] %s\n' "$*" >&2; }

apt_install() {
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null 2>&1 ||
      { apt-get update -qq >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null; }
  else
    say "cannot install $* (need root and apt-get); install it yourself"; return 1
  fi
}

command -v ffmpeg >/dev/null && command -v ffprobe >/dev/null || { say "installing ffmpeg"; apt_install ffmpeg; }
[ -d /usr/share/pocketsphinx/test/data/librivox ] || { say "installing pocketsphinx-testdata (benchmark recordings)"; apt_install pocketsphinx-testdata || true; }

want="$(sha256sum "$REQ" | cut -d' ' -f1)"
if [ -x "$VENV/bin/python" ] && [ "$(cat "$STAMP" 2>/dev/null)" = "$want" ]; then
  say "speech runtime up to date"
else
  if ! python3 -m venv --help >/dev/null 2>&1 || ! python3 -c 'import ensurepip' >/dev/null 2>&1; then
    say "installing python3-venv"; apt_install python3-venv
  fi
  rm -rf "$VENV"
  python3 -m venv "$VENV"
  say "installing speech runtime (faster-whisper, CTranslate2, ONNX Runtime)"
  "$VENV/bin/pip" install -q --disable-pip-version-check --no-input -r "$REQ"
  "$VENV/bin/python" -c 'import faster_whisper, ctranslate2, onnxruntime, numpy' 
  echo "$want" > "$STAMP"
fi

command -v bun >/dev/null || { say "bun is required"; exit 1; }
[ -d node_modules ] || bun install --frozen-lockfile >/dev/null
say "pulling and verifying models"
bun run src/main.ts models pull whisper-tiny.en whisper-base silero-vad
