"""
`segment`: pyannote segmentation-3.0 (PyanNet: SincNet, 4 BiLSTM layers, powerset output) in numpy
(the in-process twin: src/inference/segmentation.ts).
"""
import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from numpy_layers import conv1d as _conv1d
from torch_checkpoint import load_state_dict
from worker_io import SAMPLE_RATE, emit, open_wav, read_samples


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
