"""
Speech worker for clipyard: runs the verified local models that have no JavaScript runtime.

Four commands, each reads a 16 kHz mono 16-bit WAV and prints JSON lines on stdout:
  vad  --vad-model FILE --audio WAV
       -> {"vad": {"frame_seconds": 0.032, "probs": [...]}}   (Silero v5 speech probability per 512 samples)
  asr  --model DIR --audio WAV --regions-file JSON [--language auto|xx] [--threads N] [--beam N] [--device auto|cpu|cuda]
       -> {"device": {"device", "compute_type", "warning"?}} {"progress": 0.42} ... then {"result": {"language", "language_probability", "duration", "words": [...]}}
  cuda
       -> {"cuda": {"usable", "reason", "driver", "devices", "cublas", "cudnn", "library_dirs"}}  (whether GPU recognition would run, and why not)
  speakers --model FILE --audio WAV --windows-file JSON
       -> {"embeddings": [[192 floats], ...]}   (3D-Speaker CAM++ speaker embedding per [start, end] window)
  segment --model FILE --audio WAV [--step S]
       -> {"progress": ...} ... {"segmentation": {"frame_seconds", "speech": [...], "overlap": [...]}}
          (pyannote segmentation-3.0: probability of speech and of two overlapping speakers per 16.875 ms)

Speech regions decided by the caller (from the VAD probabilities, in a JSON file) are cut out and
joined before recognition so silence costs nothing; word times are mapped back to the original
timeline here, because only this side knows where each joined piece came from.

Memory stays flat in the episode's length: VAD reads the WAV a minute at a time, and recognition runs
on batches of regions holding at most BATCH_SECONDS of speech, each read from the WAV when its turn
comes (Whisper's feature extraction over a whole hour alone takes gigabytes).
"""
import argparse

# The worker's tasks, one module each beside this file (Python puts this file's folder first on its path).
from asr import cuda_status, run_asr, with_cuda_library_path
from campplus import run_speakers
from segmentation import run_segment
from vad import run_vad
from worker_io import emit


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
    a.add_argument("--initial-prompt", default="", help="the show's vocabulary as prompt text")
    sub.add_parser("cuda")
    s = sub.add_parser("speakers")
    s.add_argument("--model", required=True)
    s.add_argument("--audio", required=True)
    s.add_argument("--windows-file", required=True, help="JSON list of [start, end] seconds")
    g = sub.add_parser("segment")
    g.add_argument("--model", required=True)
    g.add_argument("--audio", required=True)
    g.add_argument("--step", type=float, default=5.0)
    args = p.parse_args()
    if args.cmd == "segment":
        run_segment(args)
    elif args.cmd == "vad":
        run_vad(args)
    elif args.cmd == "speakers":
        run_speakers(args)
    else:
        # Only recognition (and the check of it) uses CUDA libraries.
        with_cuda_library_path()
        if args.cmd == "cuda":
            emit({"cuda": cuda_status()})
        else:
            run_asr(args)


if __name__ == "__main__":
    main()
