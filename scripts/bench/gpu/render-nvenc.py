#!/usr/bin/env python3
"""
NVENC against libx264 on a GPU machine that has no Bun, no project packages and no network.

It replays the renderer's own ffmpeg command lines, captured on a development machine by running
`scripts/bench/render.ts` with FFMPEG_PATH pointing at scripts/bench/gpu/ffmpeg-logging-shim.py
(cmds.jsonl): the composition that builds the bench's 60 s 1080p two-person source, each format's
video encode (crop path or fixed crop, burned ASS captions) and its floor (the same pixels re-encoded
with no captions or analysis). Each is run with the captured libx264 arguments, then with the
appliance's h264_nvenc arguments (src/media/ffmpeg-engine.ts videoEncoderArgs), then NVENC with the
decode on the GPU too (-hwaccel cuda). Prints a table and writes results.json into $OUT.

  python3 render-nvenc.py PAYLOAD_DIR FFMPEG [RUNS]
"""
import json, os, re, statistics, subprocess, sys, time

D, FF = os.path.abspath(sys.argv[1]), sys.argv[2]
RUNS = int(sys.argv[3]) if len(sys.argv) > 3 else 2
OUT = os.environ.get("OUT", "/tmp/out")
W = "/tmp/render-work"
os.makedirs(W, exist_ok=True)
os.makedirs(OUT, exist_ok=True)
X264 = ["-c:v", "libx264", "-preset", "veryfast", "-crf", "21", "-profile:v", "high"]
NVENC = ["-c:v", "h264_nvenc", "-preset", "p5", "-tune", "hq", "-rc", "vbr", "-cq", "23", "-b:v", "0",
         "-rc-lookahead", "20", "-spatial-aq", "1", "-bf", "3", "-profile:v", "high"]

cmds = [json.loads(l)["argv"] for l in open(os.path.join(D, "cmds.jsonl"))]


DRY = os.environ.get("DRY")  # a quick local check of the replay: 2 s segments, libx264 only


def localise(argv, ass=None):
    out = []
    if DRY and "-ss" in argv:
        argv = [("2" if prev == "-t" else a) for prev, a in zip([None] + argv[:-1], argv)]
    for a in argv:
        a = re.sub(r"/tmp/clipyard-bench-render-[A-Za-z0-9]+", W, a)
        a = re.sub(r"/tmp/clipyard-render-[0-9]+-[A-Za-z0-9]+", W, a)
        a = a.replace("/work/shared/media", D).replace("/usr/share/fonts/truetype/dejavu", os.path.join(D, "fonts"))
        if ass:
            a = re.sub(r"filename='[^']*captions-0\.ass'", f"filename='{ass}'", a)
        out.append(a)
    return out


def find(pred):
    return next(c for c in cmds if pred(" ".join(c)))


def swap_encoder(argv, enc):
    i = next(k for k in range(len(argv)) if argv[k:k + len(X264)] == X264)
    tail = argv[i + len(X264):]
    head = argv[:i]
    if enc.endswith("+cuda-decode"):
        j = head.index("-i") if "-i" in head else 0
        # before the source's first input option (-ss/-t are input options here)
        k = head.index("-ss") if "-ss" in head else j
        head = head[:k] + ["-hwaccel", "cuda"] + head[k:]
    return head + (X264 if enc.startswith("libx264") else NVENC) + tail


def run(argv):
    t = time.perf_counter()
    p = subprocess.run([FF, *argv], capture_output=True, text=True)
    dt = time.perf_counter() - t
    if p.returncode != 0:
        raise SystemExit(f"ffmpeg failed ({p.returncode}): {' '.join(argv)[:300]}\n{p.stderr[-1500:]}")
    return dt


def probe(path):
    p = subprocess.run([FF, "-hide_banner", "-i", path, "-f", "null", "-"], capture_output=True, text=True)
    m = re.search(r"Video: h264.*?, (\d+)x(\d+)", p.stderr)
    d = re.search(r"Duration: (\d+):(\d+):([\d.]+)", p.stderr)
    frames = re.findall(r"frame=\s*(\d+)", p.stderr)
    return {"width": int(m.group(1)), "height": int(m.group(2)),
            "duration": int(d.group(1)) * 3600 + int(d.group(2)) * 60 + float(d.group(3)),
            "frames": int(frames[-1]) if frames else None, "bytes": os.path.getsize(path)}


def psnr(a, b):
    p = subprocess.run([FF, "-hide_banner", "-i", a, "-i", b, "-lavfi", "[0:v][1:v]psnr", "-f", "null", "-"], capture_output=True, text=True)
    m = re.search(r"average:([\d.inf]+)", p.stderr)
    return m.group(1) if m else None


try:
    info = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"], capture_output=True, text=True).stdout.strip()
except FileNotFoundError:
    info = "no NVIDIA GPU"
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
print(f"GPU: {info}; CPU: {cpu} x{os.cpu_count()}; ffmpeg: {subprocess.run([FF, '-version'], capture_output=True, text=True).stdout.splitlines()[0]}")

# The bench's source: the two talking heads side by side (1920x1080), looped to 60 s.
run(localise(find(lambda s: s.endswith("pair.mp4"))))
run(localise(find(lambda s: "-stream_loop 5" in s)))

follow = find(lambda s: "ass=filename" in s and "if(lt(t" in s)
fixed = find(lambda s: "ass=filename" in s and "crop=606:1080:657:0" in s)
floors = [c for c in cmds if c[-1].endswith("floor.mp4")]
floor_follow = next(c for c in floors if "if(lt(t" in " ".join(c))
floor_fixed = next(c for c in floors if "crop=606:1080:657:0" in " ".join(c))
floor_wide = next(c for c in floors if "scale=1920:1080" in " ".join(c))
# 16:9 of a 16:9 source: the renderer's graph without a crop (render.ts/graph.ts), same captions step.
wide = [a.replace("crop=606:1080:657:0,scale=1080:1920", "scale=1920:1080") for a in fixed]

cases = [
    ("9:16 speaker-following crop", localise(follow, os.path.join(D, "captions-linkedin.ass")), localise(floor_follow)),
    ("9:16 fixed crop", localise(fixed, os.path.join(D, "captions-linkedin.ass")), localise(floor_fixed)),
    ("16:9", localise(wide, os.path.join(D, "captions-x.ass")), localise(floor_wide)),
]
results = []
# The appliance's own probe encode (ffmpeg-engine.ts probeArgs): NVENC only where the GPU has the encoder.
probe_nvenc = subprocess.run([FF, "-hide_banner", "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i", "color=c=gray:s=256x256:r=10:d=0.5",
                              "-vf", "null,format=yuv420p", *NVENC, "-frames:v", "5", "-f", "null", "-"], capture_output=True, text=True)
print("NVENC probe encode:", "ok" if probe_nvenc.returncode == 0 else "failed: " + probe_nvenc.stderr.strip().replace("\n", " | ")[:300], flush=True)
ENCODERS = ["libx264", "libx264+cuda-decode"] + (["h264_nvenc", "nvenc+cuda-decode"] if probe_nvenc.returncode == 0 else [])
if DRY:
    ENCODERS = ["libx264"]
for name, render, floor in cases:
    outputs = {}
    for enc in ENCODERS:
        r_out = os.path.join(W, f"render-{len(results)}-{enc}.mp4")
        f_out = os.path.join(W, f"floor-{len(results)}-{enc}.mp4")
        r_argv = swap_encoder(render[:-1] + [r_out], enc)
        f_argv = swap_encoder(floor[:-1] + [f_out], enc)
        rs, fs = [], []
        for _ in range(RUNS):
            fs.append(run(f_argv))
            rs.append(run(r_argv))
        row = {"case": name, "encoder": enc, "render_s": statistics.median(rs), "floor_s": statistics.median(fs),
               "ratio": statistics.median([r / f for r, f in zip(rs, fs)]), "render": probe(r_out), "floor": probe(f_out)}
        outputs[enc] = r_out
        results.append(row)
        print(f"{name:30} {enc:18} render {row['render_s']:6.2f} s  floor {row['floor_s']:6.2f} s  ratio {row['ratio']:.2f}  "
              f"{row['render']['width']}x{row['render']['height']} {row['render']['duration']:.2f} s {row['render']['frames']} frames {row['render']['bytes']//1024} KiB", flush=True)
    for enc in ENCODERS[1:]:
        print(f"{name:30} PSNR {enc} against libx264: {psnr(outputs['libx264'], outputs[enc])} dB", flush=True)
        results.append({"case": name, "psnr_vs_libx264": {enc: psnr(outputs["libx264"], outputs[enc])}})
json.dump({"gpu": info, "cpu": cpu, "cores": os.cpu_count(), "results": results}, open(os.path.join(OUT, "render.json"), "w"), indent=1)
