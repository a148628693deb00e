"""`asr` and `cuda`: Whisper through faster-whisper/CTranslate2 on the speech regions, on a CUDA GPU when one is usable."""
import glob
import json
import os
import sys

import numpy as np

from worker_io import SAMPLE_RATE, emit, open_wav, read_samples

BATCH_SECONDS = 300


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


def speech_batches(regions, total_samples, batch_samples):
    """
    Regions as sample ranges, in batches of at most batch_samples of speech. A region longer than a
    batch (minutes without a pause) is cut into batch-long pieces.
    """
    batches, current, size = [], [], 0
    for start, end in regions:
        a, b = int(max(0.0, start) * SAMPLE_RATE), int(min(total_samples / SAMPLE_RATE, end) * SAMPLE_RATE)
        while b > a:
            piece_end = min(b, a + batch_samples)
            if current and size + (piece_end - a) > batch_samples:
                batches.append(current)
                current, size = [], 0
            current.append((a, piece_end))
            size += piece_end - a
            a = piece_end
    if current:
        batches.append(current)
    return batches


def load_model(args):
    from faster_whisper import WhisperModel

    # float16 on a CUDA GPU when one is usable; otherwise (and on any failure there) int8 on the CPU,
    # which is what every CPU figure in docs/pipeline/transcribe.md measures. The choice is reported to the caller.
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


def transcribe_batch(model, w, batch, language, args, on_progress):
    """Words of one batch of regions (sample ranges), on the original timeline, and the run's info."""
    pieces, spans, cursor = [], [], 0.0
    for a, b in batch:
        pieces.append(read_samples(w, a, b))
        # (joined_start, original_start, length) for mapping back
        spans.append((cursor, a / SAMPLE_RATE, (b - a) / SAMPLE_RATE))
        cursor += (b - a) / SAMPLE_RATE
    joined = np.concatenate(pieces)
    del pieces

    def piece_of(t, prefer_next=False):
        for i, (js, _os, ln) in enumerate(spans):
            # A time exactly on a seam belongs to the piece it starts when it is a word start.
            if t < js + ln - (1e-6 if prefer_next else 0) or i == len(spans) - 1:
                return i
        return len(spans) - 1

    def to_original(t, piece):
        js, os_, ln = spans[piece]
        return os_ + min(max(t - js, 0.0), ln)

    segments, info = model.transcribe(
        joined,
        language=language,
        beam_size=args.beam,
        word_timestamps=True,
        condition_on_previous_text=False,  # avoids runaway repetition loops on long podcasts
        vad_filter=False,  # speech regions already come from our verified Silero model
        # The show's vocabulary, as the first window's prompt. Not `hotwords`, which prompts every
        # window: on the bundled sample tiny.en then dropped whole sentences (WER 5.8 % -> 7.4 %).
        initial_prompt=args.initial_prompt or None,
    )
    words = []
    for seg in segments:
        for w_ in seg.words or []:
            text = w_.word.strip()
            if not text:
                continue
            # A word never spans a seam: the silence cut out between pieces is not part of it.
            piece = piece_of(w_.start, prefer_next=True)
            start = to_original(w_.start, piece)
            end = max(start, to_original(w_.end, piece))
            words.append({"word": text, "start": round(start, 3), "end": round(end, 3), "p": round(float(w_.probability), 3)})
        on_progress(min(seg.end, cursor))
    return words, info


ASR_SEED = 1234


def run_asr(args):
    with open(args.regions_file) as f:
        regions = json.load(f)
    with open_wav(args.audio) as w:
        total_samples = w.getnframes()
        duration = total_samples / SAMPLE_RATE
        batches = speech_batches(regions, total_samples, BATCH_SECONDS * SAMPLE_RATE)
        if not batches:
            emit({"result": {"language": args.language if args.language != "auto" else "en", "language_probability": 0.0, "duration": duration, "words": []}})
            return
        model = load_model(args)
        # Whisper falls back to sampling at higher temperatures on audio it finds hard (far-field
        # meetings); with CTranslate2's generator seeded, the same file gives the same words every run.
        import ctranslate2

        ctranslate2.set_random_seed(ASR_SEED)
        speech = max(sum(b - a for batch in batches for a, b in batch) / SAMPLE_RATE, 1e-6)
        language = None if args.language == "auto" else args.language
        words, first_info, done = [], None, 0.0
        for batch in batches:
            batch_words, info = transcribe_batch(model, w, batch, language, args, lambda t: emit({"progress": round(min(1.0, (done + t) / speech), 4)}))
            words.extend(batch_words)
            done += sum(b - a for a, b in batch) / SAMPLE_RATE
            if first_info is None:
                # The language is detected once, on the first 30 s of speech, as for a single pass.
                first_info = info
                language = info.language
    emit({"result": {"language": first_info.language, "language_probability": round(float(first_info.language_probability), 4), "duration": duration, "words": words}})
