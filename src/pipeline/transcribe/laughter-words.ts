/**
 * Laughter the recogniser wrote down. Whisper transcribes a laugh as its sound ("Ha ha ha!", "Hahaha!",
 * "Hee hee hee.", "hehehehe") or, in some models, as an annotation ("(laughs)", "[Laughter]"). The
 * speaker models give a laugh in a pause a voice of its own as readily as a sentence (a laugh is a voice,
 * and the segmentation model hears it as speech), so a "speaker" whose every word is laughter is someone's
 * laugh, not a person: issue 31 asks that laughter not be counted. `scripts/bench/laughter.ts` puts real
 * laughs into the pauses of real conversations; docs/benchmarks/speakers.md has what it measured.
 */
import { isAnnotation } from "../highlights/sentence-edges.ts";
import type { Word } from "../types.ts";

/**
 * One token of a laugh's syllable said again and again is laughter ("haha", "Hehehe!", "HAHAHAH", "heehee",
 * Spanish "jajaja", Chinese "哈哈", Japanese "はは", Korean "하하" or "ㅋㅋ"); the same syllable, so that a word
 * that only starts like one ("Haji") is not. Only whole tokens for "ja": "ja ja" is German for "yes, yes".
 */
const LAUGH_TOKEN = /^(ha|he|hee|hi|ho|ja|je|ji|哈|呵|は|ハ|하|ㅋ|ㅎ)\1+h?$/i;
/** Single syllables that are laughter in a run of two: never an English word on their own. */
const UNAMBIGUOUS = /^(?:ha|hah|heh|hee)$/i;
/** ...and these in a run of three or more ("he" and "ho" are words, "he, he said" is a false start, "tee" only laughs beside "hee"). */
const IN_LONG_RUN = /^(?:ha|hah|heh|hee|he|ho|tee)$/i;

const bare = (token: string) => token.trim().replace(/^["'“‘(¿¡-]+/, "").replace(/[^\p{L}]+$/u, "");

/** Per word, whether it is laughter: a laugh token, a run of laugh syllables, or an annotation of laughter. */
export function laughterWords(words: ReadonlyArray<Pick<Word, "word">>): boolean[] {
  const out = words.map((w) => LAUGH_TOKEN.test(bare(w.word)) || (isAnnotation(w.word) && /laugh/i.test(w.word)));
  for (let i = 0; i < words.length; ) {
    let j = i;
    while (j < words.length && IN_LONG_RUN.test(bare(words[j]!.word))) j++;
    const run = words.slice(i, j).map((w) => bare(w.word));
    if (run.length >= 3 || (run.length === 2 && run.every((t) => UNAMBIGUOUS.test(t)))) for (let k = i; k < j; k++) out[k] = true;
    i = Math.max(j, i + 1);
  }
  return out;
}

/**
 * Words with the laughter of a voice that only laughs given to the speaker who talks nearest in time:
 * a laugh in a pause (the guest's, the audience's) is not another person in the transcript, its notes
 * and its cards. A speaker with one spoken word that is not laughter keeps their place; when nobody in
 * the file says anything but laughter, the words are left as they are. This holds under a count the
 * caller gave too: a laugh that took one of its places is still no one's name or card.
 */
export function withoutLaughingVoices(words: Word[]): Word[] {
  const laughter = laughterWords(words);
  const talks = new Set<string>();
  words.forEach((w, i) => {
    if (!laughter[i] && !isAnnotation(w.word)) talks.add(w.speaker);
  });
  if (!talks.size || words.every((w) => talks.has(w.speaker))) return words;
  const talking = words.map((w, i) => i).filter((i) => talks.has(words[i]!.speaker));
  return words.map((w) => {
    if (talks.has(w.speaker)) return w;
    const mid = (w.start + w.end) / 2;
    let best = talking[0]!;
    for (const i of talking) if (Math.abs((words[i]!.start + words[i]!.end) / 2 - mid) < Math.abs((words[best]!.start + words[best]!.end) / 2 - mid)) best = i;
    return { ...w, speaker: words[best]!.speaker };
  });
}

/** Where the words are laughter, as spans (laughter words under a second apart are one laugh): the clip ranker's `laughter`. */
export function laughterSpans(words: ReadonlyArray<Pick<Word, "word" | "start" | "end">>): Array<{ start: number; end: number }> {
  const laughter = laughterWords(words);
  const spans: Array<{ start: number; end: number }> = [];
  words.forEach((w, i) => {
    if (!laughter[i]) return;
    const last = spans[spans.length - 1];
    if (last && w.start - last.end < 1) last.end = Math.max(last.end, w.end);
    else spans.push({ start: w.start, end: w.end });
  });
  return spans;
}
