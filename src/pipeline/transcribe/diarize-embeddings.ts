/**
 * Diarization from neural speaker embeddings: short overlapping windows over the detected speech, one
 * embedding each (computed by the speech runtime), agglomerative clustering with the speaker count
 * read off a distance threshold, then words labelled by the windows they overlap (whisperX style).
 * Pure functions over plain vectors, so clustering and counting can be tested on constructed points.
 */
import { averageLinkage, cosineDistance, type Vec } from "./diarize-cluster.ts";
import { TurnBuilder, type SpeakerTurn } from "./speaker-turns.ts";
import { reconstructSpeakers, wordSpeakersFromActivity, type LocalFrames } from "./diarize-local.ts";
import { mergeRegions, withoutRegions, type Region } from "./vad.ts";
import { linkedClusters, localSpeakerTags, type LinkOptions } from "./speaker-count.ts";
import { eigengapCount, type EigengapOptions } from "./spectral-count.ts";
import { vbResegment, type VbOptions } from "./vb-resegment.ts";

export interface Window {
  start: number;
  end: number;
}

export interface EmbeddingDiarizeOptions {
  /** Known number of speakers; otherwise estimated from the threshold. */
  numSpeakers?: number;
  /** Average-linkage cosine distance below which two groups of windows are one voice (tuned on the AMI openings and the phone call). */
  threshold?: number;
  /** Clusters holding less than this share of the windows are not speakers: their windows join the nearest speaker. */
  minClusterShare?: number;
  /**
   * ...nor those of fewer windows than this, where the segmentation model says how much of them is
   * confident speech (`minSpeakerSeconds` then keeps coughs and noise out): one window, so that a
   * person who says one sentence of a second or more is counted ("Aren't they suing you?" on
   * meeting_trn06). Without that evidence a voice needs UNCONFIRMED_MIN_WINDOWS.
   */
  minClusterWindows?: number;
  /** Most windows clustered directly (clustering is cubic); the rest join the nearest centroid. */
  maxClusterWindows?: number;
  /**
   * Seconds of confident speech a cluster needs to count as a person: time its single-voice windows
   * spend where the segmentation model hears speech (music, singing and laughter that only the VAD
   * took for speech do not count). Its windows otherwise join the nearest person.
   */
  minSpeakerSeconds?: number;
  /**
   * The segmentation model's local speakers keep windows of two people apart (speaker-count.ts).
   * Off by default: on the shared files it changed no label, and on the bundled two-host demo it split
   * one voice the model heard as two local speakers into a third person, the over-count that the
   * hidden recordings already suffer from. Kept for the benches (diarize-sweep.ts --links).
   */
  links?: boolean | Partial<LinkOptions>;
  /**
   * How the count is read when none is given: "threshold" (average linkage stops at `threshold`) or
   * "eigengap" (spectral-count.ts; the tree is then cut at that many clusters) or "vbx" (vb-resegment.ts,
   * started from the tree cut at `vbInitThreshold`). Measured against each other in
   * docs/benchmarks/speakers.md; the small-cluster rules apply to all three.
   */
  countEstimator?: "threshold" | "eigengap" | "vbx";
  /**
   * Silero's mean probability over a window below which its speech is not confident (where the
   * windows' Silero means are given): a laugh, which the segmentation model hears as speech and Silero
   * mostly does not (median 0.27 over the laughs of scripts/bench/laughter.ts, 0.89 over the talk).
   * Off (0) by default: on the AMI openings Silero doubts real far-field voices as much (meeting_trn07's
   * second speaker reads 0.01-0.23), and at 0.3 that voice was lost (activity DER 53 → 70 % there).
   * Kept for the benches (diarize-sweep.ts --min-voice); docs/benchmarks/speakers.md.
   */
  minVoice?: number;
  /**
   * Stretches known to be no one's speech, left out of confident speech: under a given count, the time
   * of a voice that took a place and said no word (a laugh, a cough), so that the places go to people.
   */
  notSpeech?: Region[];
  /** Settings of the eigengap estimate (spectral-count.ts EIGENGAP_DEFAULTS otherwise). */
  eigengap?: Partial<EigengapOptions>;
  /** Settings of the VBx-style pass (vb-resegment.ts VB_DEFAULTS otherwise). */
  vb?: Partial<VbOptions>;
  /** Where the tree is cut to start the VBx-style pass: below `threshold`, so it starts with too many clusters. */
  vbInitThreshold?: number;
}

/** Where a cluster's speech is confident: its windows' times, and the speech the segmentation model is sure of. */
export interface ConfidentSpeech {
  windows: Window[];
  /** Speech the segmentation model hears, less where it hears two voices at once. */
  regions: Region[];
  /** Per window, music or singing (music-windows.ts): none of it is confident speech, whatever the segmentation model hears. */
  music?: boolean[];
  /** Per window, Silero's mean probability of speech: under `minVoice` it is not confident speech. */
  voice?: number[];
}

/** How many clusters too small to be a person a given count looks past (each look is one more cut of the tree). */
const MAX_OUTLIER_CLUSTERS = 20;

/** A cluster with at least this share of its windows music (music-windows.ts) is not a person. */
const MUSIC_CLUSTER_SHARE = 0.5;

/** Without the segmentation model a voice heard in a single window (under 1.5 s) is too easily a cough or a laugh. */
const UNCONFIRMED_MIN_WINDOWS = 2;

/**
 * minClusterShare: share of the (sampled) windows a voice needs, unaided, to be a person: a guard on long
 * recordings against one-off bursts the other rules miss. 1 % is about 2 s a minute of speech (an hour's
 * 600 sampled windows: 6, some 36 s); at 2 % the ten AMI openings joined (300 s, 21 people each saying
 * 1-30 s) found 7 people, at 1 % 18 (docs/benchmarks/speakers.md, 2026-11-28).
 */
export const EMBEDDING_DEFAULTS = { threshold: 0.65, minClusterShare: 0.01, minClusterWindows: 1, maxClusterWindows: 600, minSpeakerSeconds: 1, minVoice: 0 };

/**
 * Windows of `length` seconds every `hop` seconds inside each speech region; a region shorter than
 * `length` is one window, and the last window of a region ends on the region's end so no speech is left
 * out. Regions shorter than `minLength` are too short to say anything about a voice.
 */
export function embeddingWindows(regions: Region[], length = 1.5, hop = 0.75, minLength = 0.4): Window[] {
  const out: Window[] = [];
  for (const [a, b] of regions) {
    if (b - a < minLength) continue;
    if (b - a <= length) {
      out.push({ start: a, end: b });
      continue;
    }
    let t = a;
    for (; t + length < b; t += hop) out.push({ start: round(t), end: round(t + length) });
    if (out[out.length - 1]!.end < b) out.push({ start: round(b - length), end: b });
  }
  return out;
}

const round = (t: number) => Math.round(t * 1000) / 1000;

function normalise(v: ArrayLike<number>): Vec {
  let n = 0;
  for (let i = 0; i < v.length; i++) n += v[i]! * v[i]!;
  n = Math.sqrt(n) || 1;
  return Float64Array.from(v, (x) => x / n);
}

function centroids(vecs: Vec[], labels: number[], k: number): Vec[] {
  const dim = vecs[0]!.length;
  const sums = Array.from({ length: k }, () => new Float64Array(dim));
  labels.forEach((c, i) => {
    for (let d = 0; d < dim; d++) sums[c]![d]! += vecs[i]![d]!;
  });
  return sums.map(normalise);
}

function nearest(v: Vec, centres: Vec[]): number {
  let best = 0;
  for (let c = 1; c < centres.length; c++) if (cosineDistance(v, centres[c]!) < cosineDistance(v, centres[best]!)) best = c;
  return best;
}

/**
 * Cluster label per embedding (0..k-1, largest cluster first). The count is the number of
 * average-linkage clusters whose merge distance stays above the threshold, less the clusters too small
 * to be a speaker (a cough, a laugh, a crosstalk burst); a given numSpeakers overrides the threshold.
 */
export function clusterEmbeddings(embeddings: ArrayLike<number>[], opts: EmbeddingDiarizeOptions = {}, mixed: boolean[] = [], confident?: ConfidentSpeech, tags?: number[][]): number[] {
  const o = { ...EMBEDDING_DEFAULTS, ...opts };
  const n = embeddings.length;
  if (n === 0) return [];
  if (n === 1 || o.numSpeakers === 1) return embeddings.map(() => 0);
  const vecs = embeddings.map(normalise);
  // Windows holding two voices at once embed between them and chain clusters together: the clusters
  // are formed from the single-voice windows (when there are enough) and the mixed ones only join them.
  const clean = vecs.map((_, i) => i).filter((i) => !mixed[i]);
  const pool = clean.length >= Math.max(2, n / 2) ? clean : vecs.map((_, i) => i);
  const step = Math.max(1, Math.ceil(pool.length / o.maxClusterWindows));
  const picked = pool.filter((_, k) => k % step === 0);
  const dist = picked.map((i) => picked.map((j) => cosineDistance(vecs[i]!, vecs[j]!)));
  // The clusters that can be a person, biggest first: not a cough, a laugh, a crosstalk burst or noise
  // before the talk. Counting unaided, a person also needs a share of the windows, so that one odd
  // window does not add a speaker; with a given count only confident speech decides, since the caller
  // says a quiet person is there (meeting_trn03's second voice is one window with 1.5 s of speech).
  const people = (labels: number[], countGiven = false) => {
    const sizes = new Map<number, number>();
    for (const l of labels) sizes.set(l, (sizes.get(l) ?? 0) + 1);
    const size = (c: number) => sizes.get(c)!;
    const seconds = (c: number) => (confident ? confidentSeconds(confident, picked.filter((_, i) => labels[i] === c && !mixed[picked[i]!]), o.minVoice) : Infinity);
    const enough = (c: number) => countGiven || size(c) >= Math.max(confident ? o.minClusterWindows : UNCONFIRMED_MIN_WINDOWS, o.minClusterShare * picked.length);
    return [...new Set(labels)].filter((c) => enough(c) && seconds(c) >= o.minSpeakerSeconds && !isMusic(labels, c)).sort((a, b) => size(b) - size(a));
  };
  // A voice mostly heard over music or singing is the music (a theme tune, a song), not a person.
  const isMusic = (labels: number[], c: number) => {
    if (!confident?.music) return false;
    const ids = picked.filter((_, i) => labels[i] === c);
    return ids.filter((w) => confident.music![w]).length >= MUSIC_CLUSTER_SHARE * ids.length;
  };
  const pickedTags = tags && picked.map((i) => tags[i] ?? []);
  const tree = pickedTags ? undefined : averageLinkage(dist);
  const labelsFor = (k: number) => (pickedTags ? linkedClusters(dist, pickedTags, { clusters: k }) : tree!.labelsFor(k));
  let labels: number[];
  let kept: number[];
  if (o.numSpeakers !== undefined) {
    // A given count is of people: outliers must not take places in it. Cut finer until that many
    // clusters are big enough to be people, keep those, and let the outliers' windows join them; when no
    // cut has that many (too little speech), the count's clusters are kept whatever their size.
    const n = Math.min(o.numSpeakers, picked.length);
    const found = givenCountOfPeople(n, Math.min(picked.length, n + MAX_OUTLIER_CLUSTERS), labelsFor, (l) => people(l, true));
    labels = found?.labels ?? labelsFor(n);
    kept = found?.kept ?? [...new Set(labels)];
  } else {
    if (pickedTags) labels = linkedClusters(dist, pickedTags, { threshold: o.threshold });
    else {
      const k =
        o.countEstimator === "eigengap"
          ? eigengapCount(dist.map((row) => row.map((v) => 1 - v)), o.eigengap).count
          : Math.max(1, picked.length - tree!.merges.filter((m) => m < (o.countEstimator === "vbx" ? (o.vbInitThreshold ?? 0.5) : o.threshold)).length);
      labels = tree!.labelsFor(k);
      if (o.countEstimator === "vbx") labels = vbResegment(picked.map((i) => vecs[i]!), labels, o.vb);
    }
    const big = people(labels);
    kept = big.length ? big : [...new Set(labels)];
  }
  const pickedVecs = picked.map((i) => vecs[i]!);
  const remap = new Map(kept.map((c, i) => [c, i]));
  // The music keeps centroids of its own (numbered after the people's), so that the windows nearest it
  // are nobody's speech: a theme tune is not a stretch of the host's turn.
  const music = [...new Set(labels)].filter((c) => !remap.has(c) && isMusic(labels, c));
  const groups = new Map([...kept, ...music].map((c, i) => [c, i]));
  let centres = centroids(
    pickedVecs.filter((_, i) => groups.has(labels[i]!)),
    labels.filter((l) => groups.has(l)).map((l) => groups.get(l)!),
    groups.size,
  );
  // One reassignment pass to the centroids: places the windows clustered early by a chain of merges,
  // the small clusters' windows, and the windows left out of a subsampled clustering.
  const formed = labels;
  // A count the caller gave is a promise that many people talk: a voice the reassignment would empty
  // keeps the windows that formed it.
  const keepEvery = (next: number[]) => {
    if (o.numSpeakers === undefined) return next;
    for (const [c, id] of remap) if (!next.includes(id)) picked.forEach((w, i) => formed[i] === c && (next[w] = id));
    return next;
  };
  labels = keepEvery(vecs.map((v) => nearest(v, centres)));
  centres = centroids(
    pool.map((i) => vecs[i]!),
    pool.map((i) => labels[i]!),
    groups.size,
  );
  labels = keepEvery(vecs.map((v) => nearest(v, centres)));
  const voices = labels.filter((l) => l < kept.length);
  const bySize = [...new Set(voices)].sort((a, b) => voices.filter((l) => l === b).length - voices.filter((l) => l === a).length);
  return labels.map((l) => (l < kept.length ? bySize.indexOf(l) : MUSIC_LABEL));
}

/** The label of a window nearest the music: nobody speaks there. */
export const MUSIC_LABEL = -1;

/**
 * The finest cut, from `count` clusters up, at which `count` clusters are people (`people` lists a
 * cut's clusters big enough to be one, biggest first): its labels and those `count` clusters. Each
 * finer cut splits one cluster in two, so the number of people grows by at most one a step and the
 * first cut that reaches `count` has exactly that many. Undefined when no cut of `limit` windows does.
 */
export function givenCountOfPeople(count: number, limit: number, labelsFor: (k: number) => number[], people: (labels: number[]) => number[]): { labels: number[]; kept: number[] } | undefined {
  for (let k = count; k <= limit; k++) {
    const labels = labelsFor(k);
    const big = people(labels);
    if (big.length >= count) return { labels, kept: big.slice(0, count) };
  }
  return undefined;
}

/**
 * Seconds of `confident.regions` the windows numbered `ids` cover together (overlapping windows count
 * once), leaving out music windows and those where Silero's mean is under `minVoice`.
 */
export function confidentSeconds(confident: ConfidentSpeech, ids: number[], minVoice = 0): number {
  const spans = ids
    .filter((i) => !confident.music?.[i] && (confident.voice?.[i] ?? 1) >= minVoice)
    .map((i) => [confident.windows[i]!.start, confident.windows[i]!.end] as Region)
    .sort((a, b) => a[0] - b[0]);
  const merged = mergeRegions(spans);
  let total = 0;
  for (const [a, b] of merged) for (const [c, d] of confident.regions) total += Math.max(0, Math.min(b, d) - Math.max(a, c));
  return total;
}

interface TimedWord {
  start: number;
  end: number;
}

/**
 * Cluster per word: the cluster whose windows overlap the word longest (a window's overlap counts in
 * full for each window covering it, so the middle of a turn outvotes its edges); a word no window
 * touches takes the nearest window's cluster.
 */
export function wordClusters(words: TimedWord[], windows: Window[], labels: number[]): number[] {
  if (!windows.length) return words.map(() => 0);
  return words.map((w) => {
    const votes = new Map<number, number>();
    const end = Math.max(w.end, w.start + 0.05);
    windows.forEach((win, i) => {
      const ov = Math.min(end, win.end) - Math.max(w.start, win.start);
      if (ov > 0) votes.set(labels[i]!, (votes.get(labels[i]!) ?? 0) + ov);
    });
    if (votes.size) return [...votes].sort((a, b) => b[1] - a[1])[0]![0];
    const mid = (w.start + end) / 2;
    let best = 0;
    windows.forEach((win, i) => {
      const d = Math.abs((win.start + win.end) / 2 - mid);
      if (d < Math.abs((windows[best]!.start + windows[best]!.end) / 2 - mid)) best = i;
    });
    return labels[best]!;
  });
}

/**
 * Who spoke when from the windows alone (speech the recogniser found no words in is labelled too): each
 * stretch of a speech region goes to the cluster holding most of the windows that cover it (windows
 * weighted towards their middle), cut where the majority changes. Inside `overlaps` (where the
 * segmentation model hears two people at once) a second speaker is active as well: the runner-up of the
 * vote there, or else the nearest other voice in time (overlap is mostly a reply starting or a
 * backchannel, so the neighbouring turn's speaker is the likely second voice). `names` maps a cluster to
 * the label its words got.
 */
export function windowTimeline(regions: Region[], windows: Window[], labels: number[], names: Map<number, string>, overlaps: Region[] = [], step = 0.05): SpeakerTurn[] {
  const out = new TurnBuilder();
  const nameOf = (c: number) => names.get(c) ?? `Speaker ${c + 1}`;
  const centre = (w: Window) => (w.start + w.end) / 2;
  const nearestOther = (t: number, than: number): number | undefined => {
    let best: number | undefined;
    let dist = Infinity;
    windows.forEach((w, i) => {
      const d = Math.abs(centre(w) - t);
      if (labels[i] !== than && d < dist) {
        dist = d;
        best = labels[i];
      }
    });
    return best;
  };
  let wi = 0;
  for (const [a, b] of regions) {
    while (wi < windows.length && windows[wi]!.end <= a) wi++;
    for (let t = a; t < b; t += step) {
      const mid = t + step / 2;
      const votes = new Map<number, number>();
      for (let j = wi; j < windows.length && windows[j]!.start <= mid; j++) {
        const w = windows[j]!;
        if (w.end <= mid) continue;
        const weight = 1 - Math.abs(mid - centre(w)) / (w.end - w.start);
        votes.set(labels[j]!, (votes.get(labels[j]!) ?? 0) + weight);
      }
      const ranked = [...votes].sort((x, y) => y[1] - x[1]).map(([c]) => c);
      if (!ranked.length) continue;
      const active = [ranked[0]!];
      if (overlaps.some(([oa, ob]) => oa <= mid && mid < ob)) {
        const second = ranked[1] ?? nearestOther(mid, ranked[0]!);
        if (second !== undefined) active.push(second);
      }
      const end = Math.min(b, t + step);
      for (const c of active) out.add(nameOf(c), t, end);
    }
  }
  return out.turns;
}

/** A window is mixed when the segmentation hears two voices in more than this share of it. */
const MIXED_SHARE = 0.4;

function overlapSeconds(w: Window, regions: Region[]): number {
  return regions.reduce((s, [a, b]) => s + Math.max(0, Math.min(b, w.end) - Math.max(a, w.start)), 0);
}

/**
 * Speaker per word and who spoke when, from one embedding per window. Speakers are named "Speaker N"
 * in order of first appearance in the words, then (for voices the recogniser found no words for) in
 * the windows. With the segmentation model's chunks (`local`), turns and activity are rebuilt frame
 * by frame from its own speakers, named after the windows' voices.
 */
export function diarizeFromEmbeddings(
  regions: Region[],
  windows: Window[],
  embeddings: ArrayLike<number>[],
  words: TimedWord[],
  opts: EmbeddingDiarizeOptions = {},
  overlaps: Region[] = [],
  local?: { frames: LocalFrames; duration: number; speech?: Region[]; music?: boolean[]; voice?: number[] },
): { speakers: string[]; turns: SpeakerTurn[]; activity: SpeakerTurn[] } {
  const mixed = windows.map((w) => overlapSeconds(w, overlaps) > MIXED_SHARE * (w.end - w.start));
  const confident = local?.speech ? { windows, regions: withoutRegions(local.speech, [...overlaps, ...(opts.notSpeech ?? [])]), music: local.music, voice: local.voice } : undefined;
  const links = opts.links ?? false;
  const tags = local && links ? localSpeakerTags(windows, local.frames, links === true ? {} : links) : undefined;
  const all = clusterEmbeddings(embeddings, opts, mixed, confident, tags);
  // Where only music plays nobody speaks: those windows vote for no one, and a word over them (a sung
  // line, or whisper's first word placed early) takes the voice of the nearest window that is speech.
  const speech = windows.map((_, i) => all[i] !== MUSIC_LABEL);
  const anySpeech = speech.some(Boolean);
  const voiced = anySpeech ? windows.filter((_, i) => speech[i]) : windows;
  const labels = anySpeech ? all.filter((l) => l !== MUSIC_LABEL) : all.map(() => 0);
  const ids = wordClusters(words, voiced, labels);
  const names = new Map<number, string>();
  for (const id of [...ids, ...labels]) if (!names.has(id)) names.set(id, `Speaker ${names.size + 1}`);
  const speakers = ids.map((id) => names.get(id)!);
  const turns = windowTimeline(regions, voiced, labels, names);
  const activity = windowTimeline(regions, voiced, labels, names, overlaps);
  if (!local) return { speakers, turns, activity };
  // With the segmentation model's own speakers, who speaks when is decided frame by frame
  // (diarize-local.ts), and each word takes the speaker heard over most of it.
  const frames = reconstructSpeakers(local.frames, turns, activity, local.duration);
  return { speakers: wordSpeakersFromActivity(words, frames.activity, speakers), ...frames };
}
