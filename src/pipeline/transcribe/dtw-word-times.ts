/**
 * Word times from whisper.cpp's DTW token times, the way faster-whisper (the CTranslate2 engine) makes
 * them from the same kind of alignment (find_alignment and add_word_timestamps in its transcribe.py,
 * after OpenAI's timing.py).
 *
 * Each token's DTW time is where the alignment path moves on past it: the token's end, and the next
 * token's start. A word runs from the end of the token before it to the end of its own last spoken
 * token. Punctuation tokens are timed like words and then dropped, as faster-whisper merges them into
 * the word before: the full stop after "country" is emitted when the next sentence begins, so it takes
 * up the pause, and dropping it leaves the pause between "country." and the next word. That is what
 * the token-timestamp heuristic cannot give (its words tile the audio) and what the sentence-end rule
 * (highlights/sentence-edges.ts) needs.
 *
 * faster-whisper's two corrections for alignments that run long, with its constants: the median unit
 * duration (capped at 0.7 s) doubled is the most a unit may last at a sentence edge. A sentence-end
 * mark longer than that is cut (which changes nothing here, since its time is dropped), and a word
 * after one that is longer than that starts that long before its end. The first word of a run has no
 * token before it, so its start is the heuristic's, held to the same bound (faster-whisper takes the
 * window's timestamp token there, under the same bound).
 *
 * Pure: words in, words out, on the recogniser's own (joined) timeline; words without DTW times keep
 * theirs.
 */
import type { AlignedToken } from "../../inference/whisper-cpp.ts";

export interface DtwTimedWord {
  word: string;
  start: number;
  end: number;
  aligned?: AlignedToken[];
}

/** Tokens of punctuation alone (faster-whisper splits them off as words of their own). */
const PUNCTUATION_ONLY = /^[\p{P}\p{S}\s]+$/u;
/** faster-whisper's sentence_end_marks. */
const SENTENCE_END_MARKS = new Set([".", "。", "!", "！", "?", "？"]);
/** faster-whisper's cap on the median unit duration, seconds. */
const MEDIAN_CAP = 0.7;

interface Unit {
  /** The word it times, or -1 for punctuation. */
  word: number;
  text: string;
  start: number;
  end: number;
  /** Its start came from the heuristic, not from a token before it. */
  heuristicStart: boolean;
}

function median(values: number[]): number {
  if (!values.length) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The words (and the punctuation between them) as faster-whisper's alignment has them, timed from the tokens. */
function unitsOf(words: readonly DtwTimedWord[]): Unit[] {
  const units: Unit[] = [];
  // The previous token's DTW time: where the next token starts.
  let previous: number | undefined;
  words.forEach((w, i) => {
    const tokens = w.aligned;
    if (!tokens?.length) {
      units.push({ word: i, text: w.word, start: w.start, end: w.end, heuristicStart: true });
      previous = undefined;
      return;
    }
    const spoken = tokens.map((t) => !PUNCTUATION_ONLY.test(t.text));
    let first = spoken.indexOf(true);
    let last = spoken.lastIndexOf(true);
    // A word of punctuation alone ("-", "...") is timed as a word.
    if (first < 0) [first, last] = [0, tokens.length - 1];
    const startOf = (k: number) => {
      const before = k > 0 ? tokens[k - 1]!.at : previous;
      return before === undefined ? Math.min(w.start, tokens[k]!.at) : Math.min(before, tokens[k]!.at);
    };
    if (first > 0) units.push({ word: -1, text: tokens.slice(0, first).map((t) => t.text.trim()).join(""), start: startOf(0), end: tokens[first - 1]!.at, heuristicStart: previous === undefined });
    units.push({ word: i, text: w.word, start: startOf(first), end: tokens[last]!.at, heuristicStart: first === 0 && previous === undefined });
    if (last < tokens.length - 1) units.push({ word: -1, text: tokens.slice(last + 1).map((t) => t.text.trim()).join(""), start: tokens[last]!.at, end: tokens[tokens.length - 1]!.at, heuristicStart: false });
    previous = tokens[tokens.length - 1]!.at;
  });
  return units;
}

const isSentenceEndMark = (u: Unit) => u.word < 0 && SENTENCE_END_MARKS.has(u.text);

/** The words with start and end from their DTW times where they have them, and without `aligned`. */
export function wordTimesFromDtw<W extends DtwTimedWord>(words: readonly W[]): Array<Omit<W, "aligned">> {
  const strip = (w: W): Omit<W, "aligned"> => {
    const { aligned: _, ...rest } = w;
    return rest;
  };
  if (!words.some((w) => w.aligned?.length)) return words.map(strip);
  const units = unitsOf(words);
  const durations = units.filter((u) => u.word < 0 || words[u.word]!.aligned?.length).map((u) => u.end - u.start).filter((d) => d > 0);
  const longest = 2 * Math.min(MEDIAN_CAP, median(durations));
  if (longest > 0) {
    units.forEach((u, k) => {
      if (u.end - u.start <= longest) return;
      if (isSentenceEndMark(u)) u.end = u.start + longest;
      else if ((k > 0 && isSentenceEndMark(units[k - 1]!)) || (u.heuristicStart && u.word >= 0 && words[u.word]!.aligned?.length)) u.start = u.end - longest;
    });
  }
  const round = (t: number) => Math.round(t * 1000) / 1000;
  const out = words.map(strip);
  let previousEnd = -Infinity;
  for (const u of units) {
    if (u.word < 0) continue;
    const w = words[u.word]!;
    if (!w.aligned?.length) {
      previousEnd = w.end;
      continue;
    }
    // A token aligned before the one ahead of it (rare) gives a word of no length, never one that runs backwards.
    const end = round(Math.max(u.end, previousEnd));
    const start = round(Math.min(end, Math.max(u.start, previousEnd)));
    out[u.word] = { ...out[u.word]!, start, end };
    previousEnd = end;
  }
  return out;
}
