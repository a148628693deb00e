"""
Speech worker for clipyard: runs the verified local models that have no JavaScript runtime.

Two commands, each reads a 16 kHz mono 16-bit WAV and prints JSON lines on stdout:
  vad  --vad-model FILE --audio WAV
       -> {"vad": {"frame_seconds": 0.032, "probs": [...]}}   (Silero v5 speech probability per 512 samples)
  asr  --model DIR --audio WAV --regions-file JSON [--language auto|xx] [--threads N] [--beam N]
       -> {"progress": 0.42} ... then {"result": {"language", "language_probability", "duration", "words": [...]}}

Speech regions decided by the caller (from the VAD probabilities, in a JSON file) are cut out and
joined before recognition so silence costs nothing; word times are mapped back to the original
timeline here, because only this side knows where each joined piece came from.

Memory stays flat in the episode's length: VAD reads the WAV a minute at a time, and recognition runs
on batches of regions holding at most BATCH_SECONDS of speech, each read from the WAV when its turn
comes (Whisper's feature extraction over a whole hour alone takes gigabytes).
"""
import argparse
import json
import sys
import wave

import numpy as np

SAMPLE_RATE = 16000
VAD_WINDOW = 512  # Silero v5 at 16 kHz
VAD_READ_WINDOWS = 1875  # one minute of VAD windows per read
BATCH_SECONDS = 300


def emit(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def open_wav(path):
    w = wave.open(path, "rb")
    if w.getframerate() != SAMPLE_RATE or w.getnchannels() != 1 or w.getsampwidth() != 2:
        w.close()
        raise SystemExit(f"expected 16 kHz mono 16-bit WAV, got {w.getframerate()} Hz x{w.getnchannels()} {8 * w.getsampwidth()}-bit")
    return w


def read_samples(w, start, end):
    """Samples [start, end) of an open WAV as float32 in -1..1."""
    w.setpos(start)
    return np.frombuffer(w.readframes(end - start), dtype=np.int16).astype(np.float32) / 32768.0


def run_vad(args):
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.inter_op_num_threads = 1
    opts.intra_op_num_threads = 1
    session = ort.InferenceSession(args.vad_model, sess_options=opts, providers=["CPUExecutionProvider"])
    window, context_size = VAD_WINDOW, 64  # 512-sample windows with 64 samples of left context
    state = np.zeros((2, 1, 128), dtype=np.float32)
    context = np.zeros((1, context_size), dtype=np.float32)
    sr = np.array(SAMPLE_RATE, dtype=np.int64)
    probs = []
    with open_wav(args.audio) as w:
        n = w.getnframes() // window
        for first in range(0, n, VAD_READ_WINDOWS):
            count = min(VAD_READ_WINDOWS, n - first)
            audio = read_samples(w, first * window, (first + count) * window)
            for i in range(count):
                chunk = audio[i * window:(i + 1) * window].reshape(1, -1)
                x = np.concatenate([context, chunk], axis=1)
                out, state = session.run(None, {"input": x, "state": state, "sr": sr})
                context = x[:, -context_size:]
                probs.append(round(float(out[0][0]), 4))
    emit({"vad": {"frame_seconds": window / SAMPLE_RATE, "probs": probs}})


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
    import ctranslate2

    # A CUDA GPU is used when CTranslate2 sees one and its CUDA libraries load; otherwise (and on any
    # failure there) the CPU with int8 weights, which is what every figure in docs/pipeline.md measures.
    if args.device in ("auto", "cuda") and ctranslate2.get_cuda_device_count() > 0:
        try:
            return WhisperModel(args.model, device="cuda", compute_type="float16")
        except Exception as e:  # missing cuBLAS/cuDNN: fall back rather than fail the job
            if args.device == "cuda":
                raise
            sys.stderr.write(f"CUDA unavailable ({e}); using CPU\n")
    return WhisperModel(args.model, device="cpu", compute_type="int8", cpu_threads=args.threads)


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


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    v = sub.add_parser("vad")
    v.add_argument("--vad-model", required=True)
    v.add_argument("--audio", required=True)
    a = sub.add_parser("asr")
    a.add_argument("--model", required=True)
    a.add_argument("--audio", required=True)
    a.add_argument("--regions-file", required=True, help="JSON list of [start, end] seconds")
    a.add_argument("--language", default="auto")
    a.add_argument("--threads", type=int, default=2)
    a.add_argument("--beam", type=int, default=1)
    a.add_argument("--device", choices=["auto", "cpu", "cuda"], default="auto")
    args = p.parse_args()
    if args.cmd == "vad":
        run_vad(args)
    else:
        run_asr(args)


if __name__ == "__main__":
    main()
