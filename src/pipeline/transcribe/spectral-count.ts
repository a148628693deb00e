/**
 * A second way to count speakers from the same window embeddings: the eigengap of a pruned affinity
 * graph's Laplacian, with the pruning chosen per recording by the normalised maximum eigengap (NME-SC,
 * Park et al. 2019, "Auto-Tuning Spectral Clustering for Speaker Diarization Using Normalized Maximum
 * Eigengap"). It is measured against the average-linkage threshold of diarize-embeddings.ts
 * (docs/benchmarks/speakers.md) and is chosen with `countEstimator: "eigengap"`.
 *
 * Why it was worth trying: a fixed distance threshold is a global guess, and the hidden recordings
 * fail it both ways (four people found as one and as six). The eigengap asks a relative question instead
 * (how many groups does this recording's own graph fall into), and the pruning adapts to each file.
 *
 * Pure functions over plain matrices, no random part: the same embeddings always give the same count.
 */

/**
 * Eigenvalues (ascending) and eigenvectors of a symmetric matrix: Householder reduction to tridiagonal
 * form, then the implicit QL method (tred2/tql2, as in EISPACK and JAMA). `vectors[i][j]` is component i
 * of the eigenvector of `values[j]`. O(n^3); a few hundred windows take well under a second.
 */
export function symmetricEigen(matrix: number[][]): { values: number[]; vectors: number[][] } {
  const n = matrix.length;
  const V = matrix.map((row) => Float64Array.from(row));
  const d = new Float64Array(n);
  const e = new Float64Array(n);
  if (n === 0) return { values: [], vectors: [] };
  tridiagonalise(n, V, d, e, true);
  diagonalise(n, V, d, e, true);
  return { values: Array.from(d), vectors: V.map((row) => Array.from(row)) };
}

/** Eigenvalues only (ascending): skips accumulating the transformations, about a third of the work. */
export function symmetricEigenvalues(matrix: number[][]): number[] {
  const n = matrix.length;
  if (n === 0) return [];
  const V = matrix.map((row) => Float64Array.from(row));
  const d = new Float64Array(n);
  const e = new Float64Array(n);
  tridiagonalise(n, V, d, e, false);
  diagonalise(n, V, d, e, false);
  return Array.from(d);
}

function tridiagonalise(n: number, V: Float64Array[], d: Float64Array, e: Float64Array, vectors: boolean): void {
  for (let j = 0; j < n; j++) d[j] = V[n - 1]![j]!;
  for (let i = n - 1; i > 0; i--) {
    let scale = 0;
    let h = 0;
    for (let k = 0; k < i; k++) scale += Math.abs(d[k]!);
    if (scale === 0) {
      e[i] = d[i - 1]!;
      for (let j = 0; j < i; j++) {
        d[j] = V[i - 1]![j]!;
        V[i]![j] = 0;
        V[j]![i] = 0;
      }
    } else {
      for (let k = 0; k < i; k++) {
        d[k] = d[k]! / scale;
        h += d[k]! * d[k]!;
      }
      let f = d[i - 1]!;
      let g = Math.sqrt(h);
      if (f > 0) g = -g;
      e[i] = scale * g;
      h -= f * g;
      d[i - 1] = f - g;
      for (let j = 0; j < i; j++) e[j] = 0;
      for (let j = 0; j < i; j++) {
        f = d[j]!;
        V[j]![i] = f;
        g = e[j]! + V[j]![j]! * f;
        for (let k = j + 1; k <= i - 1; k++) {
          g += V[k]![j]! * d[k]!;
          e[k] = e[k]! + V[k]![j]! * f;
        }
        e[j] = g;
      }
      f = 0;
      for (let j = 0; j < i; j++) {
        e[j] = e[j]! / h;
        f += e[j]! * d[j]!;
      }
      const hh = f / (h + h);
      for (let j = 0; j < i; j++) e[j] = e[j]! - hh * d[j]!;
      for (let j = 0; j < i; j++) {
        f = d[j]!;
        g = e[j]!;
        for (let k = j; k <= i - 1; k++) V[k]![j] = V[k]![j]! - (f * e[k]! + g * d[k]!);
        d[j] = V[i - 1]![j]!;
        V[i]![j] = 0;
      }
    }
    d[i] = h;
  }
  if (!vectors) {
    // The reduced matrix's diagonal is left on V's diagonal; the loop below would only move it there.
    for (let j = 0; j < n; j++) d[j] = V[j]![j]!;
    e[0] = 0;
    return;
  }
  for (let i = 0; i < n - 1; i++) {
    V[n - 1]![i] = V[i]![i]!;
    V[i]![i] = 1;
    const h = d[i + 1]!;
    if (h !== 0) {
      for (let k = 0; k <= i; k++) d[k] = V[k]![i + 1]! / h;
      for (let j = 0; j <= i; j++) {
        let g = 0;
        for (let k = 0; k <= i; k++) g += V[k]![i + 1]! * V[k]![j]!;
        for (let k = 0; k <= i; k++) V[k]![j] = V[k]![j]! - g * d[k]!;
      }
    }
    for (let k = 0; k <= i; k++) V[k]![i + 1] = 0;
  }
  for (let j = 0; j < n; j++) {
    d[j] = V[n - 1]![j]!;
    V[n - 1]![j] = 0;
  }
  V[n - 1]![n - 1] = 1;
  e[0] = 0;
}

function diagonalise(n: number, V: Float64Array[], d: Float64Array, e: Float64Array, vectors: boolean): void {
  for (let i = 1; i < n; i++) e[i - 1] = e[i]!;
  e[n - 1] = 0;
  let f = 0;
  let tst1 = 0;
  const eps = 2 ** -52;
  for (let l = 0; l < n; l++) {
    tst1 = Math.max(tst1, Math.abs(d[l]!) + Math.abs(e[l]!));
    let m = l;
    while (m < n - 1 && Math.abs(e[m]!) > eps * tst1) m++;
    if (m > l) {
      do {
        let g = d[l]!;
        let p = (d[l + 1]! - g) / (2 * e[l]!);
        let r = Math.hypot(p, 1);
        if (p < 0) r = -r;
        d[l] = e[l]! / (p + r);
        d[l + 1] = e[l]! * (p + r);
        const dl1 = d[l + 1]!;
        let h = g - d[l]!;
        for (let i = l + 2; i < n; i++) d[i] = d[i]! - h;
        f += h;
        p = d[m]!;
        let c = 1;
        let c2 = c;
        let c3 = c;
        const el1 = e[l + 1]!;
        let s = 0;
        let s2 = 0;
        for (let i = m - 1; i >= l; i--) {
          c3 = c2;
          c2 = c;
          s2 = s;
          g = c * e[i]!;
          h = c * p;
          r = Math.hypot(p, e[i]!);
          e[i + 1] = s * r;
          s = e[i]! / r;
          c = p / r;
          p = c * d[i]! - s * g;
          d[i + 1] = h + s * (c * g + s * d[i]!);
          if (vectors)
            for (let k = 0; k < n; k++) {
            const row = V[k]!;
            h = row[i + 1]!;
            row[i + 1] = s * row[i]! + c * h;
            row[i] = c * row[i]! - s * h;
          }
        }
        p = (-s * s2 * c3 * el1 * e[l]!) / dl1;
        e[l] = s * p;
        d[l] = c * p;
      } while (Math.abs(e[l]!) > eps * tst1);
    }
    d[l] = d[l]! + f;
    e[l] = 0;
  }
  for (let i = 0; i < n - 1; i++) {
    let k = i;
    let p = d[i]!;
    for (let j = i + 1; j < n; j++) if (d[j]! < p) [k, p] = [j, d[j]!];
    if (k === i) continue;
    d[k] = d[i]!;
    d[i] = p;
    if (vectors) for (const row of V) [row[i], row[k]] = [row[k]!, row[i]!];
  }
}

/**
 * The p-neighbour graph: each row keeps its `p` most similar other items as 1 and the rest as 0, and the
 * result is symmetrised ((A + A^T) / 2). Binarising makes the graph depend on the order of similarities
 * within a recording, not on their level, which is what a room or a microphone shifts.
 */
export function pruneAffinity(similarity: number[][], p: number): number[][] {
  const n = similarity.length;
  const kept = similarity.map((row, i) => {
    const order = row.map((v, j) => [v, j] as const).filter(([, j]) => j !== i);
    // Ties broken by index, so the graph never depends on the sort's stability.
    order.sort((a, b) => b[0] - a[0] || a[1] - b[1]);
    const keep = new Float64Array(n);
    for (const [, j] of order.slice(0, p)) keep[j] = 1;
    return keep;
  });
  return kept.map((row, i) => Array.from(row, (v, j) => (v + kept[j]![i]!) / 2));
}

/**
 * Graph Laplacian D - A, or with `normalised` the symmetric normalised one, I - D^-1/2 A D^-1/2 (its
 * eigenvalues lie in 0..2 whatever the degrees, so gaps compare across graphs of different density).
 */
export function laplacian(affinity: number[][], normalised = false): number[][] {
  const degree = affinity.map((row, i) => row.reduce((s, v, j) => (j === i ? s : s + v), 0));
  return affinity.map((row, i) =>
    row.map((v, j) => {
      const l = i === j ? degree[i]! : -v;
      return normalised ? l / Math.sqrt((degree[i]! || 1) * (degree[j]! || 1)) : l;
    }),
  );
}

export interface EigengapCount {
  /** Estimated number of speakers. */
  count: number;
  /** The neighbour count the normalised maximum eigengap chose. */
  p: number;
  /** p / n over the normalised maximum eigengap at that p (lower is a cleaner split). */
  ratio: number;
  /** The smallest eigenvalues of the chosen graph's Laplacian, ascending (maxSpeakers + 1 of them). */
  eigenvalues: number[];
}

export interface EigengapOptions {
  /** Most speakers the eigengap may report. */
  maxSpeakers: number;
  /** Largest neighbour count tried, as a share of the items (NeMo's max_rp_threshold). */
  maxPShare: number;
  /** Smallest neighbour count tried: with 1 neighbour every pair of windows is its own component. */
  minP: number;
  /** Most neighbour counts tried, spread evenly from minP to the largest (NeMo's sparse search): each costs one eigen-decomposition. */
  maxPSteps: number;
  /** Normalised Laplacian instead of D - A (the bench compares both). */
  normalised: boolean;
  /** Kept edges carry their cosine similarity instead of 1. */
  weighted: boolean;
  /** Most items the graph is built on (every k-th beyond it): each p costs O(n^3), and an hour has 600 windows. */
  maxItems: number;
}

/**
 * The settings chosen on the tuning split (docs/benchmarks/speakers.md, scripts/bench/count-grid.ts):
 * from p = 3, D - A, similarity-weighted edges. The paper's are minP 2, D - A, binarised.
 */
export const EIGENGAP_DEFAULTS: EigengapOptions = { maxSpeakers: 10, maxPShare: 0.25, minP: 3, maxPSteps: 20, normalised: false, weighted: true, maxItems: 300 };

/** The neighbour counts tried: every one from minP to maxP, or maxPSteps of them spread evenly. */
export function neighbourCounts(n: number, o: EigengapOptions): number[] {
  const lo = Math.min(o.minP, n - 1);
  const hi = Math.max(lo, Math.min(n - 1, Math.floor(o.maxPShare * n)));
  if (hi - lo + 1 <= o.maxPSteps) return Array.from({ length: hi - lo + 1 }, (_, i) => lo + i);
  return [...new Set(Array.from({ length: o.maxPSteps }, (_, i) => Math.round(lo + ((hi - lo) * i) / (o.maxPSteps - 1))))];
}

/**
 * The number of speakers from a cosine similarity matrix (NME-SC): for each neighbour count p, prune
 * and binarise the graph, take its Laplacian's eigenvalues, and score p by p / n over the largest gap
 * among the first maxSpeakers + 1 eigenvalues, normalised by the largest eigenvalue. The best-scoring p's
 * largest gap gives the count (a gap after the first eigenvalue is one speaker).
 */
export function eigengapCount(similarity: number[][], opts: Partial<EigengapOptions> = {}): EigengapCount {
  const o = { ...EIGENGAP_DEFAULTS, ...opts };
  if (similarity.length > o.maxItems) {
    const step = Math.ceil(similarity.length / o.maxItems);
    const keep = similarity.map((_, i) => i).filter((i) => i % step === 0);
    similarity = keep.map((i) => keep.map((j) => similarity[i]![j]!));
  }
  const n = similarity.length;
  if (n <= 2) return { count: 1, p: 0, ratio: 0, eigenvalues: [] };
  let best: EigengapCount | undefined;
  for (const p of neighbourCounts(n, o)) {
    let graph = pruneAffinity(similarity, p);
    if (o.weighted) graph = graph.map((row, i) => row.map((v, j) => (v > 0 ? Math.max(0, similarity[i]![j]!) : 0)));
    const values = symmetricEigenvalues(laplacian(graph, o.normalised));
    const head = values.slice(0, Math.min(n, o.maxSpeakers + 1));
    let gap = -Infinity;
    let count = 1;
    for (let k = 1; k < head.length; k++) {
      const g = head[k]! - head[k - 1]!;
      if (g > gap) [gap, count] = [g, k];
    }
    const normalised = gap / (values[n - 1]! + 1e-10);
    const ratio = p / n / (normalised + 1e-10);
    if (!best || ratio < best.ratio) best = { count, p, ratio, eigenvalues: head };
  }
  return best!;
}
