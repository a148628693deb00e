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
import glob
import io
import json
import os
import pickle
import sys
import wave
import zipfile

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

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


# ---- torch-free checkpoint reading -------------------------------------------------------------

_DTYPES = {"FloatStorage": np.float32, "LongStorage": np.int64, "HalfStorage": np.float16, "DoubleStorage": np.float64, "IntStorage": np.int32}


class _StorageType:
    def __init__(self, name):
        self.dtype = _DTYPES[name]


def _rebuild_tensor(storage, offset, size, stride, *_rest):
    if not size:
        return storage[offset:offset + 1].reshape(()).copy()
    item = storage.itemsize
    return np.lib.stride_tricks.as_strided(storage[offset:], shape=tuple(size), strides=tuple(s * item for s in stride)).copy()


class _Opaque:
    def __init__(self, *args, **kwargs):
        self.args = args

    def __setstate__(self, state):
        self.state = state


class _Unpickler(pickle.Unpickler):
    def __init__(self, f, zf, prefix):
        super().__init__(f)
        self.zf, self.prefix = zf, prefix

    def find_class(self, module, name):
        if module == "torch._utils" and name == "_rebuild_tensor_v2":
            return _rebuild_tensor
        if module == "torch" and name in _DTYPES:
            return _StorageType(name)
        if module == "collections" and name == "OrderedDict":
            import collections
            return collections.OrderedDict
        # Anything else (a training checkpoint's version and task descriptions) is kept as an inert
        # placeholder: no class named by the file is ever imported or called.
        return _Opaque

    def persistent_load(self, pid):
        _kind, storage_type, key, _location, _numel = pid
        raw = self.zf.read(f"{self.prefix}/data/{key}")
        return np.frombuffer(raw, dtype=storage_type.dtype)


def load_state_dict(path):
    with zipfile.ZipFile(path) as zf:
        pkl = next(n for n in zf.namelist() if n.endswith("/data.pkl"))
        prefix = pkl[: -len("/data.pkl")]
        return _Unpickler(io.BytesIO(zf.read(pkl)), zf, prefix).load()


# ---- Kaldi-compatible log mel filterbank -------------------------------------------------------

def _mel(f):
    return 1127.0 * np.log(1.0 + f / 700.0)


def _mel_banks(n_mels, n_fft, low=20.0, high=SAMPLE_RATE / 2):
    n_bins = n_fft // 2
    fft_bin_width = SAMPLE_RATE / n_fft
    mel_low, mel_high = _mel(low), _mel(high)
    delta = (mel_high - mel_low) / (n_mels + 1)
    mels = _mel(fft_bin_width * np.arange(n_bins))
    banks = np.zeros((n_mels, n_bins + 1), dtype=np.float32)
    for m in range(n_mels):
        left, center, right = mel_low + m * delta, mel_low + (m + 1) * delta, mel_low + (m + 2) * delta
        up = (mels - left) / (center - left)
        down = (right - mels) / (right - center)
        banks[m, :n_bins] = np.maximum(0.0, np.minimum(up, down))
    return banks


_BANKS = _mel_banks(80, 512)
_WINDOW = (0.5 - 0.5 * np.cos(2 * np.pi * np.arange(400) / 399)) ** 0.85


def fbank(samples):
    """Kaldi fbank (25 ms / 10 ms, povey window, pre-emphasis 0.97, 80 bins, no dither), mean-normalised."""
    if len(samples) < 400:
        samples = np.pad(samples, (0, 400 - len(samples)))
    frames = sliding_window_view(samples.astype(np.float64), 400)[::160].copy()
    frames -= frames.mean(axis=1, keepdims=True)
    frames[:, 1:] -= 0.97 * frames[:, :-1].copy()
    frames[:, 0] -= 0.97 * frames[:, 0]
    frames *= _WINDOW
    power = np.abs(np.fft.rfft(frames, n=512)) ** 2
    feats = np.log(np.maximum(power.astype(np.float32) @ _BANKS.T, np.finfo(np.float32).eps))
    return feats - feats.mean(axis=0, keepdims=True)


# ---- CAM++ forward pass (3D-Speaker speakerlab/models/campplus, inference only) ---------------

def _bn(x, sd, name, eps=1e-5):
    # Inference batch norm is one scale and shift per channel; computed once per checkpoint.
    key = f"{name}.#affine"
    if key not in sd:
        scale = 1.0 / np.sqrt(sd[f"{name}.running_var"] + eps)
        shift = -sd[f"{name}.running_mean"] * scale
        if f"{name}.weight" in sd:
            scale, shift = scale * sd[f"{name}.weight"], shift * sd[f"{name}.weight"] + sd[f"{name}.bias"]
        sd[key] = (scale.astype(np.float32), shift.astype(np.float32))
    scale, shift = sd[key]
    shape = (1, -1) + (1,) * (x.ndim - 2)
    return x * scale.reshape(shape) + shift.reshape(shape)


def _conv2d(x, w, stride=(1, 1), pad=1):
    k = w.shape[2]
    if pad:
        x = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    win = sliding_window_view(x, (k, k), axis=(2, 3))[:, :, :: stride[0], :: stride[1]]
    return np.einsum("bchwij,ocij->bohw", win, w, optimize=True)


def _conv1d(x, w, b=None, stride=1, pad=0, dilation=1):
    k = w.shape[2]
    if k == 1:
        y = np.einsum("oc,bct->bot", w[:, :, 0], x, optimize=True)
    else:
        if pad:
            x = np.pad(x, ((0, 0), (0, 0), (pad, pad)))
        span = (k - 1) * dilation + 1
        win = sliding_window_view(x, span, axis=2)[:, :, ::stride, ::dilation]
        y = np.einsum("bctk,ock->bot", win, w, optimize=True)
    if b is not None:
        y = y + b[None, :, None]
    return y


def _relu(x):
    return np.maximum(x, 0)


def _res_block(x, sd, p, stride):
    out = _relu(_bn(_conv2d(x, sd[f"{p}.conv1.weight"], (stride, 1)), sd, f"{p}.bn1"))
    out = _bn(_conv2d(out, sd[f"{p}.conv2.weight"]), sd, f"{p}.bn2")
    if f"{p}.shortcut.0.weight" in sd:
        x = _bn(_conv2d(x, sd[f"{p}.shortcut.0.weight"], (stride, 1), pad=0), sd, f"{p}.shortcut.1")
    return _relu(out + x)


def _seg_pool(x, seg=100):
    b, c, t = x.shape
    n = -(-t // seg)
    padded = np.zeros((b, c, n * seg), dtype=x.dtype)
    padded[:, :, :t] = x
    counts = np.minimum(seg, t - np.arange(n) * seg)
    means = padded.reshape(b, c, n, seg).sum(axis=3) / counts
    return np.repeat(means, seg, axis=2)[:, :, :t]


def _cam_dense_layer(x, sd, p, dilation):
    h = _relu(_bn(x, sd, f"{p}.nonlinear1.batchnorm"))
    h = _conv1d(h, sd[f"{p}.linear1.weight"])
    h = _relu(_bn(h, sd, f"{p}.nonlinear2.batchnorm"))
    c = f"{p}.cam_layer"
    y = _conv1d(h, sd[f"{c}.linear_local.weight"], pad=dilation, dilation=dilation)
    context = h.mean(axis=2, keepdims=True) + _seg_pool(h)
    context = _relu(_conv1d(context, sd[f"{c}.linear1.weight"], sd[f"{c}.linear1.bias"]))
    mask = 1.0 / (1.0 + np.exp(-_conv1d(context, sd[f"{c}.linear2.weight"], sd[f"{c}.linear2.bias"])))
    return y * mask


def campplus(feats, sd):
    """feats (B, T, 80) mean-normalised fbank -> (B, 192) embeddings."""
    x = feats.transpose(0, 2, 1)[:, None].astype(np.float32)  # B,1,F,T
    out = _relu(_bn(_conv2d(x, sd["head.conv1.weight"]), sd, "head.bn1"))
    for layer in ("layer1", "layer2"):
        out = _res_block(out, sd, f"head.{layer}.0", 2)
        out = _res_block(out, sd, f"head.{layer}.1", 1)
    out = _relu(_bn(_conv2d(out, sd["head.conv2.weight"], (2, 1)), sd, "head.bn2"))
    b, c, f, t = out.shape
    x = out.reshape(b, c * f, t)
    x = _conv1d(x, sd["xvector.tdnn.linear.weight"], stride=2, pad=2)
    x = _relu(_bn(x, sd, "xvector.tdnn.nonlinear.batchnorm"))
    for i, (layers, dilation) in enumerate(zip((12, 24, 16), (1, 2, 2)), start=1):
        for j in range(1, layers + 1):
            x = np.concatenate([x, _cam_dense_layer(x, sd, f"xvector.block{i}.tdnnd{j}", dilation)], axis=1)
        x = _relu(_bn(x, sd, f"xvector.transit{i}.nonlinear.batchnorm"))
        x = _conv1d(x, sd[f"xvector.transit{i}.linear.weight"])
    x = _relu(_bn(x, sd, "xvector.out_nonlinear.batchnorm"))
    stats = np.concatenate([x.mean(axis=2), x.std(axis=2, ddof=1)], axis=1)
    emb = np.einsum("oc,bc->bo", sd["xvector.dense.linear.weight"][:, :, 0], stats)
    return _bn(emb, sd, "xvector.dense.nonlinear.batchnorm")


# ---- pyannote segmentation-3.0 forward pass (PyanNet: SincNet, 4 BiLSTM layers, powerset output) ---

def _instance_norm(x, w, b, eps=1e-5):
    mu = x.mean(axis=2, keepdims=True)
    var = x.var(axis=2, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w[None, :, None] + b[None, :, None]


def _leaky(x):
    return np.where(x > 0, x, 0.01 * x)


def _maxpool3(x):
    t = x.shape[2] // 3
    return x[:, :, : 3 * t].reshape(x.shape[0], x.shape[1], t, 3).max(axis=3)


def _sinc_filters(sd):
    p = "sincnet.conv1d.0.filterbank."
    low_hz, band_hz, n_, window = sd[p + "low_hz_"], sd[p + "band_hz_"], sd[p + "n_"], sd[p + "window_"]
    low = 50 + np.abs(low_hz)
    high = np.clip(low + 50 + np.abs(band_hz), 50, 8000)
    band = (high - low)[:, 0]
    ft_low, ft_high = low @ n_, high @ n_
    cos_left = ((np.sin(ft_high) - np.sin(ft_low)) / (n_ / 2)) * window
    cos = np.concatenate([cos_left, 2 * band[:, None], cos_left[:, ::-1]], axis=1)
    sin_left = ((np.cos(ft_low) - np.cos(ft_high)) / (n_ / 2)) * window
    sin = np.concatenate([sin_left, np.zeros_like(band[:, None]), -sin_left[:, ::-1]], axis=1)
    filters = np.concatenate([cos, sin], axis=0) / np.concatenate([2 * band, 2 * band])[:, None]
    return filters.astype(np.float32)  # (80, 251)


def _lstm_dir(x, wih, whh, bih, bhh, reverse):
    b, t, _ = x.shape
    h_size = whh.shape[1]
    xw = x @ wih.T + (bih + bhh)
    h = np.zeros((b, h_size), np.float32)
    c = np.zeros((b, h_size), np.float32)
    out = np.empty((b, t, h_size), np.float32)
    steps = range(t - 1, -1, -1) if reverse else range(t)
    whh_t = whh.T.copy()
    for s in steps:
        g = xw[:, s] + h @ whh_t
        i = 1 / (1 + np.exp(-g[:, :h_size]))
        f = 1 / (1 + np.exp(-g[:, h_size:2 * h_size]))
        gg = np.tanh(g[:, 2 * h_size:3 * h_size])
        o = 1 / (1 + np.exp(-g[:, 3 * h_size:]))
        c = f * c + i * gg
        h = o * np.tanh(c)
        out[:, s] = h
    return out


def segmentation(chunks, sd):
    """chunks (B, 160000) float32 -> (B, 589, 7) log-probabilities of the powerset classes:
    nobody, speaker 1, 2, 3 of the chunk, and the pairs 1+2, 1+3, 2+3."""
    x = chunks[:, None, :].astype(np.float32)
    x = _instance_norm(x, sd["sincnet.wav_norm1d.weight"], sd["sincnet.wav_norm1d.bias"])
    filt = sd.setdefault("#sinc", _sinc_filters(sd))
    win = sliding_window_view(x[:, 0], 251, axis=1)[:, ::10]  # B, T, 251
    x = np.abs(np.einsum("btk,fk->bft", win, filt, optimize=True))
    x = _leaky(_instance_norm(_maxpool3(x), sd["sincnet.norm1d.0.weight"], sd["sincnet.norm1d.0.bias"]))
    for i in (1, 2):
        x = _conv1d(x, sd[f"sincnet.conv1d.{i}.weight"], sd[f"sincnet.conv1d.{i}.bias"])
        x = _leaky(_instance_norm(_maxpool3(x), sd[f"sincnet.norm1d.{i}.weight"], sd[f"sincnet.norm1d.{i}.bias"]))
    x = x.transpose(0, 2, 1)  # B, T, 60
    for layer in range(4):
        fwd = _lstm_dir(x, sd[f"lstm.weight_ih_l{layer}"], sd[f"lstm.weight_hh_l{layer}"], sd[f"lstm.bias_ih_l{layer}"], sd[f"lstm.bias_hh_l{layer}"], False)
        bwd = _lstm_dir(x, sd[f"lstm.weight_ih_l{layer}_reverse"], sd[f"lstm.weight_hh_l{layer}_reverse"], sd[f"lstm.bias_ih_l{layer}_reverse"], sd[f"lstm.bias_hh_l{layer}_reverse"], True)
        x = np.concatenate([fwd, bwd], axis=2)
    for i in (0, 1):
        x = _leaky(x @ sd[f"linear.{i}.weight"].T + sd[f"linear.{i}.bias"])
    logits = x @ sd["classifier.weight"].T + sd["classifier.bias"]
    logits -= logits.max(axis=2, keepdims=True)
    return logits - np.log(np.exp(logits).sum(axis=2, keepdims=True))


SEG_CHUNK = 160000  # the 10 s the model was trained on
SEG_FRAME = 270  # samples between output frames
SEG_FIRST = 495  # centre of the first frame's receptive field (991 samples)


def run_segment(args):
    # The probability that someone speaks and that two people speak at once, averaged over the chunks;
    # and each chunk's most likely class per frame, whose speaker numbers are the chunk's own.
    ck = load_state_dict(args.model)
    sd = ck["state_dict"]
    with open_wav(args.audio) as w:
        total = w.getnframes()
        step = int(args.step * SAMPLE_RATE)
        last = max(0, total - SEG_CHUNK)
        starts = list(range(0, last + 1, step))
        if starts[-1] != last:
            starts.append(last)
        n = max(1, total // SEG_FRAME)
        speech, overlap, count = np.zeros(n), np.zeros(n), np.zeros(n)
        local = []
        for k in range(0, len(starts), 4):
            batch = starts[k:k + 4]
            chunks = np.zeros((len(batch), SEG_CHUNK), dtype=np.float32)
            for j, a in enumerate(batch):
                # Read a chunk at a time: an episode's samples never sit in memory at once.
                piece = read_samples(w, a, min(total, a + SEG_CHUNK))
                chunks[j, :len(piece)] = piece
            probs = np.exp(segmentation(chunks, sd))
            for j, a in enumerate(batch):
                # The chunk's own speakers, most likely class per frame (numbered within the chunk).
                local.append({"start": a / SAMPLE_RATE, "classes": "".join(map(str, probs[j].argmax(axis=1)))})
                idx = (a + SEG_FIRST + np.arange(probs.shape[1]) * SEG_FRAME) // SEG_FRAME
                ok = idx < min(n, (a + min(SEG_CHUNK, total - a)) // SEG_FRAME + 1)
                speech[idx[ok]] += 1 - probs[j, ok, 0]
                overlap[idx[ok]] += probs[j, ok, 4:].sum(axis=1)
                count[idx[ok]] += 1
            emit({"progress": round(min(1.0, (k + len(batch)) / len(starts)), 4)})
    count = np.maximum(count, 1)
    emit({"segmentation": {
        "frame_seconds": SEG_FRAME / SAMPLE_RATE,
        "first_frame_seconds": SEG_FIRST / SAMPLE_RATE,
        "chunks": local,
        "speech": [round(float(v), 3) for v in speech / count],
        "overlap": [round(float(v), 3) for v in overlap / count],
    }})


def run_speakers(args):
    # The checkpoint is the verified PyTorch file itself, read without torch (a zip of a pickle and raw
    # tensors): converting it to ONNX would produce bytes no official checksum vouches for.
    sd = load_state_dict(args.model)
    with open(args.windows_file) as f:
        windows = json.load(f)
    with open_wav(args.audio) as w:
        total = w.getnframes()
        # Windows of equal length run as one batch; 8 keeps the largest intermediate array near 100 MB.
        by_len = {}
        for i, (start, end) in enumerate(windows):
            a, b = int(max(0.0, start) * SAMPLE_RATE), int(min(total / SAMPLE_RATE, end) * SAMPLE_RATE)
            by_len.setdefault(max(b - a, 400), []).append((i, a))
        result = [None] * len(windows)
        for length, items in by_len.items():
            for k in range(0, len(items), 8):
                chunk = items[k:k + 8]
                feats = np.stack([fbank(read_samples(w, a, min(total, a + length))) for _, a in chunk])
                for (i, _), e in zip(chunk, campplus(feats, sd)):
                    result[i] = [round(float(v), 5) for v in e]
    emit({"embeddings": result})


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
