import { describe, expect, test } from "bun:test";
import { averageLinkage, cosineDistance } from "../../../../src/pipeline/transcribe/diarize-cluster.ts";
import { addFrame, deltaBic, emptyStats, fitGaussian, logLikelihood } from "../../../../src/pipeline/transcribe/diarize-gaussian.ts";
import { pitchAt, semitones } from "../../../../src/pipeline/transcribe/diarize-pitch.ts";
import { changeCounts, diarizeWords, labelByFirstAppearance, medianRunSeconds, smoothLabels, speechChunks } from "../../../../src/pipeline/transcribe/diarize-mfcc.ts";
import { speakerTimeline } from "../../../../src/pipeline/transcribe/speaker-turns.ts";
import { mfcc } from "../../../../src/pipeline/transcribe/diarize-features.ts";
import { pcmSource } from "../../../../src/media/wav.ts";

/** Deterministic pseudo-random numbers so the tests cannot flake. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
}
function gauss(r: () => number) {
  return Math.sqrt(-2 * Math.log(r() + 1e-12)) * Math.cos(2 * Math.PI * r());
}

describe("clustering", () => {
  test("average linkage separates two blobs and merges them last", () => {
    const r = rng(1);
    const pts = [
      ...Array.from({ length: 10 }, () => Float64Array.from([1 + 0.1 * gauss(r), 0.1 * gauss(r), 0.1 * gauss(r)])),
      ...Array.from({ length: 7 }, () => Float64Array.from([0.1 * gauss(r), 1 + 0.1 * gauss(r), 0.1 * gauss(r)])),
    ];
    const dist = pts.map((a) => pts.map((b) => cosineDistance(a, b)));
    const tree = averageLinkage(dist);
    const two = tree.labelsFor(2);
    expect(new Set(two.slice(0, 10)).size).toBe(1);
    expect(new Set(two.slice(10)).size).toBe(1);
    expect(two[0]).not.toBe(two[10]);
    expect(tree.merges[tree.merges.length - 1]).toBeGreaterThan(Math.max(...tree.merges.slice(0, -1)));
    expect(new Set(tree.labelsFor(1)).size).toBe(1);
    expect(new Set(tree.labelsFor(17)).size).toBe(17);
  });

  test("BIC says same source for one distribution and different for two", () => {
    const r = rng(2);
    const draw = (mu: number) => Array.from({ length: 400 }, () => [mu + gauss(r), gauss(r), mu / 2 + gauss(r)]);
    const a = emptyStats(3);
    const b = emptyStats(3);
    const c = emptyStats(3);
    draw(0).forEach((x) => addFrame(a, x));
    draw(0).forEach((x) => addFrame(b, x));
    draw(3).forEach((x) => addFrame(c, x));
    expect(deltaBic(a, b, 1)).toBeLessThan(0);
    expect(deltaBic(a, c, 1)).toBeGreaterThan(0);
    const g = fitGaussian(a);
    expect(logLikelihood(g, [0, 0, 0])).toBeGreaterThan(logLikelihood(g, [3, 0, 1.5]));
  });

  test("smoothing keeps a long run and ignores a one-word blip", () => {
    const scores = [[1, 0], [1, 0], [0, 1.5], [1, 0], [1, 0], [0, 5], [0, 5], [0, 5]];
    expect(smoothLabels(scores, 2)).toEqual([0, 0, 0, 0, 0, 1, 1, 1]);
    expect(smoothLabels(scores, 0)).toEqual([0, 0, 1, 0, 0, 1, 1, 1]);
  });

  test("speakers are numbered by first appearance", () => {
    expect(labelByFirstAppearance([4, 4, 1, 4, 7, 1])).toEqual(["Speaker 1", "Speaker 1", "Speaker 2", "Speaker 1", "Speaker 3", "Speaker 2"]);
  });

  test("speaker timeline splits speech regions at the pause between speakers", () => {
    const w = (start: number, end: number, speaker: string) => ({ start, end, speaker });
    const turns = speakerTimeline(
      [[0, 5], [6, 8], [9, 10]],
      [w(0.2, 1, "S1"), w(1.2, 2, "S1"), w(2.4, 3, "S2"), w(3, 4.8, "S2"), w(6.1, 7.5, "S2")],
    );
    expect(turns).toEqual([
      { speaker: "S1", start: 0, end: 2.2 },
      { speaker: "S2", start: 2.2, end: 5 },
      { speaker: "S2", start: 6, end: 8 },
    ]);
  });

  test("median run length per cluster, in seconds from a run's first word to its last", () => {
    const w = (start: number, end: number) => ({ start, end });
    const words = [w(0, 1), w(1, 2), w(2, 2.5), w(3, 3.2), w(3.3, 4), w(4, 9)];
    const runs = medianRunSeconds([7, 7, 3, 7, 3, 3], words);
    expect(runs.get(7)).toBeCloseTo((2 + 0.2) / 2);
    expect(runs.get(3)).toBeCloseTo((0.5 + 5.7) / 2);
  });

  test("label changes are counted per pair of clusters, either direction", () => {
    expect(changeCounts([1, 1, 2, 1, 3, 3, 2])).toEqual(new Map([["1-2", 2], ["1-3", 1], ["2-3", 1]]));
    expect(changeCounts([5, 5, 5]).size).toBe(0);
  });

  test("speech chunks join words across short pauses", () => {
    expect(speechChunks([{ start: 0, end: 1 }, { start: 1.2, end: 2 }, { start: 3, end: 4 }])).toEqual([[0, 2], [3, 4]]);
  });
});

describe("acoustic features", () => {
  test("pitch of a synthetic voiced tone", () => {
    const sr = 16000;
    const x = Float32Array.from({ length: sr }, (_, i) => 0.5 * Math.sin((2 * Math.PI * 150 * i) / sr) + 0.25 * Math.sin((2 * Math.PI * 300 * i) / sr));
    expect(semitones(pitchAt(pcmSource({ samples: x, sampleRate: sr }), 0.5), 150)).toBeLessThan(0.6);
    expect(pitchAt(pcmSource({ samples: new Float32Array(sr), sampleRate: sr }), 0.5)).toBe(0);
  });
  test("MFCC frames every 10 ms, different for different spectra", () => {
    const sr = 16000;
    const low = Float32Array.from({ length: sr }, (_, i) => Math.sin((2 * Math.PI * 200 * i) / sr));
    const high = Float32Array.from({ length: sr }, (_, i) => Math.sin((2 * Math.PI * 3000 * i) / sr));
    const a = mfcc(pcmSource({ samples: low, sampleRate: sr }));
    const b = mfcc(pcmSource({ samples: high, sampleRate: sr }));
    expect(a.frames).toBe(98);
    expect(a.dim).toBe(19);
    let diff = 0;
    for (let d = 0; d < 19; d++) diff += Math.abs(a.ceps[50 * 19 + d]! - b.ceps[50 * 19 + d]!);
    expect(diff).toBeGreaterThan(10);
  });
});

describe("speaker count", () => {
  /**
   * Two synthetic voices on the same (gently wobbling) 200 Hz pitch with different formants, taking
   * 4-second turns of 0.4 s "words": the pitch gate alone would call them one speaker.
   */
  function sameVoicePitchTurns(turns: number) {
    const sr = 16000;
    const turn = 4;
    const r = rng(7);
    const words: { start: number; end: number }[] = [];
    for (let s = 0; s < turns; s++) for (let t = 0.5; t < turn - 0.4; t += 0.5) words.push({ start: s * turn + t, end: s * turn + t + 0.4 });
    const formants = [[500, 1500], [800, 2600]];
    const samples = new Float32Array(sr * turn * turns);
    let phase = 0;
    for (let i = 0; i < samples.length; i++) {
      const t = i / sr;
      const voice = formants[Math.floor(t / turn) % 2]!;
      phase += (2 * Math.PI * 200 * (1 + 0.03 * Math.sin(2 * Math.PI * 3 * t))) / sr;
      let v = 0;
      for (let k = 1; k <= 20; k++) v += (voice.reduce((a, f) => a + Math.exp(-(((k * 200 - f) / 250) ** 2)), 0) + 0.05 / k) * Math.sin(k * phase);
      const speaking = words.some((w) => t >= w.start && t < w.end);
      samples[i] = speaking ? 0.1 * v + 0.01 * (r() - 0.5) : 0.001 * (r() - 0.5);
    }
    return { samples, sr, words, perTurn: words.length / turns };
  }

  test("two voices of one pitch that take turns stay two speakers", () => {
    const { samples, sr, words, perTurn } = sameVoicePitchTurns(8);
    const labels = diarizeWords(pcmSource({ samples, sampleRate: sr }), [], words);
    expect(new Set(labels)).toEqual(new Set(["Speaker 1", "Speaker 2"]));
    // each turn is one speaker, and the turns alternate
    for (let s = 0; s < 8; s++) {
      const turn = labels.slice(s * perTurn, (s + 1) * perTurn);
      const mine = turn.filter((l) => l === (s % 2 ? "Speaker 2" : "Speaker 1")).length;
      expect(mine).toBeGreaterThanOrEqual(perTurn - 1);
    }
  });
});
