/**
 * How many people, from the embedding windows and what the segmentation model says inside its chunks.
 *
 * Why: a fixed cosine threshold on 1.5 s windows is a global guess. Far-field rooms pull every voice's
 * embeddings together (all merged into one person), and a voice heard saying different things can
 * drift apart (one person counted twice). Inside each 10 s chunk the segmentation model already tells
 * voices apart locally, where room and microphone are the same for everyone: two of its local speakers
 * talking alone in one chunk are two people, so windows of the two are never put in one cluster while
 * another merge is left (pyannote's cannot-link constraint, on our windows). The count then cannot
 * fall below what was heard side by side, whatever the threshold.
 *
 * The other half of pyannote's constraints (windows of one local speaker start as one cluster) was
 * tried and is not used: on the shared meetings the model's local speaker often spans two people in a
 * chunk, and binding their windows lost speakers (meeting_trn08 4 -> 2, trn05 3 -> 2).
 */
import { mergeAverage } from "./diarize-cluster.ts";
import type { LocalFrames } from "./diarize-local.ts";

interface Span {
  start: number;
  end: number;
}

/** The local speakers talking in each powerset class: nobody, 1, 2, 3, 1+2, 1+3, 2+3. */
const CLASS_SPEAKERS: number[][] = [[], [0], [1], [2], [0, 1], [0, 2], [1, 2]];

export interface LinkOptions {
  /** Share of a window's frames one local speaker must hold, alone, for the window to be that speaker's. */
  minSoloShare: number;
  /** Seconds a local speaker must talk alone in its chunk before it says anything about identities. */
  minSoloSeconds: number;
}

export const LINK_DEFAULTS: LinkOptions = { minSoloShare: 0.9, minSoloSeconds: 1 };

/**
 * Per window, the (chunk, local speaker) pairs it belongs to: `tags[i]` holds `chunk * 3 + speaker` for
 * every chunk covering window i where that speaker alone fills at least `minSoloShare` of its frames.
 * Two windows with tags of one chunk and different speakers are two people.
 */
export function localSpeakerTags(windows: Span[], local: LocalFrames, opts: Partial<LinkOptions> = {}): number[][] {
  const o = { ...LINK_DEFAULTS, ...opts };
  const tags: number[][] = windows.map(() => []);
  const step = local.frameSeconds;
  // Windows by start, so each chunk only looks at the windows inside it (an hour: 720 chunks, 4,800 windows).
  const order = [...windows.keys()].sort((a, b) => windows[a]!.start - windows[b]!.start);
  const firstFrom = (t: number) => {
    let lo = 0;
    let hi = order.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (windows[order[mid]!]!.start < t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  local.chunks.forEach((chunk, c) => {
    const t0 = chunk.start + local.firstFrameSeconds;
    const frames = chunk.classes.length;
    const soloTotal = [0, 0, 0];
    for (let f = 0; f < frames; f++) {
      const s = CLASS_SPEAKERS[chunk.classes.charCodeAt(f) - 48] ?? [];
      if (s.length === 1) soloTotal[s[0]!]! += step;
    }
    const chunkEnd = t0 + frames * step;
    for (let k = firstFrom(t0 - step / 2); k < order.length && windows[order[k]!]!.start <= chunkEnd; k++) {
      const i = order[k]!;
      const w = windows[i]!;
      if (w.end > chunkEnd + step / 2) continue;
      const from = Math.max(0, Math.round((w.start - t0) / step));
      const to = Math.min(frames, Math.round((w.end - t0) / step));
      if (to <= from) continue;
      const solo = [0, 0, 0];
      for (let f = from; f < to; f++) {
        const s = CLASS_SPEAKERS[chunk.classes.charCodeAt(f) - 48] ?? [];
        if (s.length === 1) solo[s[0]!]! += 1;
      }
      for (let s = 0; s < 3; s++) if (soloTotal[s]! >= o.minSoloSeconds && solo[s]! >= o.minSoloShare * (to - from)) tags[i]!.push(c * 3 + s);
    }
  });
  return tags;
}

/** Whether windows tagged `a` and `b` were heard as two local speakers of one chunk. */
function apart(a: number[], b: number[]): boolean {
  for (const x of a) for (const y of b) if (x !== y && Math.floor(x / 3) === Math.floor(y / 3)) return true;
  return false;
}

export type Stop = { threshold: number } | { clusters: number };

/**
 * Average-linkage clustering of items (distance matrix `dist`) that never merges two groups holding
 * windows of two local speakers of one chunk while any other merge is left. Stops before the first
 * merge at or over `threshold`, or at `clusters` groups (the links then give way where they must, so
 * the count asked for is reached). Returns a group label per item, 0..k-1, in order of first item.
 */
export function linkedClusters(dist: number[][], tags: number[][], stop: Stop): number[] {
  const n = dist.length;
  if (n === 0) return [];
  const members: number[][] = Array.from({ length: n }, (_, i) => [i]);
  const d = dist.map((row) => [...row]);
  const cannot: boolean[][] = tags.map((a) => tags.map((b) => apart(a, b)));
  const active = new Set(members.keys());
  const target = "clusters" in stop ? Math.max(1, stop.clusters) : 1;
  while (active.size > target) {
    let best = Infinity;
    let bi = -1;
    let bj = -1;
    let bestApart = Infinity;
    let ai = -1;
    let aj = -1;
    const ids = [...active];
    for (let x = 0; x < ids.length; x++) {
      for (let y = x + 1; y < ids.length; y++) {
        const a = ids[x]!;
        const b = ids[y]!;
        const v = d[a]![b]!;
        if (cannot[a]![b]) {
          if (v < bestApart) [bestApart, ai, aj] = [v, a, b];
        } else if (v < best) [best, bi, bj] = [v, a, b];
      }
    }
    if ("threshold" in stop) {
      if (bi < 0 || best >= stop.threshold) break;
    } else if (bi < 0) [bi, bj] = [ai, aj];
    mergeAverage(d, members, active, bi, bj, (k) => (cannot[bi]![k] = cannot[k]![bi] = cannot[bi]![k]! || cannot[bj]![k]!));
  }
  const labels = new Array<number>(n).fill(0);
  [...active].sort((a, b) => Math.min(...members[a]!) - Math.min(...members[b]!)).forEach((g, label) => {
    for (const i of members[g]!) labels[i] = label;
  });
  return labels;
}
