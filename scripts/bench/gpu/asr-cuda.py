#!/usr/bin/env python3
"""
Recognition on CUDA against the same machine's CPU, through the appliance's own worker
(src/inference/speech-runtime/python/asr_worker.py `asr`, the command `clipyard transcribe` runs), on a GPU machine
with no network, no Bun and no project packages.

Inputs (PAYLOAD_DIR): the 10-minute episode of the job bench (the two-speaker call looped), already
decoded to the 16 kHz speech WAV the pipeline makes (speech10.flac) and its Silero speech regions
(regions10.json), both produced by the pipeline's own functions on the development machine; and the
verified whisper-base CTranslate2 files (MODEL_DIR). The 60-minute input is the 10-minute one six
times over, its regions shifted, as the job bench's loop makes it.

CTranslate2's wheels link cuBLAS 12; the GPU image has cuBLAS 13 only (PyTorch cu130), so when
libcublas.so.12 is missing this links the cuBLAS 13 library under the name CTranslate2 opens and says so.

  python3 asr-cuda.py PAYLOAD_DIR MODEL_DIR FFMPEG WORKER [CPU_60_TIMEOUT_S]
"""
import glob, json, os, subprocess, sys, time, wave

D, MODEL, FF, WORKER = sys.argv[1:5]
CPU60_TIMEOUT = float(sys.argv[5]) if len(sys.argv) > 5 else 0
OUT = os.environ.get("OUT", "/tmp/out")
W = "/tmp/asr-work"
os.makedirs(W, exist_ok=True)
os.makedirs(OUT, exist_ok=True)

# cuBLAS under the name CTranslate2 dlopens.
shim = "/tmp/cublas12"
os.makedirs(shim, exist_ok=True)
found12 = subprocess.run(["bash", "-c", "ldconfig -p | grep -c 'libcublas.so.12'"], capture_output=True, text=True).stdout.strip()
try:
    import nvidia  # NVIDIA's PyPI wheels (PyTorch's CUDA 13 libraries on the GPU image)
    bases = list(nvidia.__path__)
except ImportError:
    bases = []
libs13 = sorted({*[l for b in bases for l in glob.glob(os.path.join(b, "cu*", "lib", "libcublas*.so.13"))],
                 *[l for b in bases for l in glob.glob(os.path.join(b, "cublas", "lib", "libcublas*.so.13"))],
                 *glob.glob("/usr/local/cuda*/lib64/libcublas*.so.13")})
print("cuBLAS 13 found:", libs13[:4], "libcublas.so.12 in ldconfig:", found12, flush=True)
for lib in libs13:
    name = os.path.basename(lib).replace(".so.13", ".so.12")
    dst = os.path.join(shim, name)
    if not os.path.exists(dst):
        os.symlink(lib, dst)
env = dict(os.environ, LD_LIBRARY_PATH=":".join([shim] + sorted({os.path.dirname(l) for l in libs13}) + [p for p in os.environ.get("LD_LIBRARY_PATH", "").split(":") if p]))

status = subprocess.run([sys.executable, WORKER, "cuda"], capture_output=True, text=True, env=env)
print("worker cuda:", status.stdout.strip()[-600:], status.stderr.strip()[-800:], flush=True)

wav10 = os.path.join(W, "speech10.wav")
if not os.path.exists(wav10):
    subprocess.run([FF, "-hide_banner", "-loglevel", "error", "-y", "-i", os.path.join(D, "speech10.flac"), "-c:a", "pcm_s16le", wav10], check=True)
regions10 = json.load(open(os.path.join(D, "regions10.json")))
with wave.open(wav10) as w:
    params, frames = w.getparams(), w.readframes(w.getnframes())
dur10 = params.nframes / params.framerate
wav60 = os.path.join(W, "speech60.wav")
if not os.path.exists(wav60):
    with wave.open(wav60, "wb") as o:
        o.setparams(params)
        for _ in range(6):
            o.writeframes(frames)
with open(os.path.join(W, "regions10.json"), "w") as f:
    json.dump(regions10, f)
with open(os.path.join(W, "regions60.json"), "w") as f:
    json.dump([[a + k * dur10, b + k * dur10] for k in range(6) for a, b in regions10], f)


def recognise(label, wav, regions, device, timeout=None):
    argv = [sys.executable, WORKER, "asr", "--model", MODEL, "--audio", wav, "--regions-file", regions,
            "--language", "auto", "--threads", str(os.cpu_count()), "--beam", "1", "--device", device]
    t = time.perf_counter()
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    dev, result, progress = None, None, 0.0
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
    secs = time.perf_counter() - t
    for line in out.splitlines():
        try:
            m = json.loads(line)
        except ValueError:
            continue
        dev = m.get("device", dev)
        progress = m.get("progress", progress)
        result = m.get("result", result)
    audio = 600.0 if "10" in label else 3600.0
    row = {"run": label, "device": dev, "wall_s": round(secs, 2), "done": 1.0 if result else progress,
           "rtf": round(secs / audio, 4) if result else None, "words": len(result["words"]) if result else None,
           "language": result and result["language"]}
    if result:
        json.dump(result["words"], open(os.path.join(OUT, f"words-{label}.json"), "w"))
    else:
        row["error"] = err[-800:]
    print(json.dumps(row), flush=True)
    return row


rows = [
    recognise("cuda-10", wav10, os.path.join(W, "regions10.json"), "cuda"),
    recognise("cuda-60", wav60, os.path.join(W, "regions60.json"), "cuda"),
    recognise("cpu-10", wav10, os.path.join(W, "regions10.json"), "cpu"),
]
if CPU60_TIMEOUT:
    rows.append(recognise("cpu-60", wav60, os.path.join(W, "regions60.json"), "cpu", timeout=CPU60_TIMEOUT))
try:
    gpu = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"], capture_output=True, text=True).stdout.strip()
except FileNotFoundError:
    gpu = "no NVIDIA GPU"
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
json.dump({"gpu": gpu, "cpu": cpu, "cores": os.cpu_count(), "rows": rows}, open(os.path.join(OUT, "asr.json"), "w"), indent=1)
