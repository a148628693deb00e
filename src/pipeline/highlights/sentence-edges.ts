/**
 * The evidence rule for where a sentence ends in recogniser output, shared by the splitter, clip
 * selection, the editorial checks and the bench so that "a clip ends at a sentence end" means one
 * thing everywhere.
 *
 * Whisper's punctuation alone is weak evidence: it writes a full stop where a long list pauses and
 * leaves a full stop out where a speaker simply carries on. A sentence end therefore needs terminal
 * punctuation on the word AND one acoustic sign that the speaker stopped: a pause before the next
 * word, a change of speaker, or the end of the recording. Either alone is not enough.
 *
 * Some recognisers (whisper.cpp's token timestamps) leave no silence between words at all; there the
 * pause cannot be measured, so terminal punctuation followed by a word that starts like a sentence
 * (a capital or a digit) stands in for it. That is decided per transcript from its own gaps, never
 * per word, so a recogniser that does time pauses is always held to the full rule.
 */
import type { Word } from "../types.ts";

/** Shortest silence after a full stop that counts as the speaker stopping (whisper's timestamps are 20 ms steps). */
export const MIN_SENTENCE_PAUSE = 0.1;

// Full-width stops and marks end Chinese and Japanese sentences.
const TERMINAL = /[.?!…。！？]["'”’)\]}」』]*$/;
/** Recogniser tokens that are punctuation only ("," or "." emitted on their own, or their full-width forms). */
export const PURE_PUNCT = /^[.,!?;:…"'”’)\]}%\-。、！？：；」』]+$/;

const ABBREVIATIONS = new Set([
  "mr", "mrs", "ms", "dr", "prof", "sr", "jr", "st", "vs", "etc", "inc", "ltd", "co", "corp", "jan", "feb", "mar", "apr",
  "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec", "no", "vol", "approx", "dept", "e.g", "i.e", "u.s", "u.k", "a.m",
  "p.m", "mt", "ft", "gen", "gov", "sen", "rep", "rev",
]);

/** "Dr." or an initial ("J."): a full stop that does not end a sentence. The pronoun "I." does. */
export function isAbbreviation(token: string): boolean {
  const t = token.trim().replace(/["'”’)\]}]+$/, "");
  if (!t.endsWith(".") || t.endsWith("..")) return false;
  const bare = t.replace(/\.+$/, "").replace(/^["'“‘(]+/, "").toLowerCase();
  return ABBREVIATIONS.has(bare) || (/^[a-z]$/.test(bare) && bare !== "i");
}

/** Words that leave a clause open whatever follows: no sentence, clip or quote ends on one. */
export const OPEN_END_WORDS = new Set(["a", "an", "the", "and", "or", "but", "nor", "because", "my", "your", "our", "their"]);

/** Non-speech annotations whisper writes instead of words: "[Music]", "(laughs)", "♪". */
export function isAnnotation(token: string): boolean {
  const t = token.trim();
  return /^\[.*\]$/.test(t) || /^\(.*\)$/.test(t) || /^[♪♫*]+$/.test(t) || t === "";
}

/** A word carrying speech (not an annotation, not a bare punctuation token). */
export function isSpokenWord(w: Word): boolean {
  return !isAnnotation(w.word) && !PURE_PUNCT.test(w.word.trim());
}

export function hasTerminalPunctuation(token: string): boolean {
  return TERMINAL.test(token.trim()) && !isAbbreviation(token);
}

function nextSpoken(words: Word[], i: number): number {
  let k = i + 1;
  while (k < words.length && !isSpokenWord(words[k]!)) k++;
  return k;
}

/** The word's text with any punctuation tokens that follow it before the next spoken word. */
function withTrailingPunct(words: Word[], i: number): string {
  let t = words[i]!.word.trim();
  for (let k = i + 1; k < words.length && !isSpokenWord(words[k]!); k++) {
    if (!isAnnotation(words[k]!.word)) t += words[k]!.word.trim();
  }
  return t;
}

const gaplessCache = new WeakMap<Word[], boolean>();

/**
 * Whether a transcript's timings show no pauses at all: under 3 % of the gaps between its spoken
 * words reach MIN_SENTENCE_PAUSE, over at least 40 words (speech always has some pauses the recogniser
 * would show if it timed them: faster-whisper's timings show them at 10-21 % of the gaps on the shared recordings).
 */
export function timingsShowNoPauses(words: Word[]): boolean {
  const known = gaplessCache.get(words);
  if (known !== undefined) return known;
  const spoken = words.filter(isSpokenWord);
  let gaps = 0;
  for (let k = 1; k < spoken.length; k++) if (spoken[k]!.start - spoken[k - 1]!.end >= MIN_SENTENCE_PAUSE) gaps++;
  const gapless = spoken.length >= 40 && gaps < 0.03 * (spoken.length - 1);
  gaplessCache.set(words, gapless);
  return gapless;
}

/** Why word i is (or is not) a sentence end under the evidence rule; null when it is not one. */
export function sentenceEndEvidence(words: Word[], i: number): "pause" | "speaker_change" | "end" | "punctuation" | null {
  if (!hasTerminalPunctuation(withTrailingPunct(words, i))) return null;
  const n = nextSpoken(words, i);
  if (n >= words.length) return "end";
  const next = words[n]!;
  if (next.speaker !== words[i]!.speaker) return "speaker_change";
  if (next.start - words[i]!.end >= MIN_SENTENCE_PAUSE) return "pause";
  return timingsShowNoPauses(words) && /^["'“‘(]*[\p{Lu}\p{N}]/u.test(next.word.trim()) ? "punctuation" : null;
}

/** Word i (a spoken word) ends a sentence by the evidence rule. */
export function isSentenceEnd(words: Word[], i: number): boolean {
  return sentenceEndEvidence(words, i) !== null;
}

/** Word i (a spoken word) starts a sentence: the first spoken word, or the one after an evidenced end. */
export function isSentenceStart(words: Word[], i: number): boolean {
  let p = i - 1;
  while (p >= 0 && !isSpokenWord(words[p]!)) p--;
  return p < 0 || isSentenceEnd(words, p);
}
