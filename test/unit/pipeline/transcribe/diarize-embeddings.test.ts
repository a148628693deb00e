import { describe, expect, test } from "bun:test";
import { clusterEmbeddings, diarizeFromEmbeddings, embeddingWindows, windowTimeline, wordClusters } from "../../../../src/pipeline/transcribe/diarize-embeddings.ts";

/** Deterministic pseudo-random numbers so the tests cannot flake. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
}
function gauss(r: () => number) {
  return Math.sqrt(-2 * Math.log(r() + 1e-12)) * Math.cos(2 * Math.PI * r());
}

const DIM = 192;

/**
 * Embeddings shaped like CAM++'s on the AMI openings: every window shares a common component (room,
 * channel), each voice adds its own direction, and each window adds noise; same-voice cosine similarity
 * comes out near 0.6, different-voice near 0.3.
 */
function voices(count: number, seed: number) {
  const r = rng(seed);
  const unit = () => {
    const v = Array.from({ length: DIM }, () => gauss(r));
    const n = Math.hypot(...v);
    return v.map((x) => x / n);
  };
  const common = unit();
  const dirs = Array.from({ length: count }, unit);
  return (voice: number) => {
    const noise = unit();
    return dirs[voice]!.map((x, d) => 0.55 * common[d]! + 0.75 * x + 0.55 * noise[d]!);
  };
}

const cos = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0) / Math.hypot(...a) / Math.hypot(...b);

describe("embedding windows", () => {
  test("overlapping windows cover every region to its end; short regions are one window; clicks none", () => {
    const w = embeddingWindows([[0, 4], [5, 6], [7, 7.2]]);
    expect(w[0]).toEqual({ start: 0, end: 1.5 });
    expect(w[1]).toEqual({ start: 0.75, end: 2.25 });
    const inFirst = w.filter((x) => x.end <= 4);
    expect(inFirst[inFirst.length - 1]!.end).toBe(4);
    expect(inFirst.every((x) => Math.abs(x.end - x.start - 1.5) < 1e-9)).toBe(true);
    expect(w).toContainEqual({ start: 5, end: 6 });
    expect(w.some((x) => x.start >= 7)).toBe(false);
  });
});

describe("clustering speaker embeddings", () => {
  test("the constructed voices have the similarities the threshold was tuned on", () => {
    const v = voices(2, 1);
    const same: number[] = [];
    const diff: number[] = [];
    for (let i = 0; i < 30; i++) {
      same.push(cos(v(0), v(0)));
      diff.push(cos(v(0), v(1)));
    }
    const mean = (x: number[]) => x.reduce((s, y) => s + y, 0) / x.length;
    expect(mean(same)).toBeGreaterThan(0.5);
    expect(mean(diff)).toBeLessThan(0.4);
  });

  for (const count of [1, 2, 3, 4]) {
    test(`${count} voice(s) in turns give ${count} cluster(s), one per voice`, () => {
      const v = voices(count, 10 + count);
      const truth: number[] = [];
      // turns of 6 windows, voices taking turns in a fixed rotation, 48 windows in all
      for (let i = 0; i < 48; i++) truth.push(Math.floor(i / 6) % count);
      const labels = clusterEmbeddings(truth.map(v));
      expect(new Set(labels).size).toBe(count);
      // the clustering is the truth up to renaming
      const map = new Map<number, number>();
      truth.forEach((t, i) => map.set(t, map.get(t) ?? labels[i]!));
      expect(truth.map((t) => map.get(t))).toEqual(labels);
    });
  }

  test("a voice heard in one window is not a speaker: its window joins the nearest voice", () => {
    const v = voices(3, 7);
    const truth = [...Array(20).fill(0), 2, ...Array(20).fill(1)];
    const labels = clusterEmbeddings(truth.map(v));
    expect(new Set(labels).size).toBe(2);
  });

  test("windows holding two voices at once join the voices' clusters instead of forming their own", () => {
    const v = voices(2, 21);
    const a = Array.from({ length: 16 }, () => v(0));
    const b = Array.from({ length: 16 }, () => v(1));
    const both = Array.from({ length: 16 }, () => v(0).map((x, d) => x + v(1)[d]!));
    const embs = [...a, ...b, ...both];
    const mixed = embs.map((_, i) => i >= 32);
    const labels = clusterEmbeddings(embs, {}, mixed);
    expect(new Set(labels).size).toBe(2);
    expect(new Set(labels.slice(0, 16)).size).toBe(1);
    expect(new Set(labels.slice(16, 32)).size).toBe(1);
    expect(labels[0]).not.toBe(labels[16]);
    // unmarked, the mixtures bridge the two voices and chain them into one cluster
    expect(new Set(clusterEmbeddings(embs)).size).toBe(1);
  });

  test("a known speaker count overrides the threshold", () => {
    const v = voices(3, 3);
    const embs = Array.from({ length: 30 }, (_, i) => v(i % 3));
    expect(new Set(clusterEmbeddings(embs, { numSpeakers: 2 })).size).toBe(2);
    expect(new Set(clusterEmbeddings(embs, { numSpeakers: 1 })).size).toBe(1);
    expect(new Set(clusterEmbeddings(embs)).size).toBe(3);
  });

  test("the largest cluster is 0; empty and single inputs are handled", () => {
    const v = voices(2, 5);
    const labels = clusterEmbeddings([v(1), ...Array.from({ length: 12 }, () => v(0)), v(1), v(1), v(1)]);
    expect(labels[1]).toBe(0);
    expect(labels[0]).toBe(1);
    expect(clusterEmbeddings([])).toEqual([]);
    expect(clusterEmbeddings([v(0)])).toEqual([0]);
  });

  test("subsampled clustering still labels every window", () => {
    const v = voices(2, 9);
    const embs = Array.from({ length: 90 }, (_, i) => v(Math.floor(i / 15) % 2));
    const labels = clusterEmbeddings(embs, { maxClusterWindows: 20 });
    expect(labels.length).toBe(90);
    expect(new Set(labels).size).toBe(2);
    expect(labels[0]).not.toBe(labels[15]);
    expect(labels[0]).toBe(labels[30]);
  });
});

describe("words and turns from window labels", () => {
  const windows = [
    { start: 0, end: 1.5 },
    { start: 0.75, end: 2.25 },
    { start: 1.5, end: 3 },
    { start: 2.25, end: 3.75 },
    { start: 3, end: 4.5 },
  ];
  const labels = [5, 5, 5, 2, 2];

  test("a word takes the cluster whose windows overlap it longest; a word no window touches the nearest", () => {
    const words = [
      { start: 0.2, end: 0.5 },
      { start: 1.6, end: 2.0 },
      { start: 3.9, end: 4.2 },
      { start: 9, end: 9.3 },
    ];
    expect(wordClusters(words, windows, labels)).toEqual([5, 5, 2, 2]);
  });

  test("speakers are named by first appearance in the words; turns follow the window majority", () => {
    const r = diarizeFromEmbeddings([[0, 4.5]], windows, labels.map((l) => (l === 5 ? [1, 0, 0] : [0, 1, 0])), [{ start: 0.2, end: 0.5 }, { start: 4, end: 4.3 }]);
    expect(r.speakers).toEqual(["Speaker 1", "Speaker 2"]);
    expect(r.turns.map((t) => t.speaker)).toEqual(["Speaker 1", "Speaker 2"]);
    expect(r.turns[0]!.start).toBe(0);
    expect(r.turns[1]!.end).toBeCloseTo(4.5, 6);
    // the change falls where the windows change hands
    expect(r.turns[0]!.end).toBeGreaterThan(2);
    expect(r.turns[0]!.end).toBeLessThan(3.2);
  });

  test("inside detected overlap a second speaker is listed: the runner-up of the vote, else the nearest other voice", () => {
    const names = new Map([
      [5, "Speaker 1"],
      [2, "Speaker 2"],
    ]);
    const at = (turns: ReturnType<typeof windowTimeline>, t: number) => turns.filter((x) => x.start <= t && t < x.end).map((x) => x.speaker).sort();
    const single = windowTimeline([[0, 4.5]], windows, labels, names);
    for (let t = 0.05; t < 4.5; t += 0.1) expect(at(single, t)).toHaveLength(1);
    // 0.3-0.6 s: only Speaker 1's windows cover it, so the second voice is the nearest other one in time
    const both = windowTimeline([[0, 4.5]], windows, labels, names, [[0.3, 0.6], [2.4, 2.6]]);
    expect(at(both, 0.45)).toEqual(["Speaker 1", "Speaker 2"]);
    expect(at(both, 2.5)).toEqual(["Speaker 1", "Speaker 2"]);
    expect(at(both, 1.2)).toEqual(["Speaker 1"]);
    expect(at(both, 4.2)).toEqual(["Speaker 2"]);
    expect(at(both, 5)).toEqual([]);
  });
});
