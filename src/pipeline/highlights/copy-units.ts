/**
 * The pieces of an episode that copy (hooks, pull quotes, takeaways, summary quotes) may be made
 * of: runs of sentences from an evidenced sentence start to the next evidenced sentence end, each
 * sentence grammatically finished. Whisper's full stops without a pause split a thought into
 * "sentences" that cannot be quoted apart, so a unit may hold more than one.
 */
import { incompleteSentence, startsCapitalised } from "./editorial-check.ts";
import type { EpisodeAnalysis } from "./analysis.ts";

export interface CopyUnit {
  first: number;
  last: number;
  text: string;
  words: number;
}

/** Sentence i begins a unit: the first sentence, or one after an evidenced end, and capitalised. */
export function startsUnit(a: EpisodeAnalysis, i: number): boolean {
  return (i === 0 || a.sentences[i - 1]!.complete) && startsCapitalised(a.sentences[i]!.text);
}

/** Every sentence of the unit is finished (wink tags from the analysis, not re-tagged). */
export function isFinishedUnit(a: EpisodeAnalysis, u: CopyUnit): boolean {
  for (let i = u.first; i <= u.last; i++) if (incompleteSentence(a.sentences[i]!.text, a.nlp[i]!.tokens) !== null) return false;
  return true;
}

/** The units between sentences `from` and `to` (inclusive) that start and end on evidenced edges. */
export function copyUnits(a: EpisodeAnalysis, from = 0, to = a.sentences.length - 1): CopyUnit[] {
  const out: CopyUnit[] = [];
  let first = -1;
  for (let i = from; i <= to; i++) {
    if (first < 0 && startsUnit(a, i)) first = i;
    if (first >= 0 && a.sentences[i]!.complete) {
      const range = a.sentences.slice(first, i + 1);
      out.push({
        first,
        last: i,
        text: range.map((s) => s.text).join(" "),
        words: a.features.slice(first, i + 1).reduce((n, f) => n + f.words, 0),
      });
      first = -1;
    }
  }
  return out;
}

/** Units a reader can take without the rest of the episode: finished, not pointing back ("He said…", "Because…"). */
export function standaloneUnits(a: EpisodeAnalysis, from?: number, to?: number): CopyUnit[] {
  return copyUnits(a, from, to).filter((u) => {
    const f = a.features[u.first]!;
    return f.dangling !== "hard" && !f.continuation && isFinishedUnit(a, u);
  });
}

/** A pull quote's length: enough to say something, short enough to read in one breath. */
export const QUOTE_MIN_WORDS = 6;
export const QUOTE_MAX_WORDS = 30;

export const isQuoteSized = (u: CopyUnit): boolean => u.words >= QUOTE_MIN_WORDS && u.words <= QUOTE_MAX_WORDS;

/** Standalone units of pull-quote length. */
export function quotableUnits(a: EpisodeAnalysis, from?: number, to?: number): CopyUnit[] {
  return standaloneUnits(a, from, to).filter(isQuoteSized);
}
