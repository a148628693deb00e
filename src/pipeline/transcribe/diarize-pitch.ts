/**
 * Voice pitch: the one cue that MFCC statistics over a few seconds miss and that tells most pairs of
 * voices apart. Normalised autocorrelation on 40 ms frames at 8 kHz; 0 means unvoiced.
 */
import type { PcmSource } from "../../media/wav.ts";

const MIN_HZ = 60;
const MAX_HZ = 400;
const VOICED = 0.45;

export function pitchAt(source: PcmSource, centerSeconds: number): number {
  const sampleRate = source.sampleRate;
  const dec = Math.max(1, Math.round(sampleRate / 8000));
  const sr = sampleRate / dec;
  const win = Math.round(0.04 * sr);
  const start = Math.round(centerSeconds * sampleRate) - Math.round((win * dec) / 2);
  if (start < 0 || start + win * dec > source.length) return 0;
  const samples = source.read(start, win * dec);
  const x = new Float64Array(win);
  let mean = 0;
  for (let i = 0; i < win; i++) {
    let s = 0;
    for (let j = 0; j < dec; j++) s += samples[i * dec + j]!;
    x[i] = s / dec;
    mean += x[i]! / win;
  }
  let e0 = 0;
  for (let i = 0; i < win; i++) {
    x[i]! -= mean;
    e0 += x[i]! * x[i]!;
  }
  if (e0 < 1e-6) return 0;
  const lo = Math.floor(sr / MAX_HZ);
  const hi = Math.min(win - 1, Math.ceil(sr / MIN_HZ));
  let best = 0;
  let lag = 0;
  for (let k = lo; k <= hi; k++) {
    let s = 0;
    for (let i = 0; i + k < win; i++) s += x[i]! * x[i + k]!;
    if (s > best) {
      best = s;
      lag = k;
    }
  }
  return lag && best > VOICED * e0 ? sr / lag : 0;
}

/** Median pitch over up to `maxFrames` evenly spread times; NaN when too few are voiced. */
export function medianPitch(source: PcmSource, times: number[], maxFrames = 1500): number {
  const step = Math.max(1, Math.floor(times.length / maxFrames));
  const voiced: number[] = [];
  for (let i = 0; i < times.length; i += step) {
    const f = pitchAt(source, times[i]!);
    if (f > 0) voiced.push(f);
  }
  if (voiced.length < 20) return NaN;
  voiced.sort((a, b) => a - b);
  return voiced[Math.floor(voiced.length / 2)]!;
}

export const semitones = (a: number, b: number): number => Math.abs(12 * Math.log2(a / b));
