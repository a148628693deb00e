"""Kaldi-compatible log mel filterbank, as CAM++ was trained on (the in-process twin: src/media/fbank.ts)."""
import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from worker_io import SAMPLE_RATE


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
