/**
 * Agglomerative clustering of speaker embeddings with the number of speakers estimated from the data.
 * Pure functions over plain vectors so they can be unit-tested with synthetic points.
 */
export type Vec = Float64Array;

export function cosineDistance(a: Vec, b: Vec): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return 1 - dot / (Math.sqrt(na * nb) || 1);
}

export interface Dendrogram {
  /** Cluster label per item after each possible number of clusters k (index k, 1..n). */
  labelsFor(k: number): number[];
  /** Linkage distance of the merge that took n-k+1 clusters down to n-k (merges[0] is the first, closest merge). */
  merges: number[];
}

/** Average-linkage agglomerative clustering on a precomputed distance matrix. O(n^3) — fine for the few hundred windows of an episode after subsampling. */
export function averageLinkage(dist: number[][]): Dendrogram {
  const n = dist.length;
  const members: number[][] = Array.from({ length: n }, (_, i) => [i]);
  const active = new Set(members.map((_, i) => i));
  const d = dist.map((row) => [...row]);
  const merges: number[] = [];
  const history: Array<[number, number]> = [];
  while (active.size > 1) {
    let best = Infinity;
    let bi = -1;
    let bj = -1;
    const ids = [...active];
    for (let x = 0; x < ids.length; x++) {
      for (let y = x + 1; y < ids.length; y++) {
        const v = d[ids[x]!]![ids[y]!]!;
        if (v < best) {
          best = v;
          bi = ids[x]!;
          bj = ids[y]!;
        }
      }
    }
    const si = members[bi]!.length;
    const sj = members[bj]!.length;
    for (const k of active) {
      if (k === bi || k === bj) continue;
      const v = (d[bi]![k]! * si + d[bj]![k]! * sj) / (si + sj);
      d[bi]![k] = v;
      d[k]![bi] = v;
    }
    members[bi] = members[bi]!.concat(members[bj]!);
    active.delete(bj);
    merges.push(best);
    history.push([bi, bj]);
  }
  return {
    merges,
    labelsFor(k: number): number[] {
      const parent = Array.from({ length: n }, (_, i) => i);
      const find = (x: number): number => (parent[x] === x ? x : (parent[x] = find(parent[x]!)));
      for (let m = 0; m < n - k; m++) {
        const [a, b] = history[m]!;
        parent[find(b)] = find(a);
      }
      const roots = new Map<number, number>();
      return Array.from({ length: n }, (_, i) => {
        const r = find(i);
        if (!roots.has(r)) roots.set(r, roots.size);
        return roots.get(r)!;
      });
    },
  };
}

/** Mean silhouette of a labelling (items in singleton clusters count 0). */
export function silhouette(dist: number[][], labels: number[]): number {
  const n = labels.length;
  const k = Math.max(...labels) + 1;
  if (k < 2) return 0;
  let total = 0;
  for (let i = 0; i < n; i++) {
    const sums = new Array<number>(k).fill(0);
    const counts = new Array<number>(k).fill(0);
    for (let j = 0; j < n; j++) {
      if (j === i) continue;
      sums[labels[j]!]! += dist[i]![j]!;
      counts[labels[j]!]!++;
    }
    const own = labels[i]!;
    if (counts[own] === 0) continue;
    const a = sums[own]! / counts[own]!;
    let b = Infinity;
    for (let c = 0; c < k; c++) if (c !== own && counts[c]! > 0) b = Math.min(b, sums[c]! / counts[c]!);
    total += (b - a) / Math.max(a, b);
  }
  return total / n;
}

export interface EstimateOptions {
  maxSpeakers: number;
  /** Below this silhouette the recording is taken to have one speaker. */
  minSilhouette: number;
  /** Clusters smaller than this share of items do not count as a speaker of their own. */
  minClusterShare: number;
}

export const DEFAULT_ESTIMATE: EstimateOptions = { maxSpeakers: 8, minSilhouette: 0.08, minClusterShare: 0.04 };

/**
 * Picks the number of clusters with the best silhouette among those whose clusters are all big enough
 * to be a speaker, or 1 when no split is convincing. Returns labels 0..k-1.
 */
export function clusterWithEstimatedK(dist: number[][], opts: EstimateOptions = DEFAULT_ESTIMATE, fixedK?: number): { k: number; labels: number[]; score: number } {
  const n = dist.length;
  if (n < 2) return { k: 1, labels: new Array(n).fill(0), score: 0 };
  const tree = averageLinkage(dist);
  if (fixedK) {
    const k = Math.min(fixedK, n);
    return { k, labels: tree.labelsFor(k), score: silhouette(dist, tree.labelsFor(k)) };
  }
  let best = { k: 1, labels: tree.labelsFor(1), score: opts.minSilhouette };
  for (let k = 2; k <= Math.min(opts.maxSpeakers, n - 1); k++) {
    const labels = tree.labelsFor(k);
    const sizes = new Array<number>(k).fill(0);
    for (const l of labels) sizes[l]!++;
    if (Math.min(...sizes) < Math.max(2, opts.minClusterShare * n)) continue;
    const s = silhouette(dist, labels);
    if (s > best.score) best = { k, labels, score: s };
  }
  return best;
}
