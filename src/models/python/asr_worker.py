"""
Speech worker for clipyard: runs the verified local models that have no JavaScript runtime.

Two commands, each reads a 16 kHz mono 16-bit WAV and prints JSON lines on stdout:
  vad  --vad-model FILE --audio WAV
       -> {"vad": {"frame_seconds": 0.032, "probs": [...]}}   (Silero v5 speech probability per 512 samples)
  asr  --model DIR --audio WAV [--regions JSON] [--language auto|xx] [--threads N] [--beam N] [--device auto|cpu|cuda]
       -> {"device": {"device", "compute_type", "warning"?}} {"progress": 0.42} ... then {"result": {"language", "language_probability", "duration", "words": [...]}}
  cuda
       -> {"cuda": {"usable", "reason", "driver", "devices", "cublas", "cudnn", "library_dirs"}}  (whether GPU recognition would run, and why not)

Speech regions decided by the caller (from the VAD probabilities) are cut out and joined before
recognition so silence costs nothing; word times are mapped back to the original timeline here,
because only this side knows where each joined piece came from.
"""
import argparse
import glob
import json
import os
import sys
import wave

import numpy as np

SAMPLE_RATE = 16000


def emit(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def read_wav(path):
    with wave.open(path, "rb") as w:
        if w.getframerate() != SAMPLE_RATE or w.getnchannels() != 1 or w.getsampwidth() != 2:
            raise SystemExit(f"expected 16 kHz mono 16-bit WAV, got {w.getframerate()} Hz x{w.getnchannels()} {8 * w.getsampwidth()}-bit")
        data = w.readframes(w.getnframes())
    return np.frombuffer(data, dtype=np.int16).astype(np.float32) / 32768.0


def run_vad(args):
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.inter_op_num_threads = 1
    opts.intra_op_num_threads = 1
    session = ort.InferenceSession(args.vad_model, sess_options=opts, providers=["CPUExecutionProvider"])
    audio = read_wav(args.audio)
    window, context_size = 512, 64  # Silero v5 at 16 kHz: 512-sample windows with 64 samples of left context
    state = np.zeros((2, 1, 128), dtype=np.float32)
    context = np.zeros((1, context_size), dtype=np.float32)
    sr = np.array(SAMPLE_RATE, dtype=np.int64)
    probs = []
    n = len(audio) // window
    for i in range(n):
        chunk = audio[i * window:(i + 1) * window].reshape(1, -1)
        x = np.concatenate([context, chunk], axis=1)
        out, state = session.run(None, {"input": x, "state": state, "sr": sr})
        context = x[:, -context_size:]
        probs.append(round(float(out[0][0]), 4))
    emit({"vad": {"frame_seconds": window / SAMPLE_RATE, "probs": probs}})


def cuda_library_dirs():
    """Folders of the CUDA wheels `clipyard runtime install --gpu` adds (site-packages/nvidia/*/lib)."""
    try:
        import nvidia  # namespace package of NVIDIA's PyPI wheels
    except ImportError:
        return []
    return sorted(d for base in nvidia.__path__ for d in glob.glob(os.path.join(base, "*", "lib")) if os.path.isdir(d))


def with_cuda_library_path():
    """
    CTranslate2 dlopens cuBLAS and cuDNN by name, and the dynamic loader reads LD_LIBRARY_PATH only when
    a process starts; so when the wheels' folders are missing from it, the worker starts itself again
    with them added (once: the marker variable stops a loop).
    """
    dirs = cuda_library_dirs()
    current = [p for p in os.environ.get("LD_LIBRARY_PATH", "").split(":") if p]
    if not dirs or all(d in current for d in dirs) or os.environ.get("CLIPYARD_CUDA_PATH_SET"):
        return
    env = dict(os.environ, LD_LIBRARY_PATH=":".join(dirs + current), CLIPYARD_CUDA_PATH_SET="1")
    os.execve(sys.executable, [sys.executable] + sys.argv, env)


def cuda_status():
    """Whether Whisper would run on a CUDA GPU here, and the first reason it would not."""
    import ctypes

    def loads(*names):
        for name in names:
            try:
                ctypes.CDLL(name)
                return name
            except OSError:
                pass
        return None

    import ctranslate2

    driver = loads("libcuda.so.1") is not None
    devices = ctranslate2.get_cuda_device_count() if driver else 0
    cublas = loads("libcublas.so.12")
    cudnn = loads("libcudnn.so.9")
    if not driver:
        reason = "no NVIDIA driver: libcuda.so.1 cannot be loaded"
    elif devices == 0:
        reason = "the NVIDIA driver reports no CUDA device"
    elif not cublas:
        reason = "cuBLAS for CUDA 12 (libcublas.so.12) is not installed: run `clipyard runtime install --gpu`"
    elif not cudnn:
        reason = "cuDNN 9 (libcudnn.so.9) is not installed: run `clipyard runtime install --gpu`"
    else:
        reason = None
    return {"usable": reason is None, "reason": reason, "driver": driver, "devices": devices,
            "cublas": cublas is not None, "cudnn": cudnn is not None, "library_dirs": cuda_library_dirs()}


def load_model(args):
    from faster_whisper import WhisperModel

    # float16 on a CUDA GPU when one is usable; otherwise (and on any failure there) int8 on the CPU,
    # which is what every CPU figure in docs/pipeline.md measures. The choice is reported to the caller.
    warning = None
    if args.device in ("auto", "cuda"):
        status = cuda_status()
        if status["usable"]:
            try:
                model = WhisperModel(args.model, device="cuda", compute_type="float16")
                emit({"device": {"device": "cuda", "compute_type": "float16"}})
                return model
            except Exception as e:
                if args.device == "cuda":
                    raise
                warning = f"CUDA recognition failed to start ({type(e).__name__}: {e}); using the CPU"
        elif args.device == "cuda":
            raise SystemExit(f"--device cuda: {status['reason']}")
        elif status["driver"]:
            # A machine with a GPU that cannot be used is worth a warning; one without a GPU is not.
            warning = f"CUDA unavailable ({status['reason']}); using the CPU"
    model = WhisperModel(args.model, device="cpu", compute_type="int8", cpu_threads=args.threads)
    emit({"device": {"device": "cpu", "compute_type": "int8", **({"warning": warning} if warning else {})}})
    return model


def run_asr(args):
    audio = read_wav(args.audio)
    duration = len(audio) / SAMPLE_RATE
    regions = json.loads(args.regions) if args.regions else [[0.0, duration]]
    # Join the speech regions; remember (joined_start, original_start, length) for mapping back.
    pieces, spans, cursor = [], [], 0.0
    for start, end in regions:
        a, b = int(max(0.0, start) * SAMPLE_RATE), int(min(duration, end) * SAMPLE_RATE)
        if b <= a:
            continue
        pieces.append(audio[a:b])
        spans.append((cursor, a / SAMPLE_RATE, (b - a) / SAMPLE_RATE))
        cursor += (b - a) / SAMPLE_RATE
    if not pieces:
        emit({"result": {"language": args.language if args.language != "auto" else "en", "language_probability": 0.0, "duration": duration, "words": []}})
        return
    joined = np.concatenate(pieces)

    def piece_of(t, prefer_next=False):
        for i, (js, _os, ln) in enumerate(spans):
            # A time exactly on a seam belongs to the piece it starts when it is a word start.
            if t < js + ln - (1e-6 if prefer_next else 0) or i == len(spans) - 1:
                return i
        return len(spans) - 1

    def to_original(t, piece):
        js, os_, ln = spans[piece]
        return os_ + min(max(t - js, 0.0), ln)

    model = load_model(args)
    language = None if args.language == "auto" else args.language
    segments, info = model.transcribe(
        joined,
        language=language,
        beam_size=args.beam,
        word_timestamps=True,
        condition_on_previous_text=False,  # avoids runaway repetition loops on long podcasts
        vad_filter=False,  # speech regions already come from our verified Silero model
    )
    words = []
    total = max(cursor, 1e-6)
    for seg in segments:
        for w in seg.words or []:
            text = w.word.strip()
            if not text:
                continue
            # A word never spans a seam: the silence cut out between pieces is not part of it.
            piece = piece_of(w.start, prefer_next=True)
            start = to_original(w.start, piece)
            end = max(start, to_original(w.end, piece))
            words.append({"word": text, "start": round(start, 3), "end": round(end, 3), "p": round(float(w.probability), 3)})
        emit({"progress": round(min(1.0, seg.end / total), 4)})
    emit({"result": {"language": info.language, "language_probability": round(float(info.language_probability), 4), "duration": duration, "words": words}})


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    v = sub.add_parser("vad")
    v.add_argument("--vad-model", required=True)
    v.add_argument("--audio", required=True)
    a = sub.add_parser("asr")
    a.add_argument("--model", required=True)
    a.add_argument("--audio", required=True)
    a.add_argument("--regions")
    a.add_argument("--language", default="auto")
    a.add_argument("--threads", type=int, default=2)
    a.add_argument("--beam", type=int, default=1)
    a.add_argument("--device", choices=["auto", "cpu", "cuda"], default="auto")
    sub.add_parser("cuda")
    args = p.parse_args()
    if args.cmd == "vad":
        run_vad(args)
        return
    with_cuda_library_path()
    if args.cmd == "cuda":
        emit({"cuda": cuda_status()})
    else:
        run_asr(args)


if __name__ == "__main__":
    main()
