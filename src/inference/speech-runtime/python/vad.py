"""`vad`: Silero v5 speech probability per 512-sample window (the in-process twin: src/inference/silero-vad.ts)."""
import numpy as np

from worker_io import SAMPLE_RATE, emit, open_wav, read_samples

VAD_WINDOW = 512  # Silero v5 at 16 kHz
VAD_READ_WINDOWS = 1875  # one minute of VAD windows per read


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
