/**
 * The evidence rule for where a sentence ends in recogniser output, shared by the splitter, clip
 * selection, the editorial checks and the bench so that "a clip ends at a sentence end" means one
 * thing everywhere.
 *
 * Whisper's punctuation alone is weak evidence: it writes a full stop where a long list pauses and
 * leaves a full stop out where a speaker simply carries on. A sentence end therefore needs terminal
 * punctuation on the word AND one acoustic sign that the speaker stopped: a pause before the next
 * word, a change of speaker, or the end of the recording. Either alone is not enough.
 */
import type { Word } from "../types.ts";

/** Shortest silence after a full stop that counts as the speaker stopping (whisper's timestamps are 20 ms steps). */
export const MIN_SENTENCE_PAUSE = 0.1;

const TERMINAL = /[.?!…]["'”’)\]}]*$/;
/** Recogniser tokens that are punctuation only ("," or "." emitted on their own). */
export const PURE_PUNCT = /^[.,!?;:…"'”’)\]}%-]+$/;

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

/** Why word i is (or is not) a sentence end under the evidence rule; null when it is not one. */
export function sentenceEndEvidence(words: Word[], i: number): "pause" | "speaker_change" | "end" | null {
  if (!hasTerminalPunctuation(withTrailingPunct(words, i))) return null;
  const n = nextSpoken(words, i);
  if (n >= words.length) return "end";
  const next = words[n]!;
  if (next.speaker !== words[i]!.speaker) return "speaker_change";
  return next.start - words[i]!.end >= MIN_SENTENCE_PAUSE ? "pause" : null;
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
