#!/usr/bin/env bash
# Speech pipeline setup (idempotent): Python runtime for Whisper (CTranslate2) and Silero (ONNX Runtime),
# verified model weights, the LibriVox test recordings the ASR benchmark scores against, and real
# French speech for the language-detection test.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT"

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
# Real French speech (June Wallack, CC BY-SA 3.0) for the language-detection test (test/e2e/language-detect.test.ts).
[ -f /usr/share/asterisk/sounds/fr_CA_f_June/demo-instruct.wav ] || { say "installing asterisk-core-sounds-fr-wav (French speech for the language-detection test)"; apt_install asterisk-core-sounds-fr-wav || true; }

command -v bun >/dev/null || { say "bun is required"; exit 1; }
[ -d node_modules ] || bun install --frozen-lockfile >/dev/null

# The venv is made by the same command a user of the single executable runs (pinned requirements,
# stamp, import check; a no-op when current). Installing the OS's venv module is the one step it leaves
# to setup, because it needs apt and root.
if ! python3 -m venv --help >/dev/null 2>&1 || ! python3 -c 'import ensurepip' >/dev/null 2>&1; then
  say "installing python3-venv"; apt_install python3-venv
fi
# The venv and the models are both mostly downloads and share nothing (the models are fetched with the
# system python3's pip), so they are fetched side by side.
bun run src/main.ts runtime install &
runtime=$!

say "pulling and verifying models"
bun run src/main.ts models pull whisper-tiny.en whisper-base silero-vad campplus-zh-en pyannote-segmentation-3.0 || { kill "$runtime" 2>/dev/null; wait "$runtime"; exit 1; }
wait "$runtime" || { say "the speech runtime install failed (above)"; exit 1; }
