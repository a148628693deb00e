"""The worker's two ends: the 16 kHz mono WAV it reads, and the JSON lines it prints."""
import json
import sys
import wave

import numpy as np

SAMPLE_RATE = 16000


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
