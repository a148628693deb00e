/**
 * Words heard while two people talk at once go to the person whose sentence it is.
 *
 * Why: in overlap the diarizer hears two voices over the same word and has to pick one by acoustics,
 * where both are present, while the recogniser writes one voice's words. Two cases:
 * - a sentence heard wholly in overlap, said over someone who talks on, goes to the voice whose turn
 *   starts and ends with it (`overlappedSentencesToFramingVoice`, in the pipeline);
 * - a word in overlap inside a sentence that one speaker says outside overlap takes that speaker
 *   (`overlapWordsToSentenceSpeaker`: measured and not switched on, docs/benchmarks/speakers.md, kept for
 *   `scripts/bench/turns-sweep.ts`). Words heard by one voice alone are never moved.
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

/** Seconds a voice's turn may run past a run of overlapped sentences on both sides together and still frame it. */
const FRAME_SLACK_SECONDS = 1;
/**
 * Share of a sentence's spoken time a voice must be heard over for the sentence to be in that voice's
 * hearing: most of it, not every word, since a last word's time often runs a little past the voice.
 */
const SENTENCE_HEARD_SHARE = 0.8;

/**
 * `words` with each run of sentences heard in overlap given to the voice whose turn frames it: of the
 * voices heard over (nearly) all of it, the one whose turn starts and ends with those sentences.
 *
 * Why: where one person talks on and another says a few sentences over them, the diarizer hears both
 * over every word and the word keeps the voice of the windows around it, the long talker's; whisper,
 * though, wrote the interjection. The voice whose turn begins and ends with these very sentences is
 * the one saying them; the other's turn runs on for seconds either side. A word or two said over
 * someone inside their sentence does not make a run (`overlapWordsToSentenceSpeaker`'s case).
 */
export function overlappedSentencesToFramingVoice(words: Word[], activity: EvidenceTurn[] | undefined): Word[] {
  if (!activity?.length || !words.length) return words;
  const bySpeaker = turnsBySpeaker(activity);
  const labels = words.map((w) => w.speaker);
  const sentences = splitSentences(words.map((w) => ({ ...w, speaker: "" })));
  const hearers = sentences.map((s) => {
    const spoken = words.slice(s.firstWord, s.lastWord + 1).map((w) => [w.start, Math.max(w.end, w.start + 0.05)] as const);
    const total = spoken.reduce((sum, [a, b]) => sum + b - a, 0);
    return [...bySpeaker].filter(([, turns]) => spoken.reduce((sum, [a, b]) => sum + secondsHeard(turns, a, b), 0) >= SENTENCE_HEARD_SHARE * total).map(([speaker]) => speaker);
  });
  for (let k = 0; k < sentences.length; ) {
    if (hearers[k]!.length < 2) {
      k++;
      continue;
    }
    let shared = hearers[k]!;
    let last = k;
    while (last + 1 < sentences.length && hearers[last + 1]!.filter((x) => shared.includes(x)).length >= 2) {
      shared = hearers[last + 1]!.filter((x) => shared.includes(x));
      last++;
    }
    const first = sentences[k]!.firstWord;
    const end = sentences[last]!.lastWord;
    const r0 = words[first]!.start;
    const r1 = words[end]!.end;
    const mid = (r0 + r1) / 2;
    const [best, next] = shared
      .map((speaker) => {
        const turn = (bySpeaker.get(speaker) ?? []).find((t) => t.start <= mid && mid < t.end);
        return { speaker, excess: turn ? Math.max(0, r0 - turn.start) + Math.max(0, turn.end - r1) : Infinity };
      })
      .sort((a, b) => a.excess - b.excess);
    if (best && next && best.excess <= FRAME_SLACK_SECONDS && next.excess > FRAME_SLACK_SECONDS + best.excess * 2) {
      for (let i = first; i <= end; i++) labels[i] = best.speaker;
    }
    k = last + 1;
  }
  return words.map((w, i) => (labels[i] === w.speaker ? w : { ...w, speaker: labels[i]! }));
}
