#!/usr/bin/env python3
"""
An ffmpeg that runs the real one (REAL_FFMPEG, default /usr/bin/ffmpeg) and appends one JSON line per
command to $CAPTURE_DIR/cmds.jsonl: the command line, its wall seconds and its CPU seconds (user +
system, from the child's rusage), so a job's ffmpeg work can be summed per step on a shared machine
where wall time says more about the load. Link it as `ffmpeg` in a folder with the real ffprobe
beside it, and point FFMPEG_PATH at it:

  mkdir shim && ln -s $PWD/scripts/bench/ffmpeg-cpu-shim.py shim/ffmpeg && ln -s /usr/bin/ffprobe shim/ffprobe
  FFMPEG_PATH=$PWD/shim/ffmpeg CAPTURE_DIR=/tmp/cap bun scripts/bench/trailer.ts sample
  bun scripts/bench/ffmpeg-steps.ts /tmp/cap/cmds.jsonl
"""
import json, os, resource, subprocess, sys, time

t0 = time.time()
p = subprocess.run([os.environ.get("REAL_FFMPEG", "/usr/bin/ffmpeg")] + sys.argv[1:])
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
with open(os.path.join(os.environ.get("CAPTURE_DIR", "/tmp"), "cmds.jsonl"), "a") as f:
    f.write(json.dumps({"argv": sys.argv[1:], "secs": time.time() - t0, "cpu": ru.ru_utime + ru.ru_stime, "start": t0, "rc": p.returncode}) + "\n")
sys.exit(p.returncode)
