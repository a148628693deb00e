#!/usr/bin/env bash
# Test-only: OpenTimelineIO and its Final Cut Pro adapters from PyPI, pinned, in .vendor/otio-venv.
# The tests read the appliance's timeline.otio, timeline.fcpxml and timeline.xml back with them; the
# appliance itself never runs Python for this.
set -euo pipefail
cd "$(dirname "$0")/../.."
VENV=.vendor/otio-venv
PINS="opentimelineio==0.18.1 otio-fcp-adapter==1.0.0 otio-fcpx-xml-adapter==1.0.0"
if [ "$(cat "$VENV/.ready" 2>/dev/null)" = "$PINS" ]; then exit 0; fi
rm -rf "$VENV"
python3 -m venv "$VENV"
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check $PINS >&2
echo "$PINS" > "$VENV/.ready"
