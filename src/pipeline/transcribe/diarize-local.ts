/**
 * Who speaks when, frame by frame, from the segmentation model's own speakers (pyannote-style
 * reconstruction). Inside each 10 s chunk the model says, every 17 ms, which of up to three local
 * speakers talk (at most two at once); those speakers are only numbered within the chunk. Each one is
 * named after the voice (the embedding windows' cluster) heard where it talks alone, and the chunks are
 * then summed frame by frame: the number of people talking comes from the model, and who they are from
 * the local speakers named there.
 *
 * Why: the embedding windows are 1.5 s long, so their timeline puts a turn's edges up to 0.75 s off and
 * can only guess the second voice in overlap; the segmentation model sees the change where it happens
 * and knows which of its speakers overlap. A local speaker whose alone-frames do not clearly belong to
 * one voice is not named, and wherever the chunks name too few speakers the windows' timeline fills in.
 */
import { secondsHeard, TurnBuilder, turnsBySpeaker, type SpeakerTurn } from "./speaker-turns.ts";

/** One chunk of the segmentation model's output: its start (s) and, per frame, the powerset class (0-6). */
export interface LocalChunk {
  start: number;
  classes: string;
}

export interface LocalFrames {
  chunks: LocalChunk[];
  /** Seconds between frames. */
  frameSeconds: number;
  /** Time of the first frame of a chunk after the chunk's start (the centre of its receptive field). */
  firstFrameSeconds: number;
}

/** The local speakers talking in each powerset class: nobody, 1, 2, 3, 1+2, 1+3, 2+3. */
const CLASS_SPEAKERS: number[][] = [[], [0], [1], [2], [0, 1], [0, 2], [1, 2]];

export interface ReconstructOptions {
  /** Seconds a local speaker must talk alone over one voice to be named after it. */
  minSoloSeconds: number;
  /** Share of a local speaker's alone-frames that one voice must hold to name it. */
  minShare: number;
}

export const RECONSTRUCT_DEFAULTS: ReconstructOptions = { minSoloSeconds: 0.2, minShare: 0.6 };

/** At most this many voices are listed per frame by the windows' activity (a voice and the second in overlap). */
const LISTED = 2;

/**
 * Speakers per frame on a grid of `frameSeconds`, from possibly overlapping turns: `LISTED` slots per
 * frame, -1 where empty. Flat typed arrays, because an hour is 213,000 frames.
 */
function raster(turns: SpeakerTurn[], ids: Map<string, number>, frames: number, frameSeconds: number): Int32Array {
  const out = new Int32Array(frames * LISTED).fill(-1);
  for (const t of turns) {
    if (!ids.has(t.speaker)) ids.set(t.speaker, ids.size);
    const id = ids.get(t.speaker)!;
    // A frame belongs to the turn holding its centre.
    for (let i = Math.max(0, Math.ceil(t.start / frameSeconds - 0.5)); i < frames && (i + 0.5) * frameSeconds < t.end; i++) {
      const slot = out.subarray(i * LISTED, i * LISTED + LISTED);
      if (!slot.includes(id)) {
        const free = slot.indexOf(-1);
        if (free >= 0) slot[free] = id;
      }
    }
  }
  return out;
}

/**
 * Who speaks when over `duration` seconds. `activity`: per frame, as many speakers as the chunks count
 * (at least as many as the windows' `activity` lists there, and one wherever `primary` has one), the
 * chunk speakers' voices first, most chunks first, then `primary`'s and `activity`'s; `turns`: the first
 * of those, one speaker at a time. `primary` is who the embedding windows say speaks (one at a time),
 * `activity` the same with the guessed second voice in overlap.
 */
export function reconstructSpeakers(
  local: LocalFrames,
  primary: SpeakerTurn[],
  activity: SpeakerTurn[],
  duration: number,
  opts: Partial<ReconstructOptions> = {},
): { activity: SpeakerTurn[]; turns: SpeakerTurn[] } {
  const o = { ...RECONSTRUCT_DEFAULTS, ...opts };
  const step = local.frameSeconds;
  const frames = Math.max(0, Math.floor(duration / step));
  const ids = new Map<string, number>();
  const primaryRaster = raster(primary, ids, frames, step);
  const who = (i: number) => (primaryRaster[i * LISTED]! >= 0 ? primaryRaster[i * LISTED]! : undefined);
  const base = raster(activity, ids, frames, step);
  const listed = (i: number) => [...base.subarray(i * LISTED, i * LISTED + LISTED)].filter((v) => v >= 0);
  const voices = ids.size;
  // Chunks naming each voice, per frame (flat: frame i's voices at i * voices).
  const votes = new Float64Array(frames * voices);
  const count = new Float64Array(frames);
  const covered = new Float64Array(frames);
  // (The small epsilon keeps a frame that falls exactly on the grid from landing one early in floating point.)
  const frameOf = (chunk: LocalChunk, f: number) => Math.floor((chunk.start + local.firstFrameSeconds) / step + f + 1e-6);

  for (const chunk of local.chunks) {
    // Name each local speaker after the voice that holds most of the frames where it talks alone.
    const solo = [0, 1, 2].map(() => new Float64Array(voices));
    for (let f = 0; f < chunk.classes.length; f++) {
      const c = chunk.classes.charCodeAt(f) - 48;
      const i = frameOf(chunk, f);
      const v = i < frames ? who(i) : undefined;
      if (c >= 1 && c <= 3 && v !== undefined) solo[c - 1]![v]! += step;
    }
    const named: Array<number | undefined> = [undefined, undefined, undefined];
    const taken = new Set<number>();
    // The local speaker with most alone-time picks first; two local speakers never share a voice.
    const order = [0, 1, 2].sort((a, b) => Math.max(...solo[b]!, 0) - Math.max(...solo[a]!, 0));
    for (const s of order) {
      const total = solo[s]!.reduce((x, y) => x + y, 0);
      const ranked = [...solo[s]!.keys()].sort((a, b) => solo[s]![b]! - solo[s]![a]!);
      const pick = ranked.find((v) => !taken.has(v) && solo[s]![v]! >= o.minSoloSeconds && solo[s]![v]! >= o.minShare * total);
      if (pick !== undefined) {
        named[s] = pick;
        taken.add(pick);
      }
    }
    for (let f = 0; f < chunk.classes.length; f++) {
      const i = frameOf(chunk, f);
      if (i >= frames) break;
      const speakers = CLASS_SPEAKERS[chunk.classes.charCodeAt(f) - 48] ?? [];
      covered[i]! += 1;
      count[i]! += speakers.length;
      for (const s of speakers) if (named[s] !== undefined) votes[i * voices + named[s]!]! += 1;
    }
  }

  const names = [...ids.keys()];
  const active = new TurnBuilder();
  const first = new TurnBuilder();
  for (let i = 0; i < frames; i++) {
    const w = who(i);
    const others = listed(i);
    const k = Math.max(covered[i] ? Math.round(count[i]! / covered[i]!) : 0, others.length, w !== undefined ? 1 : 0);
    if (!k) continue;
    const named = votes.subarray(i * voices, (i + 1) * voices);
    // Ties between chunks go to the windows' voice.
    const score = (v: number) => named[v]! + (v === w ? 0.5 : 0);
    const chosen = [...named.keys()].filter((v) => named[v]! > 0).sort((a, b) => score(b) - score(a)).slice(0, k);
    for (const v of [w, ...others]) if (v !== undefined && chosen.length < k && !chosen.includes(v)) chosen.push(v);
    // Speech the model hears where no voice is named (music the windows left to nobody) is nobody's.
    if (!chosen.length) continue;
    const t = i * step;
    for (const v of chosen) active.add(names[v]!, t, t + step);
    first.add(names[chosen[0]!]!, t, t + step);
  }
  const ms = (turns: SpeakerTurn[]) => turns.map((x) => ({ ...x, start: Math.round(x.start * 1000) / 1000, end: Math.round(x.end * 1000) / 1000 }));
  return { activity: ms(active.turns), turns: ms(first.turns) };
}

interface TimedWord {
  start: number;
  end: number;
}

/**
 * Speaker per word from frame-level activity: the speaker active over most of the word; where two are
 * active for equally long (overlap), the word keeps `fallback` (the embedding windows' label) when that
 * one is heard over it, and a word no one is heard over keeps it too. Each speaker's turns never
 * overlap each other, so each is searched on its own.
 */
export function wordSpeakersFromActivity(words: TimedWord[], activity: SpeakerTurn[], fallback: string[]): string[] {
  const bySpeaker = turnsBySpeaker(activity);
  const heard = (speaker: string, a: number, b: number) => secondsHeard(bySpeaker.get(speaker) ?? [], a, b);
  return words.map((w, i) => {
    const end = Math.max(w.end, w.start + 0.05);
    let best: string | undefined;
    let bestSeconds = 0;
    let tie = false;
    for (const speaker of bySpeaker.keys()) {
      const seconds = heard(speaker, w.start, end);
      if (seconds > bestSeconds + 1e-6) {
        best = speaker;
        bestSeconds = seconds;
        tie = false;
      } else if (seconds > 0 && Math.abs(seconds - bestSeconds) <= 1e-6) tie = true;
    }
    if (best === undefined || (tie && heard(fallback[i]!, w.start, end) > 0)) return fallback[i]!;
    return best;
  });
}
