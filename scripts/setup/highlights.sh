#!/usr/bin/env bash
# Highlights stage setup (idempotent). Called by scripts/setup.sh.
#  - npm: wink-nlp + wink-eng-lite-web-model come with `bun install` (package.json).
#  - apt: pocketsphinx-testdata, LibriVox reference texts used by scripts/bench/highlights.ts (optional).
#  - model: all-minilm-l6-v2 sentence embeddings (optional; without it topic similarity uses TF-IDF
#    and the plan says so). Pulled and checksum-verified by the model manager when it is present.
set -euo pipefail
cd "$(dirname "$0")/../.."

if [ ! -e /usr/share/pocketsphinx/test/data/librivox/transcription ]; then
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = "0" ]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends pocketsphinx-testdata >/dev/null \
      || { apt-get update >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends pocketsphinx-testdata >/dev/null; } \
      || echo "highlights setup: pocketsphinx-testdata not installed (bench runs without the LibriVox row)" >&2
  else
    echo "highlights setup: skipping pocketsphinx-testdata (needs root + apt)" >&2
  fi
fi

if [ -f src/cli/models.ts ] && [ "${CLIPYARD_SKIP_EMBEDDINGS:-0}" != "1" ]; then
  bun src/main.ts models pull all-minilm-l6-v2 \
    || echo "highlights setup: all-minilm-l6-v2 not pulled; highlights run on TF-IDF similarity" >&2
fi

# wink's English model must load: fail setup loudly rather than the first job.
bun -e 'import("./src/pipeline/highlights/nlp.ts").then(m => { m.analyzeSentence("Setup check."); })'
echo "highlights setup: ok"
