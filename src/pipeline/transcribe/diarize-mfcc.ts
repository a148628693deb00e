/**
 * Speaker diarization without a neural model: MFCC statistics over short speech windows, agglomerative
 * clustering with the speaker count estimated, then a per-speaker Gaussian re-scoring of every word
 * smoothed by a switching penalty. Output: one "Speaker N" label per word, numbered by first appearance.
 */
import { averageLinkage, cosineDistance } from "./diarize-cluster.ts";
import { DEFAULT_FEATURES, FRAME_HOP_SECONDS, mfcc, type Mfcc } from "./diarize-features.ts";
import { medianPitch, semitones } from "./diarize-pitch.ts";
import { median } from "../vector-math.ts";
import { addFrame, deltaBic, emptyStats, fitGaussian, logLikelihood, mergeStats, type Stats } from "./diarize-gaussian.ts";
import type { PcmSource } from "../../media/wav.ts";
import type { Region } from "./vad.ts";

export interface DiarizeOptions {
  numSpeakers?: number;
  windowSeconds?: number;
  hopSeconds?: number;
  /** Log-likelihood cost (per frame-normalised word score) of changing speaker between adjacent words. */
  switchPenalty?: number;
  /** Clusters of the initial over-segmentation that BIC merging starts from. */
  initialClusters?: number;
  /** Weight of the BIC model-size penalty; higher merges more readily (fewer speakers). */
  bicLambda?: number;
  /** Re-segmentation passes. */
  iterations?: number;
  /** Clusters whose median pitch differs by less than this many semitones are merged... */
  minPitchSemitones?: number;
  /**
   * ...unless the two converse: each one's median run of consecutive words lasts at least this many
   * seconds, and at least half of each one's speaker changes are to the other. Two voices of the same
   * pitch are common (two women, two men); a content split of one voice interleaves in short fragments,
   * or (on long recordings) in turns that each alternate with a third voice rather than with each other.
   */
  turnSeconds?: number;
  /** Clusters with less than this share of the speech frames are folded into their nearest neighbour. */
  minClusterShare?: number;
  /** Cepstral coefficients per frame (c0 dropped). */
  nCeps?: number;
  /** Most windows clustered directly; more are subsampled evenly (clustering is cubic). */
  maxClusterWindows?: number;
}

interface TimedWord {
  start: number;
  end: number;
}

const DEFAULTS = { windowSeconds: 2, hopSeconds: 0.5, switchPenalty: 4, maxClusterWindows: 500, initialClusters: 8, bicLambda: 1.5, iterations: 3, nCeps: 13, minPitchSemitones: 2.2, turnSeconds: 2.5, minClusterShare: 0.03 };

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

/** How often the label changes between each pair of clusters (in either direction), keyed "a-b" with a < b. */
export function changeCounts(labels: number[]): Map<string, number> {
  const out = new Map<string, number>();
  for (let i = 1; i < labels.length; i++) {
    const a = labels[i - 1]!;
    const b = labels[i]!;
    if (a === b) continue;
    const key = `${Math.min(a, b)}-${Math.max(a, b)}`;
    out.set(key, (out.get(key) ?? 0) + 1);
  }
  return out;
}

/**
 * Median length in seconds of each cluster's runs: stretches of consecutive words with that label,
 * from the first word's start to the last word's end.
 */
export function medianRunSeconds(labels: number[], words: TimedWord[]): Map<number, number> {
  const runs = new Map<number, number[]>();
  let from = 0;
  for (let i = 1; i <= labels.length; i++) {
    if (i < labels.length && labels[i] === labels[i - 1]) continue;
    const c = labels[from]!;
    runs.set(c, [...(runs.get(c) ?? []), words[i - 1]!.end - words[from]!.start]);
    from = i;
  }
  return new Map([...runs].map(([c, v]) => [c, median(v)]));
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

/**
 * Labels words by speaker. The audio is read from `source` a window at a time; what is kept is one
 * row of 12 floats per 10 ms (under 70 MB for 4 hours), so memory does not follow the samples.
 */
export function diarizeWords(source: PcmSource, _regions: Region[], words: TimedWord[], opts: DiarizeOptions = {}, features?: Mfcc): string[] {
  const o = { ...DEFAULTS, ...opts };
  if (!words.length) return [];
  // The rerun with the count fixed (below) passes the features back in rather than computing them again.
  const feats = features ?? mfcc(source, { ...DEFAULT_FEATURES, nCeps: o.nCeps });
  const { ceps, frames: nFrames, dim } = feats;
  const one = () => words.map(() => "Speaker 1");
  if (!nFrames) return one();

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
      mean[d]! += ceps[f * dim + d]!;
      sq[d]! += ceps[f * dim + d]! ** 2;
    }
  }
  if (count < 100) return one();
  for (let d = 0; d < dim; d++) {
    mean[d]! /= count;
    sq[d] = Math.sqrt(Math.max(1e-8, sq[d]! / count - mean[d]! ** 2));
  }
  // Normalised rows are computed when read, into one scratch row, rather than stored for every frame.
  const row = new Float64Array(dim);
  const norm = (f: number): Float64Array => {
    for (let d = 0; d < dim; d++) row[d] = (ceps[f * dim + d]! - mean[d]!) / sq[d]!;
    return row;
  };

  // 1. Over-segment: windows within speech chunks, summarised by mean and spread, clustered by cosine.
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
  if (windows.length < 2) return one();
  const emb = windows.map(([fa, fb]) => {
    const m = new Float64Array(2 * dim);
    const n = fb - fa;
    for (let f = fa; f < fb; f++) {
      const x = norm(f);
      for (let d = 0; d < dim; d++) m[d]! += x[d]! / n;
    }
    for (let f = fa; f < fb; f++) {
      const x = norm(f);
      for (let d = 0; d < dim; d++) m[dim + d]! += (x[d]! - m[d]!) ** 2 / n;
    }
    for (let d = 0; d < dim; d++) m[dim + d] = Math.sqrt(m[dim + d]!);
    return m;
  });
  for (let d = 0; d < 2 * dim; d++) {
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
  const initialK = Math.min(o.initialClusters, picked.length);
  const windowLabels = averageLinkage(dist).labelsFor(initialK);
  const centers = picked.map((i) => (windows[i]![0] + windows[i]![1]) / 2);

  // Each word starts in the cluster of the nearest window.
  // A recogniser word longer than 2 s has swallowed a pause; only its start is surely that speaker.
  const wordFrames = words.map((w) => frameRange(w.start, Math.min(Math.max(w.end, w.start + 0.05), w.start + 2), nFrames));
  let labels = wordFrames.map(([fa, fb]) => {
    const mid = (fa + fb) / 2;
    let best = 0;
    for (let i = 1; i < centers.length; i++) if (Math.abs(centers[i]! - mid) < Math.abs(centers[best]! - mid)) best = i;
    return windowLabels[best]!;
  });

  const statsOf = (lab: number[]): Map<number, Stats> => {
    const m = new Map<number, Stats>();
    lab.forEach((c, i) => {
      if (!m.has(c)) m.set(c, emptyStats(dim));
      const [fa, fb] = wordFrames[i]!;
      for (let f = fa; f < fb; f++) addFrame(m.get(c)!, norm(f));
    });
    return m;
  };

  // 2. Merge clusters while one Gaussian explains a pair better than two (BIC), or down to a given count.
  // With a known count the penalty only orders the merges; the textbook weight does that best.
  const lambda = opts.numSpeakers !== undefined ? 1 : o.bicLambda;
  const mergeByBic = (lab: number[]): number[] => {
    const st = statsOf(lab);
    for (;;) {
      const ids = [...st.keys()];
      if (ids.length <= 1) break;
      let best = Infinity;
      let pair: [number, number] = [ids[0]!, ids[1]!];
      for (let x = 0; x < ids.length; x++) {
        for (let y = x + 1; y < ids.length; y++) {
          const v = deltaBic(st.get(ids[x]!)!, st.get(ids[y]!)!, lambda);
          if (v < best) {
            best = v;
            pair = [ids[x]!, ids[y]!];
          }
        }
      }
      const mustMerge = opts.numSpeakers !== undefined ? ids.length > opts.numSpeakers : best < 0;
      if (!mustMerge) break;
      st.set(pair[0], mergeStats(st.get(pair[0])!, st.get(pair[1])!));
      st.delete(pair[1]);
      lab = lab.map((c) => (c === pair[1] ? pair[0] : c));
    }
    return lab;
  };

  // 3. Re-segment: score every word against each speaker's Gaussian, smooth with a switching cost, refit.
  const resegment = (lab: number[]): number[] => {
    const st = statsOf(lab);
    const ids = [...st.keys()].filter((c) => st.get(c)!.n > dim * 3);
    if (ids.length < 2) return lab.map(() => ids[0] ?? 0);
    const models = ids.map((c) => fitGaussian(st.get(c)!));
    const scores = wordFrames.map(([fa, fb]) => {
      const n = Math.max(1, fb - fa);
      const weight = Math.min(10, n / 10);
      const sums = models.map(() => 0);
      for (let f = fa; f < fb; f++) {
        const x = norm(f);
        models.forEach((g, i) => (sums[i]! += logLikelihood(g, x)));
      }
      return sums.map((s) => (s / n) * weight);
    });
    return smoothLabels(scores, o.switchPenalty).map((i) => ids[i]!);
  };

  // Tiny clusters (a cough, a laugh, a crosstalk burst) are not speakers; fold each into the cluster it
  // resembles most before BIC, which otherwise keeps such outliers to the end on long recordings.
  const absorbSmall = (lab: number[]): number[] => {
    for (;;) {
      const st = statsOf(lab);
      const total = [...st.values()].reduce((s, x) => s + x.n, 0);
      const ids = [...st.keys()];
      const small = ids.filter((c) => st.get(c)!.n < o.minClusterShare * total).sort((a, b) => st.get(a)!.n - st.get(b)!.n)[0];
      if (small === undefined || ids.length < 2) return lab;
      let best = Infinity;
      let into = small;
      for (const c of ids) {
        if (c === small) continue;
        const a = st.get(small)!;
        const b = st.get(c)!;
        const v = deltaBic(a, b, 0) / (a.n + b.n);
        if (v < best) {
          best = v;
          into = c;
        }
      }
      lab = lab.map((c) => (c === small ? into : c));
    }
  };

  labels = mergeByBic(absorbSmall(labels));
  for (let it = 0; it < o.iterations; it++) {
    labels = resegment(labels);
    labels = mergeByBic(absorbSmall(labels));
  }

  // 4. MFCC clusters also split one voice by what is being said; two clusters whose median pitch is
  // within a small interval are taken to be one speaker (unless the caller fixed the count), except
  // when the two trade turns of several seconds with each other: two voices that share a pitch.
  if (opts.numSpeakers === undefined) {
    for (;;) {
      const ids = [...new Set(labels)];
      if (ids.length < 2) break;
      const pitch = new Map(
        ids.map((c) => {
          const times: number[] = [];
          labels.forEach((l, i) => {
            if (l !== c) return;
            const [fa, fb] = wordFrames[i]!;
            for (let f = fa; f < fb; f += 2) times.push(f * FRAME_HOP_SECONDS);
          });
          return [c, medianPitch(source, times)] as const;
        }),
      );
      const runs = medianRunSeconds(labels, words);
      const changes = changeCounts(labels);
      const changesOf = new Map<number, number>();
      for (const [key, n] of changes) for (const c of key.split("-").map(Number)) changesOf.set(c, (changesOf.get(c) ?? 0) + n);
      const converse = (a: number, b: number) => {
        const between = changes.get(`${Math.min(a, b)}-${Math.max(a, b)}`) ?? 0;
        return [a, b].every((c) => runs.get(c)! >= o.turnSeconds && between >= changesOf.get(c)! / 2);
      };
      let best = Infinity;
      let pair: [number, number] | undefined;
      for (let x = 0; x < ids.length; x++) {
        for (let y = x + 1; y < ids.length; y++) {
          if (converse(ids[x]!, ids[y]!)) continue;
          const a = pitch.get(ids[x]!)!;
          const b = pitch.get(ids[y]!)!;
          // a cluster without enough voiced frames cannot be told apart by pitch: merge it first
          const d = Number.isNaN(a) || Number.isNaN(b) ? 0 : semitones(a, b);
          if (d < best) {
            best = d;
            pair = [ids[x]!, ids[y]!];
          }
        }
      }
      if (!pair || best >= o.minPitchSemitones) break;
      labels = labels.map((c) => (c === pair![1] ? pair![0] : c));
      if (new Set(labels).size > 1) labels = resegment(labels);
    }
    // With the count known, cluster again from the over-segmentation: merging down to k by BIC
    // places the boundaries better than the pitch merges did.
    const k = new Set(labels).size;
    if (k > 1) return diarizeWords(source, _regions, words, { ...opts, numSpeakers: k }, feats);
  }
  return labelByFirstAppearance(labels);
}
