/**
 * Agglomerative clustering of window embeddings: the diarizer's first, deliberately too fine, grouping.
 * Pure functions over plain vectors so they can be unit-tested with synthetic points.
 */
import { cosine } from "../vector-math.ts";

export type Vec = Float64Array;

export function cosineDistance(a: Vec, b: Vec): number {
  return 1 - cosine(a, b);
}

export interface Dendrogram {
  /** Cluster label per item after each possible number of clusters k (index k, 1..n). */
  labelsFor(k: number): number[];
  /** Linkage distance of the merge that took n-k+1 clusters down to n-k (merges[0] is the first, closest merge). */
  merges: number[];
}

/**
 * One average-linkage merge, in place: cluster bj joins bi, bi's distance to every other active
 * cluster becomes the size-weighted mean of the two, and bj leaves `active`. `each(k)` runs for every
 * other active cluster k, for state that merges along with the distances (the cannot-links of
 * speaker-count.ts).
 */
export function mergeAverage(d: number[][], members: number[][], active: Set<number>, bi: number, bj: number, each?: (k: number) => void): void {
  const si = members[bi]!.length;
  const sj = members[bj]!.length;
  for (const k of active) {
    if (k === bi || k === bj) continue;
    const v = (d[bi]![k]! * si + d[bj]![k]! * sj) / (si + sj);
    d[bi]![k] = v;
    d[k]![bi] = v;
    each?.(k);
  }
  members[bi] = members[bi]!.concat(members[bj]!);
  active.delete(bj);
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
    mergeAverage(d, members, active, bi, bj);
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
