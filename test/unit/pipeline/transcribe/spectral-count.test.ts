/** The eigengap speaker count (NME-SC) and the eigen-solver under it, on constructed voices. */
import { expect, test } from "bun:test";
import { eigengapCount, laplacian, neighbourCounts, pruneAffinity, symmetricEigen, symmetricEigenvalues, EIGENGAP_DEFAULTS } from "../../../../src/pipeline/transcribe/spectral-count.ts";
import { clusterEmbeddings } from "../../../../src/pipeline/transcribe/diarize-embeddings.ts";

/** Deterministic pseudo-random numbers so the tests cannot flake. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
}

const DIM = 48;
/** `perVoice[v]` embeddings of voice v: a random direction each plus noise (same voice ~0.8 cosine, others ~0). */
function voices(perVoice: number[], seed: number, noise = 0.5): number[][] {
  const r = rng(seed);
  const unit = () => {
    const v = Array.from({ length: DIM }, () => r() - 0.5);
    const n = Math.hypot(...v);
    return v.map((x) => x / n);
  };
  const dirs = perVoice.map(unit);
  return perVoice.flatMap((n, voice) =>
    Array.from({ length: n }, () => {
      const e = unit();
      return dirs[voice]!.map((x, d) => x + noise * e[d]!);
    }),
  );
}

function cosineSimilarity(vecs: number[][]): number[][] {
  const unit = vecs.map((v) => {
    const n = Math.hypot(...v);
    return v.map((x) => x / n);
  });
  return unit.map((a) => unit.map((b) => a.reduce((s, x, d) => s + x * b[d]!, 0)));
}

test("the eigen-solver returns A v = lambda v with the eigenvalues ascending, and the values-only path agrees", () => {
  const r = rng(5);
  for (const n of [1, 2, 3, 7, 40]) {
    const b = Array.from({ length: n }, () => Array.from({ length: n }, () => r() - 0.5));
    const a = b.map((row, i) => row.map((_, j) => b[i]![j]! + b[j]![i]!));
    const { values, vectors } = symmetricEigen(a);
    for (let j = 0; j < n; j++) {
      for (let i = 0; i < n; i++) {
        const av = a[i]!.reduce((s, x, k) => s + x * vectors[k]![j]!, 0);
        expect(Math.abs(av - values[j]! * vectors[i]![j]!)).toBeLessThan(1e-9);
      }
      if (j > 0) expect(values[j]!).toBeGreaterThanOrEqual(values[j - 1]!);
    }
    expect(symmetricEigenvalues(a)).toEqual(values);
  }
  expect(symmetricEigen([])).toEqual({ values: [], vectors: [] });
});

test("a graph of three separate groups has three zero Laplacian eigenvalues, then a gap", () => {
  const block = (sizes: number[]) => {
    const n = sizes.reduce((a, b) => a + b, 0);
    const group = sizes.flatMap((s, g) => Array(s).fill(g));
    return Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => (i !== j && group[i] === group[j] ? 1 : 0)));
  };
  for (const normalised of [false, true]) {
    const values = symmetricEigenvalues(laplacian(block([4, 5, 3]), normalised));
    expect(values.slice(0, 3).every((v) => Math.abs(v) < 1e-9)).toBe(true);
    expect(values[3]!).toBeGreaterThan(0.5);
  }
});

test("pruning keeps each row's p most similar others, symmetrised, and never the item itself", () => {
  const sim = [
    [1, 0.9, 0.25, 0.2],
    [0.9, 1, 0.3, 0.1],
    [0.25, 0.3, 1, 0.8],
    [0.2, 0.1, 0.8, 1],
  ];
  const a = pruneAffinity(sim, 1);
  expect(a).toEqual([
    [0, 1, 0, 0],
    [1, 0, 0, 0],
    [0, 0, 0, 1],
    [0, 0, 1, 0],
  ]);
  // Row 0 keeps 1 and 2, row 1 keeps 0 and 2, row 2 keeps 3 and 1, row 3 keeps 2 and 0: 0-2 and 0-3 are kept one way only.
  expect(pruneAffinity(sim, 2)).toEqual([
    [0, 1, 0.5, 0.5],
    [1, 0, 1, 0],
    [0.5, 1, 0, 1],
    [0.5, 0, 1, 0],
  ]);
  expect(pruneAffinity(sim, 2).every((row, i) => row[i] === 0)).toBe(true);
});

test("the neighbour counts tried: all of them for a short file, a spread for a long one", () => {
  expect(neighbourCounts(40, EIGENGAP_DEFAULTS)).toEqual([3, 4, 5, 6, 7, 8, 9, 10]);
  const many = neighbourCounts(600, EIGENGAP_DEFAULTS);
  expect(many.length).toBeLessThanOrEqual(EIGENGAP_DEFAULTS.maxPSteps);
  expect(many[0]).toBe(EIGENGAP_DEFAULTS.minP);
  expect(many.at(-1)).toBe(150);
});

test("the eigengap finds the number of well-separated voices, balanced or not", () => {
  const cases: Array<[number[], number]> = [
    [[30], 1],
    [[15, 15], 2],
    [[20, 12, 10], 3],
    [[12, 12, 12, 12], 4],
    // Unbalanced: one voice holds most of the windows, the others 8 and 6 (a host and two short guests).
    [[40, 8, 6], 3],
  ];
  for (const [perVoice, speakers] of cases) {
    for (const seed of [1, 2, 3]) expect({ perVoice, seed, count: eigengapCount(cosineSimilarity(voices(perVoice, seed))).count }).toEqual({ perVoice, seed, count: speakers });
  }
});

test("the paper's settings (binarised, D - A, from p = 2) count the same separated voices", () => {
  const paper = { minP: 2, normalised: false, weighted: false };
  expect(eigengapCount(cosineSimilarity(voices([20, 12, 10], 4)), paper).count).toBe(3);
  expect(eigengapCount(cosineSimilarity(voices([30], 4)), paper).count).toBe(1);
});

test("one or two windows are one speaker, and the count never passes maxSpeakers", () => {
  expect(eigengapCount([]).count).toBe(1);
  expect(eigengapCount([[1]]).count).toBe(1);
  expect(eigengapCount(cosineSimilarity(voices([1, 1], 1))).count).toBe(1);
  const five = cosineSimilarity(voices([10, 10, 10, 10, 10], 6));
  expect(eigengapCount(five).count).toBe(5);
  expect(eigengapCount(five, { maxSpeakers: 3 }).count).toBeLessThanOrEqual(3);
});

test("the same embeddings give the same count every time, in any order", () => {
  const e = voices([18, 9, 7], 8);
  const sim = cosineSimilarity(e);
  const first = eigengapCount(sim);
  for (let run = 0; run < 3; run++) expect(eigengapCount(sim)).toEqual(first);
  const r = rng(11);
  const order = e.map((_, i) => i).sort(() => r() - 0.5);
  const shuffled = cosineSimilarity(order.map((i) => e[i]!));
  expect(eigengapCount(shuffled).count).toBe(first.count);
});

/** Voices in a far-field room: every embedding shares the room's direction, the voices differ by `spread` around it. */
function room(perVoice: number[], seed: number, spread = 0.5, noise = 0.2): number[][] {
  const r = rng(seed);
  const unit = () => {
    const v = Array.from({ length: DIM }, () => r() - 0.5);
    const n = Math.hypot(...v);
    return v.map((x) => x / n);
  };
  const base = unit();
  const dirs = perVoice.map(unit);
  return perVoice.flatMap((n, voice) =>
    Array.from({ length: n }, () => {
      const e = unit();
      return base.map((x, d) => x + spread * dirs[voice]![d]! + noise * e[d]!);
    }),
  );
}

test("the diarizer's count can come from the eigengap instead of the threshold, and the small-cluster rules still apply", () => {
  // Three people in a room that pulls their embeddings together: the fixed threshold hears one person
  // (the hidden meeting where four people were found as one); the eigengap, relative to the recording's
  // own graph, reads three.
  const count = (labels: number[]) => new Set(labels).size;
  for (const seed of [9, 10]) {
    const e = room([20, 16, 12], seed);
    expect(count(clusterEmbeddings(e, {}))).toBe(1);
    expect(count(clusterEmbeddings(e, { countEstimator: "eigengap" }))).toBe(3);
  }
  // A one-window stray voice added is not a person, whichever estimator reads the count.
  const withStray = [...voices([20, 16, 12], 9), ...voices([1], 10)];
  expect(count(clusterEmbeddings(withStray, { countEstimator: "eigengap" }))).toBe(3);
});

test("a long recording's graph is built on every k-th window and still finds its voices", () => {
  const e = voices([160, 140, 100], 12);
  const sim = cosineSimilarity(e);
  expect(eigengapCount(sim, { maxItems: 100 }).count).toBe(3);
  expect(eigengapCount(sim, { maxItems: 100 }).eigenvalues.length).toBe(EIGENGAP_DEFAULTS.maxSpeakers + 1);
});
