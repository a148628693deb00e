/**
 * Kaldi-compatible log mel filterbank, the features CAM++ was trained on: 25 ms frames every 10 ms,
 * povey window, DC removal, pre-emphasis 0.97, 512-point FFT, 80 mel bins from 20 Hz to Nyquist, no
 * dither, then each bin's mean over the window removed. The same computation as `fbank()` in the
 * speech worker (src/inference/speech-runtime/python/fbank.py), in float64 like its numpy code.
 */
import { fftInPlace } from "./fft.ts";

export const FBANK_SAMPLE_RATE = 16000;
const FRAME = 400;
const SHIFT = 160;
const N_FFT = 512;
const N_BINS = N_FFT / 2;
export const FBANK_BINS = 80;

const mel = (f: number) => 1127 * Math.log(1 + f / 700);

/** Per mel bin: the first FFT bin it covers and its triangular weights from there. */
const BANKS: { first: number; weights: Float64Array }[] = (() => {
  const lowMel = mel(20);
  const highMel = mel(FBANK_SAMPLE_RATE / 2);
  const delta = (highMel - lowMel) / (FBANK_BINS + 1);
  const out: { first: number; weights: Float64Array }[] = [];
  for (let m = 0; m < FBANK_BINS; m++) {
    const left = lowMel + m * delta;
    const center = left + delta;
    const right = center + delta;
    const w = new Float64Array(N_BINS);
    let first = -1;
    let last = -1;
    for (let k = 0; k < N_BINS; k++) {
      const x = mel((FBANK_SAMPLE_RATE / N_FFT) * k);
      // float32 weights, as the worker's filter matrix holds them
      const v = Math.fround(Math.max(0, Math.min((x - left) / (center - left), (right - x) / (right - center))));
      w[k] = v;
      if (v > 0) {
        if (first < 0) first = k;
        last = k;
      }
    }
    out.push({ first, weights: w.slice(first, last + 1) });
  }
  return out;
})();

const WINDOW = Float64Array.from({ length: FRAME }, (_, i) => (0.5 - 0.5 * Math.cos((2 * Math.PI * i) / (FRAME - 1))) ** 0.85);

/** |FFT(frame zero-padded to N_FFT)|^2 for bins 0..N_BINS-1 into `power` (re, im are scratch). */
function powerSpectrum(frame: Float64Array, re: Float64Array, im: Float64Array, power: Float64Array): void {
  re.fill(0);
  im.fill(0);
  re.set(frame.subarray(0, FRAME));
  fftInPlace(re, im);
  for (let k = 0; k < N_BINS; k++) power[k] = re[k]! * re[k]! + im[k]! * im[k]!;
}

const FLOAT32_EPS = 1.1920928955078125e-7;

/** Frames of `samples` (at least one: a window shorter than a frame is zero-padded to one). */
export function fbankFrames(samples: number): number {
  return 1 + Math.floor((Math.max(samples, FRAME) - FRAME) / SHIFT);
}

/** Mean-normalised log mel features of 16 kHz samples, frame-major: out[t * 80 + m]. */
export function fbank(samples: Float32Array, out = new Float32Array(fbankFrames(samples.length) * FBANK_BINS)): Float32Array {
  const n = fbankFrames(samples.length);
  const frame = new Float64Array(FRAME);
  const re = new Float64Array(N_FFT);
  const im = new Float64Array(N_FFT);
  const power = new Float64Array(N_BINS);
  const mean = new Float64Array(FBANK_BINS);
  for (let t = 0; t < n; t++) {
    let dc = 0;
    for (let i = 0; i < FRAME; i++) {
      const p = t * SHIFT + i;
      frame[i] = p < samples.length ? samples[p]! : 0;
      dc += frame[i]!;
    }
    dc /= FRAME;
    for (let i = 0; i < FRAME; i++) frame[i]! -= dc;
    for (let i = FRAME - 1; i > 0; i--) frame[i]! -= 0.97 * frame[i - 1]!;
    frame[0]! -= 0.97 * frame[0]!;
    for (let i = 0; i < FRAME; i++) frame[i]! *= WINDOW[i]!;
    powerSpectrum(frame, re, im, power);
    for (let m = 0; m < FBANK_BINS; m++) {
      const { first, weights } = BANKS[m]!;
      let e = 0;
      // The worker multiplies float32 power by float32 weights.
      for (let k = 0; k < weights.length; k++) e += Math.fround(power[first + k]!) * weights[k]!;
      const v = Math.log(Math.max(e, FLOAT32_EPS));
      out[t * FBANK_BINS + m] = v;
      mean[m]! += v;
    }
  }
  for (let m = 0; m < FBANK_BINS; m++) mean[m]! /= n;
  for (let t = 0; t < n; t++) for (let m = 0; m < FBANK_BINS; m++) out[t * FBANK_BINS + m]! -= mean[m]!;
  return out;
}
