"""
`speakers`: 3D-Speaker CAM++ speaker embeddings (speakerlab/models/campplus, inference only) in numpy
(the in-process twin: src/inference/campplus.ts).
"""
import json

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from fbank import fbank
from numpy_layers import conv1d as _conv1d
from torch_checkpoint import load_state_dict
from worker_io import SAMPLE_RATE, emit, open_wav, read_samples


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
