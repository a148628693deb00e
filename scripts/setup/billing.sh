#!/usr/bin/env bash
# Billing/dashboard setup: Debian's Chromium for the browser tests (test/browser/), driven by
# playwright-core (an npm dev dependency, installed by `bun install`). Idempotent.
set -euo pipefail

if [ -x /usr/bin/chromium ]; then
  echo "billing: chromium already installed ($(/usr/bin/chromium --version 2>/dev/null | head -1))"
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
echo "billing: installed $(/usr/bin/chromium --version 2>/dev/null | head -1)"
