/** The VBx-style pass: too many starting clusters come down to the voices there are. */
import { expect, test } from "bun:test";
import { recordingSpace, vbResegment } from "../../../../src/pipeline/transcribe/vb-resegment.ts";
import { clusterEmbeddings } from "../../../../src/pipeline/transcribe/diarize-embeddings.ts";

/** Deterministic pseudo-random numbers so the tests cannot flake. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
}

const DIM = 48;
/** Embeddings for a sequence of voices (`voiceOf[t]` per window): a random direction each plus noise. */
function embed(voiceOf: number[], seed: number, noise = 0.5): number[][] {
  const r = rng(seed);
  const unit = () => {
    const v = Array.from({ length: DIM }, () => r() - 0.5);
    const n = Math.hypot(...v);
    return v.map((x) => x / n);
  };
  const dirs = Array.from({ length: Math.max(...voiceOf) + 1 }, unit);
  return voiceOf.map((v) => {
    const e = unit();
    return dirs[v]!.map((x, d) => x + noise * e[d]!);
  });
}

/** One voice after another, `perVoice[v]` windows each. */
const blocks = (perVoice: number[]) => perVoice.flatMap((n, v) => Array<number>(n).fill(v));
/** Each voice's windows split into `parts` starting clusters (the too-fine start VBx expects). */
const splitEach = (perVoice: number[], parts: number) => perVoice.flatMap((n, v) => Array.from({ length: n }, (_, i) => v * parts + Math.floor((i * parts) / n)));
/** Whether two labellings group the windows the same way. */
const samePartition = (a: number[], b: number[]) => a.every((x, i) => a.every((y, j) => (x === y) === (b[i] === b[j])));

test("voices each started as two or three clusters come back as one cluster each, balanced or not", () => {
  const cases = [[30], [15, 15], [20, 12, 10], [12, 12, 12, 12], [40, 8, 6]];
  for (const perVoice of cases) {
    for (const parts of [2, 3]) {
      for (const seed of [1, 2]) {
        const truth = blocks(perVoice);
        const labels = vbResegment(embed(truth, seed), splitEach(perVoice, parts));
        expect({ perVoice, parts, seed, count: new Set(labels).size, same: samePartition(labels, truth) }).toEqual({ perVoice, parts, seed, count: perVoice.length, same: true });
      }
    }
  }
});

test("two people taking turns, every turn started as its own cluster, end as two", () => {
  // Turns of 5 windows, A B A B ...: 8 turns, 8 starting clusters.
  const truth = Array.from({ length: 40 }, (_, t) => Math.floor(t / 5) % 2);
  const init = Array.from({ length: 40 }, (_, t) => Math.floor(t / 5));
  const labels = vbResegment(embed(truth, 4), init);
  expect(new Set(labels).size).toBe(2);
  expect(samePartition(labels, truth)).toBe(true);
});

test("one cluster or under three windows is one speaker; the same input always gives the same labels", () => {
  expect(vbResegment([], [])).toEqual([]);
  expect(vbResegment(embed([0, 1], 1), [0, 1])).toEqual([0, 0]);
  expect(vbResegment(embed([0, 0, 0, 0], 1), [5, 5, 5, 5])).toEqual([0, 0, 0, 0]);
  const truth = blocks([18, 9, 7]);
  const e = embed(truth, 8);
  const first = vbResegment(e, splitEach([18, 9, 7], 2));
  for (let run = 0; run < 3; run++) expect(vbResegment(e, splitEach([18, 9, 7], 2))).toEqual(first);
});

test("the recording's space puts the spread inside the starting clusters at 1 and the voices apart", () => {
  const perVoice = [20, 20];
  const { x, phi } = recordingSpace(embed(blocks(perVoice), 3), blocks(perVoice), 16);
  expect(x[0]!.length).toBe(16);
  // Within-cluster variance, averaged over the directions, is 1 by construction.
  let within = 0;
  for (const v of [0, 1]) {
    const members = x.filter((_, i) => blocks(perVoice)[i] === v);
    for (let d = 0; d < 16; d++) {
      const m = members.reduce((s, p) => s + p[d]!, 0) / members.length;
      within += members.reduce((s, p) => s + (p[d]! - m) ** 2, 0);
    }
  }
  expect(within / (40 - 2) / 16).toBeCloseTo(1, 6);
  // The direction that separates the two voices carries far more between-speaker variance than the others.
  expect(Math.max(...phi)).toBeGreaterThan(10 * phi.slice().sort((a, b) => a - b)[8]!);
});

test("the diarizer can read its count from the VBx-style pass, and the small-cluster rules still apply", () => {
  const perVoice = [20, 16, 12];
  const e = embed(blocks(perVoice), 9);
  const count = (labels: number[]) => new Set(labels).size;
  expect(count(clusterEmbeddings(e, { countEstimator: "vbx" }))).toBe(3);
  // Started from a tree cut far too low (seven clusters, as the threshold there would leave), the pass still ends at three.
  expect(count(clusterEmbeddings(e, { threshold: 0.2 }))).toBe(7);
  expect(count(clusterEmbeddings(e, { countEstimator: "vbx", vbInitThreshold: 0.2 }))).toBe(3);
  const withStray = [...e, ...embed([0], 10)];
  expect(count(clusterEmbeddings(withStray, { countEstimator: "vbx" }))).toBe(3);
});
