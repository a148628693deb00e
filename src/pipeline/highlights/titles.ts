/**
 * Titles that name what a stretch of talk is about, taken from the words said: the best noun
 * phrase, optionally with its prepositional complement ("3B-hives on the roof", "a local beekeeping
 * club"), scored by how often its content words recur in the stretch (and how rarely elsewhere),
 * then set in title case. Never a list of unrelated phrases, never a speaker label.
 */
import type { NlpToken, SentenceNlp } from "./nlp.ts";
import { isEnglish, sentenceCase } from "../language/rules.ts";
import { notesText } from "../language/notes-text.ts";

/** Words that never carry a topic on their own, whatever wink tags them. */
export const GENERIC_WORDS = new Set([
  "thing", "things", "lot", "way", "time", "times", "people", "guy", "guys", "kind", "stuff", "bit", "yeah", "okay", "hello", "oh",
  "year", "years", "day", "days", "week", "weeks", "month", "months", "morning", "night", "minute", "minutes", "percent", "moment",
  "question", "questions", "show", "guest", "episode", "today", "second", "everyone", "someone", "something", "anything", "part",
  "sort", "note", "end", "case", "like", "bunch", "point", "fact", "idea", "place", "side", "number", "topic", "everything", "nothing", "hour", "hours",
]);

const SMALL_WORDS = new Set(["a", "an", "the", "and", "but", "or", "nor", "for", "of", "on", "in", "at", "to", "by", "with", "from", "as", "vs", "per", "via", "into", "onto", "about"]);
const LEADING_QUALIFIERS = new Set(["one", "same", "other", "last", "next", "first", "whole", "own", "much", "many", "few", "more", "most", "such", "certain", "different", "main", "real"]);
const LINKS = new Set(["of", "on", "in", "for", "with", "about", "from", "at"]);
const LEADING_DETERMINERS = new Set(["a", "an", "the", "this", "that", "these", "those", "my", "your", "our", "their", "his", "her", "its", "some", "every", "each"]);

/** Title case: small words lower case except first and last; words with capitals or digits inside keep them. */
export function titleCase(text: string): string {
  const words = text.trim().split(/\s+/);
  return words
    .map((w, i) => {
      if (i > 0 && i < words.length - 1 && SMALL_WORDS.has(w.toLowerCase())) return w.toLowerCase();
      // Each hyphen part on its own: "3B-hives" → "3B-Hives"; a part with a capital inside ("iPhone") is kept.
      return w
        .split("-")
        .map((part) => (/\p{Lu}/u.test(part) ? part : part.charAt(0).toUpperCase() + part.slice(1)))
        .join("-");
    })
    .join(" ");
}

/** A title in the transcript's language: English title case, the first word's capital elsewhere (language/rules.ts). */
export function titleFor(text: string, language: string | undefined): string {
  return isEnglish(language) ? titleCase(text) : sentenceCase(text, language);
}

export interface TitlePhrase {
  /** As said (original spacing and case; a sentence-initial capital dropped), without a leading determiner. */
  text: string;
  /** Stemmed content words, for scoring and for telling phrases apart. */
  terms: string[];
}

export function stemTerm(norm: string): string {
  const w = norm.replace(/[^\p{L}\p{N}'-]/gu, "");
  return w.length > 4 ? w.replace(/(?:ies|es|s)$/, (m) => (m === "ies" ? "y" : "")) : w;
}

/** Tokens a noun group can hold: no pronoun "I", no contraction ("I'm" is sometimes tagged PROPN). */
const groupable = (t: NlpToken) => t.norm !== "i" && !t.text.includes("'") && !t.text.includes("’");
const isNominal = (t: NlpToken) => (t.pos === "NOUN" || t.pos === "PROPN") && t.type === "word" && groupable(t);
const isModifier = (t: NlpToken) => ((t.pos === "ADJ" || t.pos === "NUM") && t.type !== "punctuation" && groupable(t)) || isNominal(t);
const isHyphen = (t: NlpToken | undefined) => t?.text === "-";

/** A plural common noun ("streets", "bees"), by its ending: wink's lite model tags no number. */
const isPlural = (t: NlpToken | undefined) => !!t && t.pos === "NOUN" && t.norm.length > 3 && /[^s']s$/.test(t.norm);

/** A noun group starting at k: modifiers and nouns (hyphenated pieces kept together), ending on a noun. */
function nounGroup(tokens: NlpToken[], k: number): { end: number } | null {
  let j = k;
  let lastNoun = -1;
  while (j < tokens.length) {
    const t = tokens[j]!;
    if (isHyphen(t) && j > k && isModifier(tokens[j - 1]!) && tokens[j + 1] && isModifier(tokens[j + 1]!)) {
      j++;
      continue;
    }
    if (!isModifier(t)) break;
    // A count after the group's noun opens a new quantity ("a roof | two streets away"), unless it
    // names the noun's number ("the number 9 bus"): only a singular noun may follow it in one group.
    if (t.pos === "NUM" && lastNoun >= k && t.norm !== "one" && isPlural(tokens[j + 1])) break;
    if (isNominal(t)) lastNoun = j;
    j++;
  }
  return lastNoun >= k ? { end: lastNoun } : null;
}

function said(sentence: string, tokens: NlpToken[]): string {
  const pattern = tokens.map((t) => t.text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("\\s*");
  return new RegExp(pattern).exec(sentence)?.[0] ?? tokens.map((t) => t.text).join(" ");
}

/** Candidate title phrases of one sentence: noun groups, and noun group + of/on/for/… + noun group. */
export function titlePhrases(sentence: string, nlp: SentenceNlp): TitlePhrase[] {
  const tokens = nlp.tokens;
  const out: TitlePhrase[] = [];
  const make = (start: number, to: number) => {
    // "one colony", "the same neighbor": a leading count or qualifier points, it does not name.
    let from = start;
    // A capital mid-sentence is part of a name ("Next Door"); at the sentence start it means nothing.
    const first = tokens.findIndex((t) => t.type === "word");
    const plain = (k: number) => k === first || !/^\p{Lu}/u.test(tokens[k]!.text);
    while (from < to && tokens[from]!.pos !== "PROPN" && plain(from) && LEADING_QUALIFIERS.has(tokens[from]!.norm)) from++;
    const span = tokens.slice(from, to + 1);
    const content = span.filter((t) => isNominal(t) || t.pos === "ADJ");
    const terms = content.filter((t) => !t.stop && t.norm.length > 2).map((t) => stemTerm(t.norm));
    // "the best thing", "a lot of time": a phrase headed by a generic noun names nothing.
    if (terms.length === 0 || GENERIC_WORDS.has(stemTerm(span[span.length - 1]!.norm))) return;
    // Whisper capitalises sentence starts; only there is a capital not the speaker's meaning.
    let text = said(sentence, span);
    if (from === first && tokens[from]!.pos !== "PROPN") text = text.charAt(0).toLowerCase() + text.slice(1);
    out.push({ text, terms });
  };
  for (let k = 0; k < tokens.length; k++) {
    if (k > 0 && isModifier(tokens[k - 1]!) && !isHyphen(tokens[k - 1])) continue; // only maximal groups
    const g = nounGroup(tokens, k);
    if (!g) continue;
    // Sentence-initial capitals are not names: "Patience" alone opening a sentence is not a proper noun.
    make(k, g.end);
    const link = tokens[g.end + 1];
    if (link && (LINKS.has(link.norm) || link.link)) {
      let m = g.end + 2;
      // Other languages' articles after the preposition ("de la", "von der") are short stop words.
      while (m < tokens.length && (LEADING_DETERMINERS.has(tokens[m]!.norm) || (link.link && tokens[m]!.stop && tokens[m]!.norm.length <= 4))) m++;
      const h = nounGroup(tokens, m);
      if (h && h.end - k <= 7) make(k, h.end);
    }
    k = g.end;
  }
  return out;
}

/** How often each term occurs in a stretch of sentences. */
export function termCounts(nlps: SentenceNlp[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const nlp of nlps)
    for (const t of nlp.tokens)
      if ((isNominal(t) || t.pos === "ADJ" || t.pos === "VERB") && !t.stop && t.norm.length > 2) {
        const k = stemTerm(t.norm);
        counts.set(k, (counts.get(k) ?? 0) + 1);
      }
  return counts;
}

export interface RankOptions {
  /** Term counts to score by, when recurrence should be judged over more than the stretch (a clip within its episode). */
  counts?: Map<string, number>;
  /** Terms to score down (a show's own name, words already used by another title). */
  avoid?: Set<string>;
  /** Relative weight of a term: how specific it is to this stretch (1 when not given). */
  specificity?: (term: string) => number;
  /** Relative weight of a whole phrase (1 when not given): how central it is to what the stretch is about. */
  weight?: (p: TitlePhrase) => number;
}

/**
 * The stretch's phrases, best first. A topic is something talked about more than once, so a term
 * counts mostly for its repeats (a one-off phrase, however long, scores little); the sum is divided
 * by the square root of the phrase's terms so long phrases do not win by length; two to five words
 * are preferred.
 */
export function rankTitlePhrases(sentences: string[], nlps: SentenceNlp[], opts: RankOptions = {}): TitlePhrase[] {
  const counts = opts.counts ?? termCounts(nlps);
  const seen = new Map<string, { p: TitlePhrase; s: number }>();
  sentences.forEach((text, i) => {
    for (const p of titlePhrases(text, nlps[i]!)) {
      const key = p.text.toLowerCase();
      // A term said once still scores a little, so a short stretch where nothing recurs gets a title.
      const repeats = (t: string) => (GENERIC_WORDS.has(t) ? 0 : (0.05 + Math.log(counts.get(t) ?? 1)) * (opts.specificity?.(t) ?? 1));
      const recurrence = p.terms.reduce((n, t) => n + repeats(t), 0) / Math.sqrt(p.terms.length);
      const words = p.text.split(/\s+/).length;
      const shape = words === 1 ? 0.6 : words <= 5 ? 1 : 0.7;
      const avoid = p.terms.some((t) => opts.avoid?.has(t)) ? 0.3 : 1;
      const s = recurrence * shape * avoid * (opts.weight?.(p) ?? 1);
      if (s <= 0) continue;
      const prev = seen.get(key);
      if (!prev || s > prev.s) seen.set(key, { p, s });
    }
  });
  return [...seen.values()].sort((x, y) => y.s - x.s).map((e) => e.p);
}

/** "Welcome (back) to X" / "This is X" at the top of an episode: the show's name, if said. */
export function showName(firstSentences: string[]): string | null {
  for (const s of firstSentences) {
    const m = /(?<![\p{L}\p{N}])(?:welcome(?: back)? to|you'?re listening to|this is|bienvenue (?:dans|sur|à)|vous écoutez|willkommen (?:bei|zu|im|in)|bienvenid[oa]s? a|benvenut[oi] (?:a|in|su)|bem-vind[oa]s? (?:ao?|à)|welkom (?:bij|in))\s+((?:the\s+)?[\p{L}\p{N}'’&-]+(?:\s+[\p{L}\p{N}'’&-]+){0,3}?)(?=[,.!?]|\s+(?:the|a|with|where|I'm|I am)\b)/iu.exec(s);
    if (m) return m[1]!;
  }
  return null;
}

export interface ChapterTitle {
  title: string;
  /** The chapter's best phrases, as said. */
  keyphrases: string[];
}

/**
 * One title per chapter (spans of sentence indices), each distinct: a chapter's phrases are scored
 * by how specific their terms are to it (TF-IDF over chapters), terms an earlier title used and the
 * show's own name are scored down.
 */
export function chapterTitles(texts: string[], nlps: SentenceNlp[], spans: ReadonlyArray<readonly [number, number]>, speakerNames?: Record<string, string>, language?: string): ChapterTitle[] {
  const text = notesText(language);
  const perChapter = spans.map(([a, b]) => termCounts(nlps.slice(a, b + 1)));
  const df = (term: string) => perChapter.filter((c) => c.has(term)).length;
  const specificity = (term: string) => (spans.length > 1 ? Math.log(1 + spans.length / Math.max(1, df(term))) : 1);
  const avoid = nonTopicTerms(texts, speakerNames);
  const usedTitles = new Set<string>();
  return spans.map(([a, b], i) => {
    const ranked = rankTitlePhrases(texts.slice(a, b + 1), nlps.slice(a, b + 1), { avoid, specificity });
    const pick = ranked.find((p) => !usedTitles.has(p.text.toLowerCase()));
    let title = text.chapter(i);
    if (pick) {
      title = titleFor(pick.text, language);
      usedTitles.add(pick.text.toLowerCase());
      for (const t of pick.terms) avoid.add(t);
    }
    return { title, keyphrases: ranked.slice(0, 5).map((p) => p.text) };
  });
}

/** Terms that are not topics: the show's own name (said in its welcome line) and the speakers' names. */
export function nonTopicTerms(texts: string[], speakerNames: Record<string, string> = {}): Set<string> {
  const names = [showName(texts.slice(0, 3)) ?? "", ...Object.values(speakerNames)].join(" ").toLowerCase();
  return new Set(names.split(/\s+/).filter(Boolean).map(stemTerm));
}
