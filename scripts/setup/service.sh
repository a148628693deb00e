#!/usr/bin/env bash
# `clipyard service install` (src/cli/service.ts): its test checks the unit with systemd-analyze,
# which Debian's systemd package brings (a container without systemd as init still runs it).
set -euo pipefail
command -v systemd-analyze >/dev/null 2>&1 || apt_install systemd
