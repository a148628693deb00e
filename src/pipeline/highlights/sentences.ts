/**
 * Splits a transcript's word stream into sentences that keep their word indices and timings, so a
 * clip built from whole sentences starts and ends exactly on recognised words.
 *
 * Punctuation-based rather than a tokenizer's sentence splitter: whisper attaches punctuation to
 * words ("there."), sometimes emits it as its own token (","), and mapping a tokenizer's offsets back
 * onto words is where indices go wrong. Rules, in order:
 *  - a speaker change always ends a sentence (a sentence never spans two speakers);
 *  - "?" / "!" end a sentence; "." and "…" end one unless the word is a known abbreviation or the next
 *    word starts in lower case (whisper capitalises sentence starts; "U.S. and" stays together); so does
 *    a dash before a capital, a sentence cut off ("would you—" / "Wait, …": turns-realign.ts writes it);
 *  - unpunctuated runs (music, some engines, LibriVox-style references) are cut once they exceed
 *    MAX_WORDS / MAX_SECONDS, where a full stop, a clause end and a long pause coincide best.
 * Each sentence also says whether its end is *complete* by the evidence rule of sentence-edges.ts
 * (terminal punctuation plus a pause, speaker change or the end): only complete ends may end a clip,
 * a hook or a quote, and only the sentence after one may start them.
 */
import { isAbbreviation, isAnnotation, isSentenceEnd, OPEN_END_WORDS, PURE_PUNCT } from "./sentence-edges.ts";
import { isEnglish, isLocalAbbreviation, joinsWithoutSpace, sentenceBreakBetween } from "../language/rules.ts";
import type { Word } from "../types.ts";

export type SentenceBoundary = "punctuation" | "speaker_change" | "pause" | "end";

export interface Sentence {
  index: number;
  /** Index into transcript.words of the first and last spoken word (inclusive). */
  firstWord: number;
  lastWord: number;
  start: number;
  end: number;
  speaker: string;
  text: string;
  /** Why the sentence ended here. */
  boundary: SentenceBoundary;
  /** The end is a sentence end by the evidence rule (terminal punctuation plus a pause, speaker change or the end). */
  complete: boolean;
}

const MAX_WORDS = 45;
const MAX_SECONDS = 18;

export { isAnnotation };

/** Clitics and sub-word pieces whisper emits as their own word: "'s", "n't", "'clock", "-hives", ",000". */
const ATTACHING = /^(?:'(?:s|re|ve|ll|d|m|t|clock)|n't)$/i;
const HYPHEN_PIECE = /^-[\p{L}\p{N}]/u;
const DIGIT_GROUP = /^[,.]\d/;

/** The token is written against the text before it, with no space: punctuation, a clitic, a sub-word piece. */
export function attachesToPrevious(token: string, before: string): boolean {
  const t = token.trim();
  return PURE_PUNCT.test(t) || ATTACHING.test(t) || (HYPHEN_PIECE.test(t) && /[\p{L}\p{N}]$/u.test(before)) || (DIGIT_GROUP.test(t) && /\d$/.test(before));
}

/**
 * Joins recogniser tokens into readable text: no space before punctuation, clitics or sub-word pieces,
 * nor between two tokens of a script written without spaces (Chinese, Japanese, Thai).
 */
export function joinWords(tokens: string[]): string {
  let out = "";
  for (const raw of tokens) {
    const t = raw.trim();
    if (!t) continue;
    if (out && !attachesToPrevious(t, out) && !joinsWithoutSpace(out, t)) out += " ";
    out += t;
  }
  return out;
}

function stripClosers(t: string): string {
  return t.replace(/["'”’)\]}]+$/, "");
}

/**
 * Terminal punctuation of scripts without capitals ends a sentence with no capital after it: full-width
 * stops (Chinese, Japanese), the danda (Hindi, Marathi, Nepali: । and ॥), the Arabic question mark
 * and the Urdu full stop (؟ ۔).
 */
const WIDE_TERMINAL = /[。！？।॥؟۔]$/;

/**
 * Whether `token` ends a sentence, given the word after it (undefined at the end of the transcript).
 * English by this module's rules; another language by ICU's sentence boundaries for its locale
 * (Intl.Segmenter) and its own abbreviations.
 */
export function endsSentence(token: string, next: string | undefined, language?: string): boolean {
  const t = stripClosers(token.trim());
  if (/[?!]$/.test(t) || WIDE_TERMINAL.test(t)) return true;
  if (!isEnglish(language)) {
    if (!/(?:\.|…|—)$/.test(t) || isLocalAbbreviation(token, language)) return false;
    if (next === undefined) return true;
    return sentenceBreakBetween(token, next, language);
  }
  // A dash ends a sentence cut off ("would you—") when a new one starts after it.
  if (!/(?:\.|…|—)$/.test(t) || isAbbreviation(token)) return false;
  if (next === undefined) return true;
  const n = next.trim().replace(/^["'“‘(]+/, "");
  return !/^\p{Ll}/u.test(n);
}

interface Run {
  idx: number[];
  boundary: SentenceBoundary;
}

/**
 * Where an over-long run is best cut after word k: a full stop (whisper's, even without a pause),
 * then a comma or clause end, weighted by the pause that follows; never after a word that leaves
 * the clause open ("the", "and", "of").
 */
function cutScore(words: Word[], idx: number[], k: number): number {
  const token = words[idx[k]!]!.word.trim();
  const bare = token.replace(/[^\p{L}\p{N}']+$/u, "").toLowerCase();
  if (OPEN_END_WORDS.has(bare)) return -Infinity;
  const gap = words[idx[k + 1]!]!.start - words[idx[k]!]!.end;
  const punct = /[.?!…]["')\]]*$/.test(token) ? 1 : /[,;:]["')\]]*$/.test(token) ? 0.4 : 0;
  return gap + punct;
}

/** Cuts an over-long run where cutScore is highest, recursively. */
function splitLongRun(run: Run, words: Word[]): Run[] {
  const { idx } = run;
  const dur = words[idx[idx.length - 1]!]!.end - words[idx[0]!]!.start;
  if (idx.length <= MAX_WORDS && dur <= MAX_SECONDS) return [run];
  if (idx.length < 6) return [run];
  let best = -1;
  let bestScore = -Infinity;
  // Keep at least 3 words each side so a cut never leaves a one-word fragment.
  for (let k = 2; k < idx.length - 3; k++) {
    const score = cutScore(words, idx, k);
    if (score > bestScore) {
      bestScore = score;
      best = k;
    }
  }
  if (best < 0) return [run];
  const left: Run = { idx: idx.slice(0, best + 1), boundary: "pause" };
  const right: Run = { idx: idx.slice(best + 1), boundary: run.boundary };
  return [...splitLongRun(left, words), ...splitLongRun(right, words)];
}

/** `language`: the transcript's (ISO 639-1); English rules when absent. */
export function splitSentences(words: Word[], language?: string): Sentence[] {
  const runs: Run[] = [];
  let current: number[] = [];
  const spoken: number[] = [];
  for (let i = 0; i < words.length; i++) if (!isAnnotation(words[i]!.word)) spoken.push(i);

  for (let k = 0; k < spoken.length; k++) {
    const i = spoken[k]!;
    const w = words[i]!;
    const nextIdx = spoken[k + 1];
    const next = nextIdx === undefined ? undefined : words[nextIdx]!;
    current.push(i);
    // A token that is only punctuation belongs to the previous word; decide on the pair.
    if (next && PURE_PUNCT.test(next.word.trim()) && next.speaker === w.speaker) continue;
    let boundary: SentenceBoundary | null = null;
    if (!next) boundary = "end";
    else if (next.speaker !== w.speaker) boundary = "speaker_change";
    else if (endsSentence(w.word, next.word, language)) boundary = "punctuation";
    if (boundary) {
      runs.push({ idx: current, boundary });
      current = [];
    }
  }
  if (current.length) runs.push({ idx: current, boundary: "end" });

  const sentences: Sentence[] = [];
  for (const run of runs.flatMap((r) => splitLongRun(r, words))) {
    const tokens = run.idx.map((i) => words[i]!.word);
    const text = joinWords(tokens);
    if (!/[\p{L}\p{N}]/u.test(text)) continue;
    // Timings come from real words, never from a stray punctuation token.
    const real = run.idx.filter((i) => !PURE_PUNCT.test(words[i]!.word.trim()));
    const first = real[0] ?? run.idx[0]!;
    const last = real[real.length - 1] ?? run.idx[run.idx.length - 1]!;
    sentences.push({
      index: sentences.length,
      firstWord: first,
      lastWord: last,
      start: words[first]!.start,
      end: words[last]!.end,
      speaker: words[first]!.speaker,
      text,
      boundary: run.boundary,
      complete: isSentenceEnd(words, last),
    });
  }
  return sentences;
}
