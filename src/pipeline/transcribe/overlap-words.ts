/**
 * Words heard while two people talk at once go to the person whose sentence they are in.
 *
 * Why: in overlap the diarizer hears two voices over the same word and has to pick one by acoustics,
 * where both are present; the recogniser, though, transcribes one voice's sentence running on through
 * the other's "yeah" or first words. So inside a sentence, a word heard in overlap takes the speaker
 * who says that sentence's words outside overlap, when that speaker is one of the two heard there. Words
 * heard by one voice alone are never moved, nor are words in a sentence that no one clearly owns or
 * that is mostly overlap.
 */
import { splitSentences } from "../highlights/sentences.ts";
import type { Word } from "../types.ts";
import { secondsHeard, turnsBySpeaker } from "./speaker-turns.ts";
import type { EvidenceTurn } from "./turns-realign.ts";

/** A word is in overlap when two or more speakers are each heard over at least this share of it. */
const HEARD_SHARE = 0.5;

function speakerIndex(activity: EvidenceTurn[]) {
  const bySpeaker = turnsBySpeaker(activity);
  return (a: number, b: number) => [...bySpeaker].filter(([, turns]) => secondsHeard(turns, a, b) >= HEARD_SHARE * (b - a)).map(([speaker]) => speaker);
}

/**
 * `words` with each word heard in overlap (per `activity`, the diarizer's overlap-aware timeline)
 * relabelled to its sentence's speaker: the one who says more than half of the sentence's words heard
 * outside overlap (which must be most of its words), provided that speaker is heard over the word too.
 */
export function overlapWordsToSentenceSpeaker(words: Word[], activity: EvidenceTurn[] | undefined): Word[] {
  if (!activity?.length || words.length < 2) return words;
  const heardOver = speakerIndex(activity);
  const active = words.map((w) => heardOver(w.start, Math.max(w.end, w.start + 0.05)));
  const inOverlap = active.map((a) => a.length >= 2);
  if (!inOverlap.some(Boolean)) return words;
  const labels = words.map((w) => w.speaker);
  // Sentences by the text alone: a speaker change must not end the sentence it is being decided for.
  for (const s of splitSentences(words.map((w) => ({ ...w, speaker: "" })))) {
    const counts = new Map<string, number>();
    let clear = 0;
    for (let i = s.firstWord; i <= s.lastWord; i++) {
      if (inOverlap[i]) continue;
      clear++;
      counts.set(words[i]!.speaker, (counts.get(words[i]!.speaker) ?? 0) + 1);
    }
    const [owner, n] = [...counts].sort((a, b) => b[1] - a[1])[0] ?? [undefined, 0];
    // Mostly overlap: the few clear words do not say whose sentence it is.
    const overlapped = s.lastWord - s.firstWord + 1 - clear;
    if (owner === undefined || n * 2 <= clear || clear <= overlapped) continue;
    for (let i = s.firstWord; i <= s.lastWord; i++) if (inOverlap[i] && active[i]!.includes(owner)) labels[i] = owner;
  }
  return words.map((w, i) => (labels[i] === w.speaker ? w : { ...w, speaker: labels[i]! }));
}
