#!/usr/bin/env python3
"""
An ffmpeg that logs each command line (JSON, one per line) to $CAPTURE_DIR/cmds.jsonl and runs the real
one (REAL_FFMPEG, default /usr/bin/ffmpeg). Put it first as FFMPEG_PATH (with ffprobe linked beside it)
to capture the renderer's exact command lines for render-nvenc.py:

  FFMPEG_PATH=$PWD/shim/ffmpeg CLIPYARD_VIDEO_ENCODER=libx264 bun scripts/bench/render.ts --runs 1 --job-minutes 0
"""
import json, os, subprocess, sys, time

t0 = time.time()
p = subprocess.run([os.environ.get("REAL_FFMPEG", "/usr/bin/ffmpeg")] + sys.argv[1:])
with open(os.path.join(os.environ.get("CAPTURE_DIR", "/tmp"), "cmds.jsonl"), "a") as f:
    f.write(json.dumps({"argv": sys.argv[1:], "secs": time.time() - t0, "rc": p.returncode}) + "\n")
sys.exit(p.returncode)
