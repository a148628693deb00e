/**
 * Acoustic features for speaker clustering: MFCCs from a log-mel filterbank. Pure numeric code, no
 * model: speaker identity shows in the spectral envelope, which cepstra summarise.
 */
import { fftInPlace } from "../../media/fft.ts";
import type { PcmSource } from "../../media/wav.ts";

export const FRAME_HOP_SECONDS = 0.01;
const WIN_SECONDS = 0.025;
const N_FFT = 512;

const hzToMel = (f: number) => 2595 * Math.log10(1 + f / 700);
const melToHz = (m: number) => 700 * (10 ** (m / 2595) - 1);

function melFilterbank(nMels: number, sampleRate: number, fMin: number, fMax: number): Float64Array[] {
  const bins = N_FFT / 2 + 1;
  const mMin = hzToMel(fMin);
  const mMax = hzToMel(fMax);
  const centers = Array.from({ length: nMels + 2 }, (_, i) => melToHz(mMin + ((mMax - mMin) * i) / (nMels + 1)));
  return Array.from({ length: nMels }, (_, m) => {
    const f = new Float64Array(bins);
    for (let k = 0; k < bins; k++) {
      const hz = (k * sampleRate) / N_FFT;
      const up = (hz - centers[m]!) / (centers[m + 1]! - centers[m]!);
      const down = (centers[m + 2]! - hz) / (centers[m + 2]! - centers[m + 1]!);
      f[k] = Math.max(0, Math.min(up, down));
    }
    return f;
  });
}

export interface FeatureOptions {
  nMels: number;
  nCeps: number;
  fMin: number;
  fMax: number;
}

export const DEFAULT_FEATURES: FeatureOptions = { nMels: 40, nCeps: 20, fMin: 60, fMax: 7600 };

/** MFCC frames in one flat array: frame f's coefficients are ceps[f * dim .. (f + 1) * dim). */
export interface Mfcc {
  frames: number;
  dim: number;
  ceps: Float32Array;
  energy: Float32Array;
}

/** Frames computed per read of the source: a minute of audio, so memory holds features, not samples. */
const FRAMES_PER_READ = 6000;

/**
 * MFCC frames (c1..c{nCeps-1}; c0, the loudness, says little about who speaks) every 10 ms, plus the
 * frame log-energy separately for weighting. Frame i covers [i*hop, i*hop + 25 ms).
 */
export function mfcc(source: PcmSource, opts: FeatureOptions = DEFAULT_FEATURES): Mfcc {
  const sampleRate = source.sampleRate;
  const win = Math.round(WIN_SECONDS * sampleRate);
  const hop = Math.round(FRAME_HOP_SECONDS * sampleRate);
  const nFrames = source.length >= win ? 1 + Math.floor((source.length - win) / hop) : 0;
  const fb = melFilterbank(opts.nMels, sampleRate, opts.fMin, Math.min(opts.fMax, sampleRate / 2));
  const hamming = Float64Array.from({ length: win }, (_, i) => 0.54 - 0.46 * Math.cos((2 * Math.PI * i) / (win - 1)));
  const dct = Array.from({ length: opts.nCeps }, (_, c) => Float64Array.from({ length: opts.nMels }, (_, m) => Math.cos((Math.PI * c * (m + 0.5)) / opts.nMels)));
  const re = new Float64Array(N_FFT);
  const im = new Float64Array(N_FFT);
  const power = new Float64Array(N_FFT / 2 + 1);
  const logMel = new Float64Array(opts.nMels);
  const dim = opts.nCeps - 1;
  const ceps = new Float32Array(nFrames * dim);
  const energy = new Float32Array(nFrames);
  for (let f0 = 0; f0 < nFrames; f0 += FRAMES_PER_READ) {
    const f1 = Math.min(nFrames, f0 + FRAMES_PER_READ);
    // One sample before the first frame, for the pre-emphasis.
    const base = Math.max(0, f0 * hop - 1);
    const samples = source.read(base, (f1 - 1) * hop + win - base);
    for (let f = f0; f < f1; f++) {
      re.fill(0);
      im.fill(0);
      const off = f * hop;
      let e = 0;
      for (let i = 0; i < win; i++) {
        const j = off + i - base;
        // pre-emphasis flattens the spectral tilt so upper formants count
        const x = samples[j]! - 0.97 * (off + i > 0 ? samples[j - 1]! : 0);
        re[i] = x * hamming[i]!;
        e += x * x;
      }
      energy[f] = Math.log(e + 1e-10);
      fftInPlace(re, im);
      for (let k = 0; k < power.length; k++) power[k] = re[k]! * re[k]! + im[k]! * im[k]!;
      for (let m = 0; m < opts.nMels; m++) {
        let s = 0;
        const w = fb[m]!;
        for (let k = 0; k < power.length; k++) s += w[k]! * power[k]!;
        logMel[m] = Math.log(s + 1e-10);
      }
      for (let k = 1; k < opts.nCeps; k++) {
        let s = 0;
        for (let m = 0; m < opts.nMels; m++) s += dct[k]![m]! * logMel[m]!;
        ceps[f * dim + k - 1] = s;
      }
    }
  }
  return { frames: nFrames, dim, ceps, energy };
}
