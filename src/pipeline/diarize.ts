/**
 * Speaker diarization without a neural model: MFCC statistics over short speech windows, agglomerative
 * clustering with the speaker count estimated, then a per-speaker Gaussian re-scoring of every word
 * smoothed by a switching penalty. Output: one "Speaker N" label per word, numbered by first appearance.
 */
import { clusterWithEstimatedK, cosineDistance, DEFAULT_ESTIMATE, type EstimateOptions } from "./diarize-cluster.ts";
import { FRAME_HOP_SECONDS, mfcc } from "./diarize-features.ts";
import type { Region } from "./vad.ts";

export interface DiarizeOptions {
  numSpeakers?: number;
  windowSeconds?: number;
  hopSeconds?: number;
  /** Log-likelihood cost (per frame-normalised word score) of changing speaker between adjacent words. */
  switchPenalty?: number;
  estimate?: EstimateOptions;
  /** Most windows clustered directly; more are subsampled evenly (clustering is cubic). */
  maxClusterWindows?: number;
}

interface TimedWord {
  start: number;
  end: number;
}

const DEFAULTS = { windowSeconds: 1.5, hopSeconds: 0.5, switchPenalty: 4, maxClusterWindows: 500 };

/** Speech chunks: words joined across pauses shorter than `gap`. */
export function speechChunks(words: TimedWord[], gap = 0.3): Region[] {
  const out: Region[] = [];
  for (const w of words) {
    const last = out[out.length - 1];
    if (last && w.start - last[1] <= gap) last[1] = Math.max(last[1], w.end);
    else out.push([w.start, w.end]);
  }
  return out;
}

/** Renames cluster ids to "Speaker 1", "Speaker 2", ... in order of first appearance. */
export function labelByFirstAppearance(ids: number[]): string[] {
  const names = new Map<number, string>();
  return ids.map((id) => {
    if (!names.has(id)) names.set(id, `Speaker ${names.size + 1}`);
    return names.get(id)!;
  });
}

function frameRange(start: number, end: number, nFrames: number): [number, number] {
  return [Math.max(0, Math.floor(start / FRAME_HOP_SECONDS)), Math.min(nFrames, Math.ceil(end / FRAME_HOP_SECONDS))];
}

/** Viterbi over items with per-item scores and a constant cost for changing label. */
export function smoothLabels(scores: number[][], switchPenalty: number): number[] {
  const n = scores.length;
  if (!n) return [];
  const k = scores[0]!.length;
  let prev = [...scores[0]!];
  const back: number[][] = [];
  for (let i = 1; i < n; i++) {
    const cur = new Array<number>(k);
    const bp = new Array<number>(k);
    for (let j = 0; j < k; j++) {
      let best = -Infinity;
      let arg = 0;
      for (let p = 0; p < k; p++) {
        const v = prev[p]! - (p === j ? 0 : switchPenalty);
        if (v > best) {
          best = v;
          arg = p;
        }
      }
      cur[j] = best + scores[i]![j]!;
      bp[j] = arg;
    }
    back.push(bp);
    prev = cur;
  }
  const path = new Array<number>(n);
  path[n - 1] = prev.indexOf(Math.max(...prev));
  for (let i = n - 1; i > 0; i--) path[i - 1] = back[i - 1]![path[i]!]!;
  return path;
}

export function diarizeWords(samples: Float32Array, sampleRate: number, _regions: Region[], words: TimedWord[], opts: DiarizeOptions = {}): string[] {
  const o = { ...DEFAULTS, ...opts };
  if (!words.length) return [];
  const { ceps } = mfcc(samples, sampleRate);
  const nFrames = ceps.length;
  const dim = ceps[0]?.length ?? 0;
  if (!nFrames) return words.map(() => "Speaker 1");

  // Speech frames are the frames under recognised words: tighter than VAD regions.
  const chunks = speechChunks(words);
  const speech = new Uint8Array(nFrames);
  for (const [a, b] of chunks) {
    const [fa, fb] = frameRange(a, b, nFrames);
    speech.fill(1, fa, fb);
  }
  // Mean and variance normalisation over speech removes the channel; what remains differs by voice.
  const mean = new Float64Array(dim);
  const sq = new Float64Array(dim);
  let count = 0;
  for (let f = 0; f < nFrames; f++) {
    if (!speech[f]) continue;
    count++;
    for (let d = 0; d < dim; d++) {
      mean[d]! += ceps[f]![d]!;
      sq[d]! += ceps[f]![d]! ** 2;
    }
  }
  if (count < 50) return words.map(() => "Speaker 1");
  for (let d = 0; d < dim; d++) {
    mean[d]! /= count;
    sq[d] = Math.sqrt(Math.max(1e-8, sq[d]! / count - mean[d]! ** 2));
  }
  const norm = ceps.map((c) => Float64Array.from(c, (v, d) => (v - mean[d]!) / sq[d]!));

  // Windows within speech chunks; each summarised by the mean and spread of its frames.
  const windows: Array<[number, number]> = [];
  for (const [a, b] of chunks) {
    const len = b - a;
    if (len < 0.3) continue;
    if (len <= o.windowSeconds) {
      windows.push(frameRange(a, b, nFrames));
      continue;
    }
    for (let t = a; t < b - 0.3; t += o.hopSeconds) windows.push(frameRange(t, Math.min(b, t + o.windowSeconds), nFrames));
  }
  if (windows.length < 3) return words.map(() => "Speaker 1");
  const emb = windows.map(([fa, fb]) => {
    const m = new Float64Array(2 * dim);
    const n = fb - fa;
    for (let f = fa; f < fb; f++) for (let d = 0; d < dim; d++) m[d]! += norm[f]![d]! / n;
    for (let f = fa; f < fb; f++) for (let d = 0; d < dim; d++) m[dim + d]! += (norm[f]![d]! - m[d]!) ** 2 / n;
    for (let d = 0; d < dim; d++) m[dim + d] = Math.sqrt(m[dim + d]!);
    return m;
  });
  // Standardise each embedding dimension so no single coefficient dominates the cosine distance.
  const ed = emb[0]!.length;
  for (let d = 0; d < ed; d++) {
    let mu = 0;
    let s2 = 0;
    for (const e of emb) mu += e[d]! / emb.length;
    for (const e of emb) s2 += (e[d]! - mu) ** 2 / emb.length;
    const sd = Math.sqrt(s2) || 1;
    for (const e of emb) e[d] = (e[d]! - mu) / sd;
  }
  const step = Math.max(1, Math.ceil(emb.length / o.maxClusterWindows));
  const picked = emb.map((_, i) => i).filter((i) => i % step === 0);
  const dist = picked.map((i) => picked.map((j) => cosineDistance(emb[i]!, emb[j]!)));
  const { k, labels } = clusterWithEstimatedK(dist, o.estimate ?? DEFAULT_ESTIMATE, opts.numSpeakers);
  if (k === 1) return words.map(() => "Speaker 1");

  // One diagonal Gaussian per speaker over the frames of its windows, then score every word.
  const mu = Array.from({ length: k }, () => new Float64Array(dim));
  const va = Array.from({ length: k }, () => new Float64Array(dim));
  const cnt = new Array<number>(k).fill(0);
  picked.forEach((wi, idx) => {
    const [fa, fb] = windows[wi]!;
    const c = labels[idx]!;
    for (let f = fa; f < fb; f++) {
      cnt[c]!++;
      for (let d = 0; d < dim; d++) {
        mu[c]![d]! += norm[f]![d]!;
        va[c]![d]! += norm[f]![d]! ** 2;
      }
    }
  });
  for (let c = 0; c < k; c++) {
    for (let d = 0; d < dim; d++) {
      mu[c]![d]! /= cnt[c]!;
      va[c]![d] = Math.max(0.05, va[c]![d]! / cnt[c]! - mu[c]![d]! ** 2);
    }
  }
  const logNorm = va.map((v) => v.reduce((s, x) => s - 0.5 * Math.log(2 * Math.PI * x), 0));
  const frameLL = (f: number, c: number) => {
    let s = logNorm[c]!;
    for (let d = 0; d < dim; d++) s -= (norm[f]![d]! - mu[c]![d]!) ** 2 / (2 * va[c]![d]!);
    return s;
  };
  const scores = words.map((w) => {
    const [fa, fb] = frameRange(w.start, Math.max(w.end, w.start + 0.05), nFrames);
    const n = Math.max(1, fb - fa);
    // Mean per-frame log-likelihood, scaled so a word weighs by its length in tenths of a second.
    const weight = Math.min(10, n / 10);
    return Array.from({ length: k }, (_, c) => {
      let s = 0;
      for (let f = fa; f < fb; f++) s += frameLL(f, c);
      return (s / n) * weight;
    });
  });
  return labelByFirstAppearance(smoothLabels(scores, o.switchPenalty));
}
