/**
 * The speaker turns every diarizer produces (the MFCC fallback, the neural embeddings, the local
 * segmentation) and the transcript stores: who spoke from when to when.
 */
import type { Region } from "./vad.ts";

export interface SpeakerTurn {
  speaker: string;
  start: number;
  end: number;
}

/**
 * Turns built a step at a time, several speakers at once (overlap): a step of a speaker that starts
 * where that speaker's last turn ended extends it, any other starts a new turn. Turns come out in the
 * order they began.
 */
export class TurnBuilder {
  private readonly open = new Map<string, SpeakerTurn>();
  readonly turns: SpeakerTurn[] = [];

  add(speaker: string, start: number, end: number): void {
    const last = this.open.get(speaker);
    if (last && Math.abs(start - last.end) < 1e-6) last.end = end;
    else {
      const turn = { speaker, start, end };
      this.open.set(speaker, turn);
      this.turns.push(turn);
    }
  }
}

/**
 * The turns of the speakers who own words. A voice the recogniser wrote nothing for (a laugh, music
 * the segmentation model took for a voice, a sliver split off someone's voice) is no one the
 * transcript, captions or notes name: kept in the turns, it would be a "Speaker 4" on an audiogram
 * card and a speaker for the crop to look for that no line of the transcript has. Its time is left
 * unlabelled, as regions without words are. Without any words the turns stay as the diarizer heard them.
 */
export function turnsOfSpeakersWithWords<T extends { speaker: string }>(turns: T[] | undefined, words: ReadonlyArray<{ speaker: string }>): T[] | undefined {
  if (!turns || !words.length) return turns;
  const owners = new Set(words.map((w) => w.speaker));
  return turns.every((t) => owners.has(t.speaker)) ? turns : turns.filter((t) => owners.has(t.speaker));
}

/**
 * The time of the voices that own no words, as regions: under a count the caller gave, a place such a
 * voice took (a laugh, a cough, a tune) is given again with that time left out of confident speech.
 */
export function wordlessVoiceTime(turns: ReadonlyArray<SpeakerTurn>, words: ReadonlyArray<{ speaker: string }>): Region[] {
  const owners = new Set(words.map((w) => w.speaker));
  return turns.filter((t) => !owners.has(t.speaker)).map((t): Region => [t.start, t.end]);
}

/**
 * Who spoke when, over all detected speech rather than only the recognised words: each speech region is
 * split between the speakers of the words inside it, at the middle of the pause where the speaker
 * changes. Regions without words (laughter, crosstalk the recogniser skipped) stay unlabelled.
 */
export function speakerTimeline(regions: Region[], words: Array<{ start: number; end: number; speaker: string }>): SpeakerTurn[] {
  const out: SpeakerTurn[] = [];
  const push = (t: SpeakerTurn) => {
    const last = out[out.length - 1];
    if (last && last.speaker === t.speaker && t.start - last.end < 1e-6) last.end = Math.max(last.end, t.end);
    else if (t.end > t.start) out.push(t);
  };
  let wi = 0;
  for (const [a, b] of regions) {
    while (wi < words.length && words[wi]!.end <= a) wi++;
    const inside: typeof words = [];
    for (let j = wi; j < words.length && words[j]!.start < b; j++) inside.push(words[j]!);
    if (!inside.length) continue;
    let start = Math.min(a, inside[0]!.start);
    for (let j = 1; j < inside.length; j++) {
      if (inside[j]!.speaker === inside[j - 1]!.speaker) continue;
      const cut = (Math.min(inside[j - 1]!.end, inside[j]!.start) + inside[j]!.start) / 2;
      push({ speaker: inside[j - 1]!.speaker, start, end: cut });
      start = cut;
    }
    push({ speaker: inside[inside.length - 1]!.speaker, start, end: Math.max(b, inside[inside.length - 1]!.end) });
  }
  return out;
}

/** Each speaker's turns, sorted by start: the form `secondsHeard` and `firstEndingAfter` search. */
export function turnsBySpeaker<T extends { speaker: string; start: number }>(turns: Iterable<T>): Map<string, T[]> {
  const bySpeaker = new Map<string, T[]>();
  for (const t of turns) {
    const own = bySpeaker.get(t.speaker);
    if (own) own.push(t);
    else bySpeaker.set(t.speaker, [t]);
  }
  for (const own of bySpeaker.values()) own.sort((a, b) => a.start - b.start);
  return bySpeaker;
}

/**
 * The index of the first of `turns` (one speaker's, sorted by start, never overlapping each other)
 * that ends after x, or their length: a binary search, so a lookup costs O(log n).
 */
export function firstEndingAfter(turns: ReadonlyArray<{ start: number; end: number }>, x: number): number {
  let lo = 0;
  let hi = turns.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (turns[mid]!.end <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Seconds of [a, b) covered by `turns`, which are one speaker's, sorted by start and never overlapping each other. */
export function secondsHeard(turns: ReadonlyArray<{ start: number; end: number }>, a: number, b: number): number {
  let seconds = 0;
  for (let k = firstEndingAfter(turns, a); k < turns.length && turns[k]!.start < b; k++) seconds += Math.min(b, turns[k]!.end) - Math.max(a, turns[k]!.start);
  return seconds;
}
